// SPDX-License-Identifier: LGPL-2.1-or-later
// @ts-check
/**
 * botdesk for the vendors' Node SDKs: one `botdesk act PROFILE` process per
 * desktop, a model's computer-use output written to it as the model wrote
 * it, the answer read back in the same vendor's shape (botdesk(1), act).
 * Nothing here speaks X or knows the screen: botdesk does, and this only
 * carries lines. Node's own modules only, besides the Anthropic SDK whose
 * driver class BotdeskComputerToolset implements.
 *
 *   const act = new BotdeskAct('work');
 *   await act.send(toolUseBlock);          // -> its tool_result block
 *   await act.send(computerCallItem);      // -> its computer_call_output
 *   await act.send(modelContent);          // -> the user content of functionResponses
 *   await act.close();
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BetaAbstractComputerToolset20260801, ToolError } from '@anthropic-ai/sdk/helpers/beta/toolsets';

export class BotdeskAct {
        /**
         * @param {string} profile the desktop's profile
         * @param {{ botdesk?: string, args?: string[] }} [options] the botdesk binary, and more words for act
         */
        constructor(profile, options = {}) {
                const child = spawn(options.botdesk ?? 'botdesk', ['act', profile, ...(options.args ?? [])],
                                    { stdio: ['pipe', 'pipe', 'inherit'] });
                /** @type {{ resolve: (line: string) => void, reject: (e: Error) => void }[]} */
                this.waiting = [];
                /** @type {number | null | undefined} */
                this.exitCode = undefined;
                this.child = child;
                createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) })
                        .on('line', (line) => this.waiting.shift()?.resolve(line));
                child.on('exit', (code) => {
                        this.exitCode = code;
                        // act prints nothing for an OpenAI item it cannot answer, says why on stderr, and ends.
                        for (const w of this.waiting.splice(0))
                                w.reject(new Error(`botdesk act ended (exit ${code}) without an answer; its stderr says why`));
                });
        }

        /**
         * One line of a model's output, answered.
         * @param {unknown} value a tool_use block or a turn's array of them, a computer_call, Gemini parts or content
         * @returns {Promise<any>}
         */
        send(value) {
                return new Promise((resolve, reject) => {
                        if (this.exitCode !== undefined)
                                return reject(new Error(`botdesk act has ended (exit ${this.exitCode})`));
                        this.waiting.push({ resolve: (line) => resolve(JSON.parse(line)), reject });
                        /** @type {import('node:stream').Writable} */ (this.child.stdin).write(JSON.stringify(value) + '\n');
                });
        }

        /** Ends act (its input ends) and waits for it. @returns {Promise<number | null>} */
        close() {
                if (this.exitCode !== undefined)
                        return Promise.resolve(this.exitCode);
                return new Promise((resolve) => {
                        this.child.once('exit', (code) => resolve(code));
                        /** @type {import('node:stream').Writable} */ (this.child.stdin).end();
                });
        }
}

/**
 * The Anthropic SDK's computer toolset driver (BetaAbstractComputerToolset20260801) on a botdesk desktop:
 * every member runs in botdesk as the toolset's own tool_use block, and comes back as the SDK's member results
 * (nothing for a pure action, the point for cursor_position, the JPEG for screenshot and zoom), so that the
 * SDK's tool runner and toolResult() render them. A call botdesk refuses (a human has control, a point outside
 * the screenshot) is the SDK's ToolError with botdesk's words.
 */
export class BotdeskComputerToolset extends BetaAbstractComputerToolset20260801 {
        /**
         * @param {BotdeskAct} act
         * @param {import('@anthropic-ai/sdk/helpers/beta/toolsets').BetaComputerToolsetOptions} [options]
         */
        constructor(act, options) {
                super(options);
                this.act = act;
                this.calls = 0;
        }

        /**
         * @param {import('@anthropic-ai/sdk/helpers/beta/toolsets').BetaToolsetCallContext} ctx
         * @param {any} name
         * @param {any} input
         * @returns {Promise<any>}
         */
        async execute(ctx, name, input) {
                const result = await this.act.send({ type: 'tool_use', id: `botdesk_${++this.calls}`, name,
                                                     toolset_name: 'computer', input });
                /** @type {any[]} */
                const content = result.content ?? [];
                if (result.is_error)
                        throw new ToolError(content.map((c) => c.text).join(' '));
                const image = content.find((c) => c.type === 'image');
                if (image)
                        return { data: image.source.data, mediaType: image.source.media_type };
                const point = /^X=(\d+),Y=(\d+)$/.exec(content[0]?.text ?? '');
                if (name === 'cursor_position' && point)
                        return { x: Number(point[1]), y: Number(point[2]) };
                return undefined;
        }
}
