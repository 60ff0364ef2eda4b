// SPDX-License-Identifier: LGPL-2.1-or-later
// The MCP client of tests/integration/mcp.sh: the official TypeScript SDK's
// Client over its stdio transport, driving `botdesk mcp PROFILE`. One JSON
// line per step on stdout, for the shell test to judge; the steps that need
// the world to change (a human taking control) run the CLI themselves.
// With "xfce", the steps of mcp-xfce.sh instead (xfce() below).
//   node mcp-client.cjs SDK_DIR BOTDESK PROFILE [xfce]
'use strict';
const path = require('path');
const { execFileSync, spawn } = require('child_process');
const { createRequire } = require('module');

const [sdkDir, botdesk, profile, mode] = process.argv.slice(2);
const sdk = createRequire(path.join(sdkDir, 'node_modules', 'botdesk-tests.js'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');
const Ajv = sdk('ajv');

const { say, describe } = require('./mcp-results.cjs');

// On a real Xfce desktop (mcp-xfce.sh): every action of both schemas once,
// aimed at a GTK entry (MCP_ENTRY "X,Y": its centre in screen pixels) and at
// the bare desktop (MCP_DESK), where a right click opens xfdesktop's menu;
// `bash MCP_PROBE open|closed` waits, bounded, for that menu to show or go
// and says what it saw.
async function xfce(client, computer) {
        const st = describe(await client.callTool({ name: 'status', arguments: {} }));
        say('status', st);
        const scale = st.text.screenshot[0] / st.text.screen[0];
        const pic = (x) => Math.floor(x * scale);
        const [ex, ey] = process.env.MCP_ENTRY.split(',').map(Number);
        const [dx, dy] = process.env.MCP_DESK.split(',').map(Number);
        const E = [pic(ex), pic(ey)], left = [pic(ex - 150), pic(ey)];
        const probe = (what) => execFileSync('bash', [process.env.MCP_PROBE, what]).toString().trim();

        // The entry first takes the text (both schemas' type), then the clicks that only select or paste.
        const steps = [
                { action: 'screenshot' },
                { action: 'mouse_move', coordinate: E },
                { action: 'left_click', coordinate: E },
                { action: 'key', text: 'ctrl+a' },
                { action: 'type', text: process.env.MCP_TEXT },
                { type: 'type', text: 'é' },
                { action: 'double_click', coordinate: E },
                { action: 'triple_click', coordinate: E },
                { action: 'left_mouse_down', coordinate: left },
                { action: 'left_mouse_up', coordinate: E },
                { action: 'left_click_drag', start_coordinate: left, coordinate: E },
                { action: 'middle_click', coordinate: E },
                { action: 'scroll', coordinate: E, scroll_direction: 'down', scroll_amount: 2 },
                { action: 'hold_key', text: 'shift', duration: 0.2 },
                { action: 'wait', duration: 0.3 },
                { action: 'zoom', region: [pic(ex - 200), pic(ey - 30), pic(ex + 200), pic(ey + 30)] },
                { type: 'click', x: E[0], y: E[1], button: 'left' },
                { type: 'double_click', x: E[0], y: E[1] },
                { type: 'drag', path: [{ x: left[0], y: left[1] }, { x: E[0], y: E[1] }] },
                { type: 'keypress', keys: ['CTRL', 'A'] },
                { type: 'scroll', x: E[0], y: E[1], scroll_x: 0, scroll_y: 200 },
                { type: 'wait' },
                { type: 'screenshot' },
                { type: 'move', x: E[0] + 1, y: E[1] + 1 },
                { action: 'cursor_position' },
        ];
        const results = [];
        for (const a of steps)
                results.push({ name: a.action || a.type, ...(await computer(a)) });
        say('every', { results, entry: E });
        say('windows', describe(await client.callTool({ name: 'windows', arguments: {} })));
        say('batch', describe(await client.callTool({ name: 'batch', arguments: { actions: [
                { type: 'move', x: pic(dx), y: pic(dy) }, { action: 'mouse_move', coordinate: [pic(dx) + 1, pic(dy)] } ] } })));

        say('right_click', await computer({ action: 'right_click', coordinate: [pic(dx), pic(dy)] }));
        say('menu_open', { probe: probe('open') });
        say('escape', await computer({ action: 'key', text: 'Escape' }));
        say('menu_closed', { probe: probe('closed') });
        await client.close();
        say('done', {});
}

async function main() {
        // The SDK passes a child only HOME, PATH, USER and a few more: the
        // desktop is found through XDG_RUNTIME_DIR (and here BOTDESK_CONFIG),
        // which an agent's configuration passes as "env" (README.md, doc/agents-mcp.md).
        const transport = new StdioClientTransport({ command: botdesk, args: ['mcp', profile], stderr: 'inherit',
                                                     env: { ...process.env } });
        const client = new Client({ name: 'botdesk-tests', version: '1.0.0' });
        const computer = async (args) => describe(await client.callTool({ name: 'computer', arguments: args }));

        await client.connect(transport);
        say('initialize', { server: client.getServerVersion(), capabilities: client.getServerCapabilities() });
        if (mode === 'xfce')
                return xfce(client, computer);

        const { tools } = await client.listTools();
        const ajv = new Ajv({ strict: false });
        say('tools', {
                tools: tools.map((t) => {
                        let valid = true, why = null;
                        try { ajv.compile(t.inputSchema); } catch (e) { valid = false; why = String(e); }
                        return { name: t.name, description: t.description, schemaValid: valid, why };
                }),
        });

        say('screenshot', await computer({ action: 'screenshot' }));
        const st = describe(await client.callTool({ name: 'status', arguments: {} }));
        say('status', st);

        // The points the test aims at are screen pixels; the agent sends the
        // screenshot's pixel that shows them (floor: the pixel containing it).
        const scale = st.text.screenshot[0] / st.text.screen[0];
        const pic = (x) => Math.floor(x * scale);
        say('click', await computer({ action: 'left_click', coordinate: [pic(300), pic(400)] }));
        say('drag', await computer({ action: 'left_click_drag', start_coordinate: [pic(100), pic(110)], coordinate: [pic(500), pic(310)] }));
        say('openai_click', await computer({ type: 'click', x: pic(640), y: pic(480), button: 'right' }));
        say('type', await computer({ action: 'type', text: process.env.MCP_TEXT }));
        say('cursor', await computer({ action: 'cursor_position' }));
        say('zoom', await computer({ action: 'zoom', region: [0, 0, pic(200), pic(100)] }));
        say('unknown', await computer({ action: 'fly', coordinate: [1, 1] }));
        say('outside', await computer({ action: 'left_click', coordinate: [100000, 5] }));
        say('extra', await computer({ action: 'left_click', coordinate: [5, 5], scroll_amount: 3 }));
        say('batch', describe(await client.callTool({ name: 'batch', arguments: { actions: [
                { type: 'move', x: pic(20), y: pic(30) }, { action: 'left_click' } ] } })));
        say('windows', describe(await client.callTool({ name: 'windows', arguments: {} })));

        // Every other action of both schemas, each once.
        const every = [
                { action: 'key', text: 'ctrl+l Return' },
                { action: 'mouse_move', coordinate: [pic(50), pic(60)] },
                { action: 'middle_click', coordinate: [pic(52), pic(62)] },
                { action: 'double_click', coordinate: [pic(54), pic(64)] },
                { action: 'triple_click', coordinate: [pic(56), pic(66)] },
                { action: 'left_mouse_down', coordinate: [pic(58), pic(68)] },
                { action: 'left_mouse_up', coordinate: [pic(60), pic(70)] },
                { action: 'scroll', coordinate: [pic(62), pic(72)], scroll_direction: 'down', scroll_amount: 2 },
                { action: 'hold_key', text: 'shift', duration: 0.2 },
                { action: 'wait', duration: 0.1 },
                { type: 'double_click', x: pic(70), y: pic(80) },
                { type: 'drag', path: [{ x: pic(72), y: pic(82) }, { x: pic(90), y: pic(82) }, { x: pic(90), y: pic(99) }] },
                { type: 'keypress', keys: ['CTRL', 'A'] },
                { type: 'move', x: pic(74), y: pic(84) },
                { type: 'scroll', x: pic(76), y: pic(86), scroll_x: 0, scroll_y: -200 },
                { type: 'type', text: 'é' },
                { type: 'wait' },
                { type: 'screenshot' },
        ];
        const results = [];
        for (const a of every) {
                const r = await computer(a);
                results.push({ name: a.action || a.type, isError: r.isError, image: !!r.image, text: r.text });
        }
        say('every', { results });

        execFileSync(botdesk, ['lease', profile, 'take', '--viewer', 'human-1'], { stdio: 'ignore' });
        say('taken', await computer({ action: 'left_click', coordinate: [pic(700), pic(700)] }));
        say('taken_screenshot', await computer({ action: 'screenshot' }));
        execFileSync(botdesk, ['lease', profile, 'release', '--viewer', 'human-1'], { stdio: 'ignore' });
        say('released', await computer({ action: 'left_click', coordinate: [pic(710), pic(710)] }));

        // The clipboard both ways: MCP's write read by the CLI, the CLI's write read over MCP.
        say('clip_write', describe(await client.callTool({ name: 'clipboard_write', arguments: { text: 'Grüße 📋 from MCP' } })));
        say('clip_cli_get', { text: execFileSync(botdesk, ['clipboard', profile, 'get']).toString() });
        execFileSync(botdesk, ['clipboard', profile, 'set'], { input: 'мир from the CLI' });
        const read = await client.callTool({ name: 'clipboard_read', arguments: {} });
        say('clip_read', { isError: !!read.isError, text: read.content[0].text });
        execFileSync(botdesk, ['lease', profile, 'take', '--viewer', 'human-1'], { stdio: 'ignore' });
        say('clip_taken', describe(await client.callTool({ name: 'clipboard_read', arguments: {} })));
        execFileSync(botdesk, ['lease', profile, 'release', '--viewer', 'human-1'], { stdio: 'ignore' });

        // ask_human: a human (played by a shell) sees the request, takes control and hands it back.
        const human = spawn('sh', ['-c', `
                for i in $(seq 100); do
                        "$0" lease "$1" show --json >"$2/pending"
                        grep -q '"pending": {' "$2/pending" && break
                        sleep 0.1
                done
                "$0" lease "$1" take --viewer human-2 >/dev/null
                "$0" lease "$1" release --viewer human-2 >/dev/null`, botdesk, profile, process.env.MCP_TMP],
                { stdio: 'ignore' });
        // Listened for now: it may well have ended before ask_human returns.
        const humanDone = new Promise((resolve) => human.on('exit', resolve));
        say('ask', describe(await client.callTool({ name: 'ask_human',
                arguments: { reason: 'log in to the bank, please', timeout: 20 } })));
        await humanDone;
        say('ask_timeout', describe(await client.callTool({ name: 'ask_human', arguments: { reason: 'nobody comes', timeout: 1 } })));

        // Revisions: the same screen twice is "unchanged" with a text item alone; the root repainted is a change.
        const raw = async (name, args) => {
                const res = await client.callTool({ name, arguments: args });
                return { ...describe(res), kinds: res.content.map((c) => c.type) };
        };
        const first = await raw('computer', { action: 'screenshot' });
        say('rev_first', first);
        const rev = first.text && first.text.revision;
        say('rev_same', await raw('computer', { action: 'screenshot', since_revision: rev }));
        say('rev_member', await raw('screenshot', { since_revision: rev }));
        say('rev_openai', await raw('computer', { type: 'screenshot', since_revision: rev }));
        execFileSync(botdesk, ['exec', profile, '--', 'xsetroot', '-solid', '#c08020'], { stdio: 'ignore' });
        const changed = await raw('computer', { action: 'screenshot', since_revision: rev });
        say('rev_changed', changed);
        say('rev_batch', await raw('batch', { actions: [{ action: 'wait', duration: 0 },
                { action: 'screenshot', since_revision: rev }] }));
        say('rev_bad', await raw('computer', { action: 'screenshot', since_revision: 'yesterday' }));
        // An action's own screenshot takes it too: a click on the bare root changes nothing.
        say('rev_click', await raw('computer', { action: 'left_click', coordinate: [pic(5), pic(5)],
                                                  since_revision: changed.text && changed.text.revision }));

        // changed_region: only the part that changed, when little did, against the last picture handed out.
        say('region_alone', await raw('computer', { action: 'screenshot', changed_region: true }));
        const base = await raw('computer', { action: 'screenshot', since_revision: rev, changed_region: true });
        say('region_base', base);
        const xm = spawn(botdesk, ['exec', profile, '--', 'xmessage', '-geometry', '+200+150', '-title', 'botdesk-region',
                                   'a small change'], { stdio: 'ignore' });
        const geometry = execFileSync(botdesk, ['exec', profile, '--', 'sh', '-c',
                'for i in $(seq 150); do xwininfo -name botdesk-region 2>/dev/null && exit 0; sleep 0.1; done; exit 1'],
                { encoding: 'utf8' });
        const g = (k) => Number((geometry.match(new RegExp(`${k}:\\s+(-?\\d+)`)) || [])[1]);
        await client.callTool({ name: 'wait_until', arguments: { for: 'quiet', screenshot: false, timeout: 20 } });
        const small = await raw('computer', { action: 'screenshot', since_revision: base.text && base.text.revision,
                                              changed_region: true });
        say('region_small', { ...small, window: [g('Absolute upper-left X'), g('Absolute upper-left Y'), g('Width'),
                                                 g('Height')] });
        execFileSync(botdesk, ['exec', profile, '--', 'xsetroot', '-solid', '#2060a0'], { stdio: 'ignore' });
        say('region_big', await raw('computer', { action: 'screenshot', since_revision: small.text && small.text.revision,
                                                  changed_region: true }));
        xm.kill();

        // A batch that declines its picture: the actions run and settle, no image comes back.
        say('batch_noshot', await raw('batch', { actions: [{ action: 'mouse_move', coordinate: [pic(20), pic(20)] },
                { action: 'mouse_move', coordinate: [pic(30), pic(30)] }], screenshot: false }));
        say('batch_badshot', await raw('batch', { actions: [{ action: 'wait', duration: 0 }], screenshot: 'no' }));
        await client.close();
        say('done', {});
}

main().catch((e) => { say('error', { error: String(e && e.stack || e) }); process.exit(1); });
