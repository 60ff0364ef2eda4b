// SPDX-License-Identifier: LGPL-2.1-or-later
// @ts-check
/**
 * An agent loop on Claude's computer toolset and a botdesk desktop: the tool
 * is declared as `botdesk toolset PROFILE --vendor anthropic` prints it, each
 * tool_use block the model sends runs through the SDK's own toolset pipeline
 * on botdesk (clients/node), and the tool_results go back unchanged.
 *   ANTHROPIC_API_KEY=... node examples/anthropic.mjs PROFILE "open the terminal and run date"
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { BotdeskAct, BotdeskComputerToolset } from '../clients/node/botdesk.mjs';

/**
 * @param {{ profile: string, task: string, client: Anthropic, model?: string, maxTurns?: number, botdesk?: string,
 *           confirm?: import('@anthropic-ai/sdk/helpers/beta/toolsets').BetaComputerConfirmCallable }} o
 * @returns {Promise<Anthropic.MessageParam[]>} the conversation
 */
export async function run(o) {
        const botdesk = o.botdesk ?? 'botdesk';
        /** @type {Anthropic.ToolUnion} */
        const tool = JSON.parse(execFileSync(botdesk, ['toolset', o.profile, '--vendor', 'anthropic'], { encoding: 'utf8' }));
        const act = new BotdeskAct(o.profile, { botdesk });
        // The SDK asks before type, key and hold_key; this example lets them all through, since botdesk
        // records every action in its journal and a human can take the desktop over at any time. A gateway
        // that wants a person to approve keystrokes asks here.
        const toolset = new BotdeskComputerToolset(act, { confirm: o.confirm ?? (() => true) });
        /** @type {Anthropic.MessageParam[]} */
        const messages = [{ role: 'user', content: o.task }];

        try {
                for (let turn = 0; turn < (o.maxTurns ?? 20); turn++) {
                        const message = await o.client.messages.create({ model: o.model ?? 'claude-opus-4-5', max_tokens: 1024,
                                                                         tools: [tool], messages });
                        messages.push({ role: 'assistant', content: message.content });
                        const uses = message.content.filter((b) => b.type === 'tool_use');
                        if (uses.length === 0)
                                break;
                        /** @type {Anthropic.ToolResultBlockParam[]} */
                        const results = [];
                        for (const use of uses)
                                results.push(/** @type {any} */ (await toolset.toolResult(/** @type {any} */ (use))));
                        messages.push({ role: 'user', content: results });
                }
        } finally {
                await act.close();
        }
        return messages;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
        await run({ profile: process.argv[2] ?? 'work', task: process.argv[3] ?? 'Take a screenshot.', client: new Anthropic() });
