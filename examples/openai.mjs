// SPDX-License-Identifier: LGPL-2.1-or-later
// @ts-check
/**
 * An agent loop on OpenAI's GA computer tool and a botdesk desktop: the tool
 * is declared as `botdesk toolset PROFILE --vendor openai` prints it, each
 * computer_call item (one action or a batch) goes to botdesk act as it is,
 * and its computer_call_output goes back unchanged, pending safety checks
 * acknowledged by passing them on (a real gateway asks a person first).
 *   OPENAI_API_KEY=... node examples/openai.mjs PROFILE "open the terminal and run date"
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { BotdeskAct } from '../clients/node/botdesk.mjs';

/**
 * @param {{ profile: string, task: string, client: OpenAI, model?: string, maxTurns?: number, botdesk?: string }} o
 * @returns {Promise<string>} the model's last text
 */
export async function run(o) {
        const botdesk = o.botdesk ?? 'botdesk';
        /** @type {OpenAI.Responses.Tool} */
        const tool = JSON.parse(execFileSync(botdesk, ['toolset', o.profile, '--vendor', 'openai'], { encoding: 'utf8' }));
        const act = new BotdeskAct(o.profile, { botdesk });
        /** @type {OpenAI.Responses.ResponseInput} */
        let input = [{ role: 'user', content: o.task }];
        /** @type {string | undefined} */
        let previous;
        let text = '';

        try {
                for (let turn = 0; turn < (o.maxTurns ?? 20); turn++) {
                        const response = await o.client.responses.create({ model: o.model ?? 'computer-use', tools: [tool], input,
                                                                           previous_response_id: previous, truncation: 'auto' });
                        previous = response.id;
                        text = response.output_text ?? text;
                        const calls = response.output.filter((item) => item.type === 'computer_call');
                        if (calls.length === 0)
                                break;
                        input = [];
                        for (const call of calls)
                                input.push(/** @type {OpenAI.Responses.ResponseInputItem.ComputerCallOutput} */ (await act.send(call)));
                }
        } finally {
                await act.close();
        }
        return text;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
        console.log(await run({ profile: process.argv[2] ?? 'work', task: process.argv[3] ?? 'Take a screenshot.', client: new OpenAI() }));
