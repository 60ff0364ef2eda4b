// SPDX-License-Identifier: LGPL-2.1-or-later
// The agent's step over MCP, timed (tests/bench/bench.sh): the official SDK's
// client against `botdesk mcp PROFILE` on a real Xfce desktop.
//   node mcp-steps.cjs SDK_DIR BOTDESK PROFILE
// Prints one JSON object: step p50/p95 (a right_click on the desktop that
// opens xfdesktop's GTK menu, to the settled screenshot back), the fixed
// sleep baseline's, a screenshot's median, and the typing rate.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [sdkDir, botdesk, profile] = process.argv.slice(2);
const sdk = createRequire(path.join(sdkDir, 'node_modules', 'botdesk-bench.js'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');

const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

async function main() {
        const client = new Client({ name: 'botdesk-bench', version: '1.0.0' });
        await client.connect(new StdioClientTransport({ command: botdesk, args: ['mcp', profile], env: { ...process.env } }));
        const call = async (args) => {
                const t0 = process.hrtime.bigint();
                const r = await client.callTool({ name: 'computer', arguments: args });
                return { ms: Number(process.hrtime.bigint() - t0) / 1e6, r, text: JSON.parse(r.content[0].text) };
        };
        const shot = await call({ action: 'screenshot' });
        const w = shot.text.screenshot.width, h = shot.text.screenshot.height;
        const steps = [], settles = {};
        for (let i = 0; i < 20; i++) {
                const s = await call({ action: 'right_click', coordinate: [Math.floor(w / 2), Math.floor(h / 2)] });
                steps.push(s.ms);
                settles[s.text.settle] = (settles[s.text.settle] || 0) + 1;
                await call({ action: 'key', text: 'Escape' });
        }
        const shots = [];
        for (let i = 0; i < 20; i++) shots.push((await call({ action: 'screenshot' })).ms);
        const base = 'Hello, мир! Grüße 日本語 😀 Ελληνικά 한국어 ';
        const text = Array.from(base.repeat(40)).slice(0, 1000).join('');
        const t = await call({ action: 'type', text });
        console.log(JSON.stringify({
                step_p50: pct(steps, 0.5), step_p95: pct(steps, 0.95), settles,
                screenshot_ms: pct(shots, 0.5), screenshot: `${w}x${h}`,
                type_chars: t.text.characters, type_ms: t.ms, type_cps: Math.round(t.text.characters / (t.ms / 1000)),
        }));
        await client.close();
}
main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
