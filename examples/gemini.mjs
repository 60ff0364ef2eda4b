// SPDX-License-Identifier: LGPL-2.1-or-later
// @ts-check
/**
 * An agent loop on Gemini's computer use and a botdesk desktop: the tool is
 * declared as `botdesk toolset PROFILE --vendor gemini` prints it (the
 * desktop environment, the browser's own functions excluded), the model's
 * content goes to botdesk act as it is, and the user content of
 * functionResponses it answers goes back unchanged.
 *   GEMINI_API_KEY=... node examples/gemini.mjs PROFILE "open the terminal and run date"
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { GoogleGenAI } from '@google/genai';
import { BotdeskAct } from '../clients/node/botdesk.mjs';

/**
 * @param {{ profile: string, task: string, client: GoogleGenAI, model?: string, maxTurns?: number, botdesk?: string }} o
 * @returns {Promise<import('@google/genai').Content[]>} the conversation
 */
export async function run(o) {
        const botdesk = o.botdesk ?? 'botdesk';
        /** @type {import('@google/genai').Tool} */
        const tool = JSON.parse(execFileSync(botdesk, ['toolset', o.profile, '--vendor', 'gemini'], { encoding: 'utf8' }));
        const act = new BotdeskAct(o.profile, { botdesk });
        /** @type {import('@google/genai').Content[]} */
        const contents = [{ role: 'user', parts: [{ text: o.task }] }];

        try {
                for (let turn = 0; turn < (o.maxTurns ?? 20); turn++) {
                        const response = await o.client.models.generateContent({ model: o.model ?? 'gemini-computer-use',
                                                                                  contents, config: { tools: [tool] } });
                        const content = response.candidates?.[0]?.content;
                        if (!content)
                                break;
                        contents.push(content);
                        if (!(content.parts ?? []).some((p) => p.functionCall))
                                break;
                        contents.push(await act.send(content));
                }
        } finally {
                await act.close();
        }
        return contents;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
        await run({ profile: process.argv[2] ?? 'work', task: process.argv[3] ?? 'Take a screenshot.', client: new GoogleGenAI({}) });
