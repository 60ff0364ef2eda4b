// SPDX-License-Identifier: LGPL-2.1-or-later
// The agent's step over MCP, timed (tests/bench/bench.sh): the official SDK's
// client against `botdesk mcp PROFILE` on a real Xfce desktop.
//   node mcp-steps.cjs SDK_DIR BOTDESK PROFILE [TRIALS]
// Prints one JSON object: step p50/p95 over TRIALS (200) right_clicks on
// the desktop that open xfdesktop's GTK menu, each to the settled
// screenshot back, and how many of those screenshots were the picture a
// screenshot a second later showed (the menu finished); the settle's
// windows; a screenshot's median; the typing rate.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [sdkDir, botdesk, profile, trialsArg] = process.argv.slice(2);
const trials = Number(trialsArg || 200);
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
        // Each trial: the step timed, then its settled screenshot compared with one taken a second later,
        // which must be the same picture: a settle that ended early shows a menu still drawing. A trial
        // within 2 s of a minute's turn is not judged (the panel clock shows minutes, and its GLib timer
        // may fire up to a second early) and is run again.
        const steps = [], settles = {}, windows = {}, image = (r) => (r.content.find((c) => c.type === 'image') || {}).data;
        let identical = 0, differed = 0, unjudged = 0;
        const minute = (skew) => Math.floor((Date.now() + skew) / 60000);
        while (identical + differed < trials) {
                const m0 = minute(-2000);
                const s = await call({ action: 'right_click', coordinate: [Math.floor(w / 2), Math.floor(h / 2)] });
                await new Promise((r) => setTimeout(r, 1000));
                const later = await call({ action: 'screenshot' });
                await call({ action: 'key', text: 'Escape' });
                if (minute(2000) !== m0) { unjudged++; continue; }
                steps.push(s.ms);
                settles[s.text.settle] = (settles[s.text.settle] || 0) + 1;
                windows[s.text.settle_window_ms] = (windows[s.text.settle_window_ms] || 0) + 1;
                if (image(s.r) && image(s.r) === image(later.r)) identical++; else differed++;
        }
        const shots = [];
        for (let i = 0; i < 20; i++) shots.push((await call({ action: 'screenshot' })).ms);
        const base = 'Hello, мир! Grüße 日本語 😀 Ελληνικά 한국어 ';
        const text = Array.from(base.repeat(40)).slice(0, 1000).join('');
        const t = await call({ action: 'type', text });
        console.log(JSON.stringify({
                step_p50: pct(steps, 0.5), step_p95: pct(steps, 0.95), settles, settle_windows: windows,
                trials: steps.length, identical_1s_later: identical, differed_1s_later: differed, unjudged_minute: unjudged,
                screenshot_ms: pct(shots, 0.5), screenshot: `${w}x${h}`,
                type_chars: t.text.characters, type_ms: t.ms, type_cps: Math.round(t.text.characters / (t.ms / 1000)),
        }));
        await client.close();
}
main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
