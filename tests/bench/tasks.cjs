// SPDX-License-Identifier: LGPL-2.1-or-later
// The task bench's client (tests/bench/tasks.sh says what it measures and
// why each task is made as it is): six tasks on a real Xfce desktop, each
// done as the reference demo's loop and as botdesk's best use, through the
// official SDK's client against `botdesk mcp PROFILE`.
//   node tasks.cjs SDK_DIR BOTDESK PROFILE HOME [ROUNDS]
// HOME is the desktop's home (the bench's scratch dir, never a user's).
// Prints one JSON object: per task and mode, the median wall time (ms),
// screenshots and image bytes returned, tool calls, and how many outcomes
// were right; every run's calls in "runs". Exits 1 when an outcome was wrong.
// Progress on stderr, a line per run; to look into one task: TASKS_ONLY=editor,browser runs only
// those, TASKS_TRACE=1 lists each run's calls, TASKS_SHOTS=DIR keeps the screen of a wrong outcome.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFile, spawn } = require('child_process');
const { createRequire } = require('module');

const [sdkDir, botdesk, profile, home, roundsArg] = process.argv.slice(2);
const ROUNDS = Number(roundsArg || 1);
const SLEEP_MS = 2000;          // the reference loop's fixed sleep
const WAIT_S = 30;              // the bound of every wait, in either mode
const STALL_MS = 5000;          // an action call longer than this waited past settle's cap of 2 s
const sdk = createRequire(path.join(sdkDir, 'node_modules', 'botdesk-bench.js'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');

if (!path.isAbsolute(home || '') || path.resolve(home) === '/' || !fs.statSync(home).isDirectory()) {
        console.error(`tasks.cjs: HOME must be the desktop's home, an absolute directory (got "${home}")`);
        process.exit(2);
}
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];

// ---- outside MCP: the bench playing the model, setting scenes and checking outcomes ----------------

function cli(args, timeout = 20000) {
        return new Promise((resolve) => {
                execFile(botdesk, args, { timeout, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
                        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
        });
}
async function windows() {
        const r = await cli(['windows', profile, '--json']);
        return r.code ? [] : JSON.parse(r.stdout).windows;
}
const titled = async (s) => (await windows()).some((w) => w.title.includes(s));
// Elements of the accessibility tree on the screen now (with screenshot bounds).
async function shown(spec) {
        const r = await cli(['a11y', profile, '--find', spec, '--json']);
        return r.code ? [] : JSON.parse(r.stdout).nodes.filter((n) => n.screenshot_bounds && n.states.includes('showing'));
}
const centre = (b) => Array.isArray(b) ? [b[0] + (b[2] >> 1), b[1] + (b[3] >> 1)] : [b.x + (b.width >> 1), b.y + (b.height >> 1)];
// Whether a terminal on the screen shows TEXT (its accessible text: what VTE draws).
const terminalShows = async (text) => (await shown('role=terminal')).some((n) => (n.text || '').includes(text));
async function where(spec) {
        const n = await shown(spec);
        if (!n.length)
                throw new Error(`no element ${spec} on the screen`);
        return centre(n[0].screenshot_bounds);
}

// A path inside HOME, or an error: the bench removes and writes nothing else.
function inHome(rel) {
        const p = path.resolve(home, rel);
        if (!p.startsWith(path.resolve(home) + '/'))
                throw new Error(`${rel} is outside the desktop's home`);
        return p;
}
const rmInHome = (rel) => fs.rmSync(inHome(rel), { force: true, recursive: true });
const readInHome = (rel) => { try { return fs.readFileSync(inHome(rel), 'utf8'); } catch { return null; } };

// The desktop's processes (its cgroup), to stop a task's application by pid.
function desktopPids() {
        const state = fs.readFileSync(path.join(process.env.XDG_RUNTIME_DIR, 'botdesk', profile, 'helper'), 'utf8');
        const cg = (state.match(/^CGROUP=(.*)$/m) || [])[1];
        const pids = [];
        const walk = (d) => {
                let entries = [];
                try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
                for (const e of entries)
                        if (e.isDirectory())
                                walk(path.join(d, e.name));
                        else if (e.name === 'cgroup.procs')
                                pids.push(...fs.readFileSync(path.join(d, e.name), 'utf8').split('\n').filter(Boolean).map(Number));
        };
        if (cg)
                walk(cg);
        return pids;
}
// The desktop's processes: pid, parent, comm and command line (Chromium rewrites its own into one string).
function processes() {
        const list = [];
        for (const pid of desktopPids())
                try {
                        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
                        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
                        if (state !== 'Z')
                                list.push({ pid, ppid: Number(ppid), comm, cmd: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ') });
                } catch { /* gone */ }
        for (const p of list)
                p.parent = (list.find((q) => q.pid === p.ppid) || {}).comm;
        return list;
}
// Stop the processes that match: SIGNAL, then SIGKILL after 5 s; and wait until they are gone.
async function stopApps(what, match, signal = 'SIGTERM') {
        const pids = processes().filter(match).map((p) => p.pid);
        for (const p of pids) try { process.kill(p, signal); } catch { /* gone */ }
        const alive = () => { const left = processes().map((p) => p.pid); return pids.filter((p) => left.includes(p)); };
        for (let t = now(); alive().length && now() - t < 5000;)
                await sleep(50);
        for (const p of alive()) {
                console.error(`tasks.cjs: ${what} (pid ${p}) outlived ${signal} by 5 s: SIGKILL`);
                try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
        }
}
// The terminal: its shells hung up, so that it closes as when they exit (killed itself, it would
// make the dock's launcher say it failed, in a window of its own).
async function stopTerminal() {
        await stopApps('the terminal\'s shell', (p) => p.parent === 'xfce4-terminal', 'SIGHUP');
        for (let t = now(); processes().some((p) => p.comm === 'xfce4-terminal') && now() - t < 5000;)
                await sleep(50);
        await stopApps('the terminal', (p) => p.comm === 'xfce4-terminal');
}
// An application's first process (not one it started of its own kind).
const isMain = (p, comm) => p.comm === comm && p.parent !== comm;

// A program the task's scene starts on the desktop (botdesk exec): its exit code and output, once done.
function scene(argv) {
        const p = spawn(botdesk, ['exec', profile, '--', ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        p.stdout.on('data', (d) => { out += d; });
        p.stderr.on('data', () => {});
        const done = new Promise((resolve) => p.on('close', (code) => resolve({ code, out })));
        return {
                // Its end, at most ms from now ({code: null} when it has not ended).
                async result(ms) { return Promise.race([done, sleep(ms).then(() => ({ code: null, out }))]); },
        };
}

// The screen as PNG (botdesk thumbnail at full size), decoded: {width, height, px(x, y) -> [r, g, b]}.
async function screenPixels() {
        const r = await cli(['thumbnail', profile, '--format', 'png', '--size', '8192x8192', '--data-url']);
        const png = Buffer.from(r.stdout.slice(r.stdout.indexOf(',') + 1), 'base64');
        let off = 8, width = 0, height = 0, type = 0;
        const idat = [];
        while (off < png.length) {
                const len = png.readUInt32BE(off), kind = png.toString('ascii', off + 4, off + 8), data = png.subarray(off + 8, off + 8 + len);
                if (kind === 'IHDR') {
                        width = data.readUInt32BE(0); height = data.readUInt32BE(4); type = data[9];
                        if (data[8] !== 8 || (type !== 2 && type !== 6) || data[12] !== 0)
                                throw new Error('the thumbnail is not an 8-bit RGB(A) PNG');
                } else if (kind === 'IDAT')
                        idat.push(data);
                off += 12 + len;
        }
        const bpp = type === 6 ? 4 : 3, stride = width * bpp, raw = zlib.inflateSync(Buffer.concat(idat));
        const img = Buffer.alloc(stride * height);
        for (let y = 0; y < height; y++) {
                const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
                for (let i = 0; i < stride; i++) {
                        const a = i >= bpp ? img[y * stride + i - bpp] : 0, b = y ? img[(y - 1) * stride + i] : 0;
                        const c = i >= bpp && y ? img[(y - 1) * stride + i - bpp] : 0;
                        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
                        const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
                        img[y * stride + i] = (src[i] + pred) & 0xff;
                }
        }
        return { width, height, px: (x, y) => [img[(y * width + x) * bpp], img[(y * width + x) * bpp + 1], img[(y * width + x) * bpp + 2]] };
}
// The desktop's file icons in its first column, as the model finds them in a screenshot: runs of
// rows that differ from the (solid) background, each an icon over its label; the folder is the one
// with blue in it. Returns {file: [x, y], folder: [x, y]} or null.
async function desktopIcons() {
        const s = await screenPixels(), seen = new Map();
        for (let y = 40; y < s.height - 60; y += 4)
                for (let x = 0; x < 160; x += 4)
                        seen.set(s.px(x, y).join(), (seen.get(s.px(x, y).join()) || 0) + 1);
        const bg = [...seen].sort((a, b) => b[1] - a[1])[0][0];
        const groups = [];
        let g = null;
        for (let y = 40; y < s.height - 60; y++) {
                let n = 0, sx = 0, blue = 0;
                for (let x = 0; x < 160; x++) {
                        const p = s.px(x, y);
                        if (p.join() === bg) continue;
                        n++; sx += x;
                        if (p[2] > p[0] + 60 && p[2] > p[1]) blue++;
                }
                if (n < 3) {
                        if (g && y - g.last > 12) { groups.push(g); g = null; }
                        continue;
                }
                if (!g) g = { top: y, last: y, sx: 0, n: 0, blue: 0 };
                if (y - g.top < 48) { g.sx += sx; g.n += n; g.blue += blue; }
                g.last = y;
        }
        if (g) groups.push(g);
        const icons = groups.filter((x) => x.last - x.top > 40).map((x) => ({ at: [Math.round(x.sx / x.n), x.top + 22], blue: x.blue }));
        if (icons.length !== 2) return null;
        icons.sort((a, b) => a.blue - b.blue);
        return { file: icons[0].at, folder: icons[1].at };
}

// ---- the agent: every call it makes, what came back, and the model's time taken out ---------------

class Agent {
        constructor(client) { this.client = client; this.reset(); }
        reset() { this.calls = 0; this.images = 0; this.bytes = 0; this.modelMs = 0; this.trace = []; this.rev = null; }
        // One MCP call; counted: a tool call and its images as the model's.
        async call(name, args, counted = true) {
                const t0 = now();
                const r = await this.client.callTool({ name, arguments: args }, undefined, { timeout: (WAIT_S + 30) * 1000 });
                const ms = now() - t0;
                const images = r.content.filter((c) => c.type === 'image');
                const bytes = images.reduce((s, c) => s + Buffer.from(c.data, 'base64').length, 0);
                const text = r.content.find((c) => c.type === 'text');
                let json = {};
                try { json = JSON.parse(text.text); } catch { /* a plain text */ }
                this.trace.push({ tool: name, what: args.action || args.for || (args.actions || []).map((a) => a.action).join('+'),
                                  ms: Math.round(ms), images: counted ? images.length : 0, bytes: counted ? bytes : 0 });
                if (r.isError)
                        throw new Error(`${name} ${JSON.stringify(args).slice(0, 120)}: ${text ? text.text.slice(0, 300) : 'error'}`);
                if (counted) {
                        this.calls++;
                        this.images += images.length;
                        this.bytes += bytes;
                }
                const last = json.results ? json.results[json.results.length - 1] : json;
                if (images.length || last.unchanged)
                        this.rev = last.revision || this.rev;
                return json;
        }
        // The model reading what it was given (a screenshot or an answer): not the agent's time.
        async model(fn) {
                const t0 = now();
                try { return await fn(); } finally { this.modelMs += now() - t0; }
        }

        // The reference loop. A step: the action, SLEEP_MS, a full screenshot, which is the step's one
        // picture and one call (the demo's computer tool does the three in one call). The 2 s count from
        // the action's input, as the demo's do: botdesk's settle, which starts there, is part of them.
        async shot() { await this.call('computer', { action: 'screenshot' }); }
        async step(action) {
                const r = action.actions ? await this.call('batch', action, false) : await this.call('computer', action, false);
                const settled = r.results ? r.results.reduce((s, x) => s + (x.settle_ms || 0), 0) : r.settle_ms || 0;
                await sleep(Math.max(0, SLEEP_MS - settled));
                await this.shot();
        }
        // Until the model sees what it waits for: its check after each screenshot, then SLEEP_MS and another
        // (or, when again says so, the step it takes on seeing that its last one did nothing).
        async until(what, check, again) {
                for (let i = 0; ; i++) {
                        if (await this.model(check))
                                return;
                        if (i * SLEEP_MS >= WAIT_S * 1000)
                                throw new Error(`reference: ${what} not seen within ${WAIT_S} s`);
                        if (again && await this.model(again.when)) {
                                for (const action of again.steps)
                                        await this.step(action);
                                continue;
                        }
                        await sleep(SLEEP_MS);
                        await this.shot();
                }
        }

        // botdesk's best use: batched actions (one settled screenshot), waits on the desktop's events.
        // picture: 'region' (what changed since the last picture the model saw: nothing when nothing
        // did, the part that changed when little did, else the whole) or 'none' (the actions settle,
        // no picture: for a step whose outcome a wait or a window list tells).
        since(action) {
                return this.rev ? { ...action, since_revision: this.rev, changed_region: true } : action;
        }
        async act(action, picture = 'region') {
                if (picture === 'none')
                        return this.batch([action], 'none');
                return this.call('computer', this.since(action));
        }
        async batch(actions, picture = 'region') {
                if (picture === 'none')
                        return this.call('batch', { actions, screenshot: false });
                return this.call('batch', { actions: [...actions.slice(0, -1), this.since(actions[actions.length - 1])] });
        }
        // picture: 'since' (only when the screen changed since the last one), 'none' (and no settle: at
        // once when the condition holds) or 'new'.
        async wait(cond, picture = 'since', timeout = WAIT_S) {
                const args = { for: cond, timeout };
                if (picture === 'none')
                        args.screenshot = false;
                else if (picture === 'since' && this.rev)
                        args.since_revision = this.rev;
                return this.call('wait_until', args);
        }
}

// ---- the tasks -------------------------------------------------------------------------------------

const COMMAND = 'sleep 1; echo "T1-DONE-$((6 * 7))" | tee ~/task-terminal.out';
const PAGE = 'task-page.html';
const PARAGRAPH = 'The quarterly report is ready. Sales grew in every region, most in the north, and returns ' +
        'fell for the third quarter running. The team will go through the figures on Monday morning and send ' +
        'the summary to the board by Wednesday.';
// Chromium's address bar, where the model sees it: 67 pixels below the top of its window, which
// draws its own title bar (its accessibility tree is not on the bus without a flag).
async function addressBar() {
        const w = (await windows()).find((x) => x.class === 'Chromium');
        if (!w)
                throw new Error('no Chromium window');
        return [w.x + (w.width >> 1), w.y + 67];
}
// Chromium just started may drop what it is sent (its window drawn, its input not yet taken): the
// page is then not even loading, the window still says New Tab, and the model opens it again.
const newTab = () => titled('New Tab - Chromium');
const NOTE = 'task-note.txt';
// The file chooser may take no notice of a Return that comes while it still completes the typed path
// (its save check cancelled, it seems, by the completion's change of the entry): still open, it is
// pressed again, in either mode, as the model would on seeing the dialog still there.
const saveAgain = { steps: [{ action: 'key', text: 'Return' }], when: async () => await titled('Save As') && !await titled(NOTE) };
let dock = {};

const tasks = [
        {
                name: 'terminal', what: 'open a terminal, run a command until its output shows',
                stop: stopTerminal,
                before() { rmInHome('task-terminal.out'); },
                async reference(r) {
                        await r.step({ action: 'left_click', coordinate: dock.terminal });
                        await r.until('the terminal', () => titled('Terminal'));
                        await r.step({ action: 'type', text: COMMAND });
                        await r.step({ action: 'key', text: 'Return' });
                        await r.until("the command's output", () => terminalShows('T1-DONE-42'));
                },
                async best(r) {
                        await r.act({ action: 'left_click', coordinate: dock.terminal }, 'none');
                        await r.wait('window=Terminal', 'none');
                        await r.batch([{ action: 'type', text: COMMAND }, { action: 'key', text: 'Return' }], 'none');
                        // What it waits for is what it wanted to read: the answer says it shows.
                        await r.wait('text=T1-DONE-42', 'none');
                },
                async check() {
                        const out = readInHome('task-terminal.out');
                        if (out !== 'T1-DONE-42\n')
                                return `~/task-terminal.out holds ${JSON.stringify(out)}, not "T1-DONE-42"`;
                        return await terminalShows('T1-DONE-42') ? null : 'the terminal does not show T1-DONE-42';
                },
        },
        {
                name: 'dialog', what: 'answer a GTK dialog (zenity --entry): type a name, press OK',
                stop: () => stopApps('zenity', (p) => isMain(p, 'zenity')),
                start() { this.app = scene(['zenity', '--entry', '--title', 'Task dialog', '--text', 'Name of the report:']); },
                async reference(r) {
                        await r.shot();
                        await r.until('the dialog', async () => (await shown('role=push button,name==OK')).length > 0);
                        const ok = await r.model(() => where('role=push button,name==OK'));
                        await r.step({ action: 'type', text: 'quarterly' });
                        await r.step({ action: 'left_click', coordinate: ok });
                },
                async best(r) {
                        const m = await r.wait('a11y=push button:OK', 'new');
                        await r.batch([{ action: 'type', text: 'quarterly' }, { action: 'left_click', coordinate: centre(m.element.bounds) }]);
                },
                async check() {
                        const { code, out } = await this.app.result(5000);
                        return code === 0 && out === 'quarterly\n' ? null : `zenity exited ${code} with ${JSON.stringify(out)}, not 0 with "quarterly"`;
                },
        },
        {
                name: 'browser', what: 'open the browser on a local page, wait until it has loaded',
                stop: () => stopApps('chromium', (p) => isMain(p, 'chromium')),
                before() {
                        // The page says it is loaded 0.5 s after its load event, as a page that fetches its data does.
                        fs.writeFileSync(inHome(PAGE), '<!doctype html><html><head><meta charset="utf-8"><title>Loading</title></head>' +
                                '<body><h1 id="h">Loading the report...</h1><script>addEventListener("load", () => setTimeout(() => {' +
                                'document.title = "Report ready 42"; h.textContent = "Report ready: 42 rows"; }, 500));</script></body></html>\n');
                },
                async reference(r) {
                        await r.step({ action: 'left_click', coordinate: dock.browser });
                        await r.until('the browser', () => titled('Chromium'));
                        const open = [{ action: 'left_click', coordinate: await r.model(addressBar) },
                                      { action: 'type', text: `file://${inHome(PAGE)}` }, { action: 'key', text: 'Return' }];
                        for (const action of open)
                                await r.step(action);
                        await r.until('the loaded page', () => titled('Report ready 42'), { steps: open, when: newTab });
                },
                async best(r) {
                        await r.act({ action: 'left_click', coordinate: dock.browser }, 'none');
                        await r.wait('window=Chromium');
                        const open = [{ action: 'left_click', coordinate: await r.model(addressBar) },
                                      { action: 'type', text: `file://${inHome(PAGE)}` }, { action: 'key', text: 'Return' }];
                        await r.batch(open, 'none');
                        try {
                                await r.wait('window=Report ready 42', 'none', 2);
                        } catch (e) {
                                if (!/timed_out/.test(e.message) || !await r.model(newTab))
                                        throw e;
                                await r.batch(open);
                                await r.wait('window=Report ready 42', 'none');
                        }
                },
                async check() {
                        const w = (await windows()).find((x) => x.title.includes('Chromium'));
                        return w && w.title.startsWith('Report ready 42') ? null : `the browser's title is ${JSON.stringify(w && w.title)}`;
                },
        },
        {
                name: 'editor', what: 'type a paragraph into a text editor, save it under a name',
                stop: () => stopApps('mousepad', (p) => isMain(p, 'mousepad')),
                before() { rmInHome(NOTE); },
                async reference(r) {
                        await r.step({ action: 'left_click', coordinate: dock.editor });
                        await r.until('the editor', () => titled('Mousepad'));
                        await r.step({ action: 'type', text: PARAGRAPH });
                        await r.step({ action: 'key', text: 'ctrl+s' });
                        await r.until('the Save As dialog', () => titled('Save As'));
                        await r.step({ action: 'type', text: inHome(NOTE) });
                        await r.step({ action: 'key', text: 'Return' });
                        await r.until('the saved name in the title', () => titled(NOTE), saveAgain);
                },
                async best(r) {
                        await r.act({ action: 'left_click', coordinate: dock.editor }, 'none');
                        // Mapped and then quiet: typed at the map, the text goes nowhere.
                        await r.wait('window=Mousepad', 'none');
                        await r.wait('quiet', 'none');
                        await r.batch([{ action: 'type', text: PARAGRAPH }, { action: 'key', text: 'ctrl+s' }], 'none');
                        await r.wait('window=Save As', 'none');
                        await r.wait('quiet', 'none');
                        await r.batch([{ action: 'type', text: inHome(NOTE) }, { action: 'key', text: 'Return' }], 'none');
                        try {
                                await r.wait(`window=${NOTE}`, 'none', 1);
                        } catch (e) {
                                if (!/timed_out/.test(e.message))
                                        throw e;
                                await r.act(saveAgain.steps[0], 'none');
                                await r.wait(`window=${NOTE}`, 'none');
                        }
                },
                async check() {
                        const text = readInHome(NOTE);
                        return text !== null && text.replace(/\n$/, '') === PARAGRAPH ? null : `~/${NOTE} holds ${JSON.stringify(text && text.slice(0, 60))}...`;
                },
        },
        {
                name: 'menu', what: 'walk a three-level menu: Report > Export > Format > Markdown',
                stop: () => stopApps('the menu', (p) => p.comm === 'python3' && p.cmd.includes('tasks-menu.py')),
                start() { this.app = scene(['/usr/bin/python3', path.join(__dirname, 'tasks-menu.py')]); },
                async reference(r) {
                        await r.shot();
                        await r.until('the menu window', async () => (await shown('role=menu,name==Report')).length > 0);
                        for (const spec of ['role=menu,name==Report', 'role=menu,name==Export', 'role=menu,name==Format', 'role=menu item,name==Markdown'])
                                await r.step({ action: 'left_click', coordinate: await r.model(() => where(spec)) });
                },
                async best(r) {
                        // The answer says where Report is; each click's settled screenshot shows the next level.
                        const m = await r.wait('a11y=menu:Report', 'none');
                        await r.act({ action: 'left_click', coordinate: centre(m.element.bounds) });
                        // Each level read off the settled screenshot the click returned.
                        for (const spec of ['role=menu,name==Export', 'role=menu,name==Format', 'role=menu item,name==Markdown'])
                                await r.act({ action: 'left_click', coordinate: await r.model(() => where(spec)) });
                },
                async check() {
                        const { code, out } = await this.app.result(5000);
                        return code === 0 && out === 'Report/Export/Format/Markdown\n' ? null : `the menu exited ${code} with ${JSON.stringify(out)}`;
                },
        },
        {
                name: 'drag', what: 'drag a file icon onto a folder icon on the desktop',
                stop: async () => {},
                async before() {
                        rmInHome('Desktop/Archive/report.txt');
                        fs.mkdirSync(inHome('Desktop/Archive'), { recursive: true });
                        fs.writeFileSync(inHome('Desktop/report.txt'), 'quarterly figures\n');
                        // The scene is set when both icons show: then the task begins.
                        for (let t = now(); !(this.icons = await desktopIcons());)
                                if (now() - t > 10000)
                                        throw new Error('the desktop did not show report.txt and Archive within 10 s');
                },
                // The drag as GTK takes one: press, moves paced by settle, release. (left_click_drag sends its
                // moves at once, which GTK's drag-and-drop never sees as a drag.) The reference's step is this
                // batch, as the demo's left_click_drag is one action.
                drag() {
                        const [fx, fy] = this.icons.file, [tx, ty] = this.icons.folder;
                        return [{ action: 'mouse_move', coordinate: [fx, fy] }, { action: 'left_mouse_down' },
                                { action: 'mouse_move', coordinate: [fx + 10, fy + 20] },
                                { action: 'mouse_move', coordinate: [tx + 4, (fy + ty) >> 1] },
                                { action: 'mouse_move', coordinate: [tx, ty] }, { action: 'left_mouse_up' }];
                },
                async reference(r) {
                        await r.shot();
                        this.icons = await r.model(() => desktopIcons());
                        await r.step({ actions: this.drag() });
                },
                async best(r) {
                        await r.act({ action: 'screenshot' });
                        this.icons = await r.model(() => desktopIcons());
                        await r.batch(this.drag());
                },
                async check() {
                        const moved = readInHome('Desktop/Archive/report.txt'), left = fs.existsSync(inHome('Desktop/report.txt'));
                        return moved === 'quarterly figures\n' && !left ? null :
                                `Archive/report.txt ${moved === null ? 'is missing' : 'exists'}, Desktop/report.txt ${left ? 'is still there' : 'is gone'}`;
                },
        },
];

// One run of a task in a mode: the scene, the agent's calls timed, the outcome checked, the scene cleared.
async function runTask(agent, t, mode) {
        let error = null, t0 = now();
        try {
                if (t.before)
                        await t.before();
                agent.reset();
                t0 = now();
                if (t.start)
                        t.start();
                await t[mode](agent);
        } catch (e) {
                error = String(e.message || e);
        }
        const wall = now() - t0 - agent.modelMs;
        const wrong = error || await t.check();
        // TASKS_SHOTS=DIR keeps the screen of each wrong outcome, to see what went wrong.
        if (wrong && process.env.TASKS_SHOTS) {
                const base = path.join(process.env.TASKS_SHOTS, `${t.name}-${mode}-${Date.now()}`);
                await cli(['thumbnail', profile, '--size', '8192x8192', '-o', `${base}.png`]);
                fs.writeFileSync(`${base}.json`, JSON.stringify({ windows: await windows(), cursor: (await cli(['cursor', profile, '--json'])).stdout,
                                                                  processes: processes().map((p) => `${p.pid} ${p.ppid} ${p.comm} ${p.cmd.slice(0, 80)}`) }, null, 1));
        }
        await t.stop();
        // The next run starts on a quiet screen.
        await cli(['wait', profile, '--for', 'quiet=300', '--timeout', '10']);
        // An action whose call outlasted settle's cap (2 s) by far waited on something else: botdesk's settle
        // can wait for the screen's next change (up to a minute) instead of its quiet time. Said, and kept.
        const stalled = agent.trace.filter((c) => c.tool !== 'wait_until' && c.ms > STALL_MS).length;
        return { task: t.name, mode, wall_ms: Math.round(wall), model_ms: Math.round(agent.modelMs), screenshots: agent.images,
                 image_bytes: agent.bytes, tool_calls: agent.calls, ok: !wrong, wrong, stalled, calls: agent.trace };
}

async function main() {
        // The desktop as the tasks want it: file icons on the desktop (only the task's), Desktop/ made.
        fs.mkdirSync(inHome('Desktop'), { recursive: true });
        for (const [prop, type, value] of [['style', 'int', '2'], ['file-icons/show-home', 'bool', 'false'],
                ['file-icons/show-filesystem', 'bool', 'false'], ['file-icons/show-trash', 'bool', 'false'],
                ['file-icons/show-removable', 'bool', 'false']]) {
                const r = await cli(['exec', profile, '--', 'xfconf-query', '-c', 'xfce4-desktop', '-p', `/desktop-icons/${prop}`, '-n', '-t', type, '-s', value]);
                if (r.code)
                        throw new Error(`xfconf-query /desktop-icons/${prop}: ${r.stderr}`);
        }
        // The dock's launchers, where the agent knows them to be from its first screenshot (once the panel is up).
        for (const [key, name] of [['terminal', 'Terminal'], ['browser', 'Web Browser'], ['editor', 'Text Editor']]) {
                if ((await cli(['wait', profile, '--for', `a11y=push button:${name}`, '--timeout', String(WAIT_S)])).code)
                        throw new Error(`the dock's ${name} launcher did not show within ${WAIT_S} s`);
                dock[key] = await where(`role=push button,name==${name}`);
        }
        const client = new Client({ name: 'botdesk-task-bench', version: '1.0.0' });
        await client.connect(new StdioClientTransport({ command: botdesk, args: ['mcp', profile], env: { ...process.env } }));
        const agent = new Agent(client);
        const status = JSON.parse((await client.callTool({ name: 'status', arguments: {} })).content[0].text);
        // Each application started once before any run is timed, so that neither mode pays a cold start.
        for (const key of ['terminal', 'browser', 'editor']) {
                await cli(['input', profile, 'click', ...dock[key].map(String)]);
                const title = { terminal: 'Terminal', browser: 'Chromium', editor: 'Mousepad' }[key];
                const r = await cli(['wait', profile, '--for', `window=${title}`, '--timeout', String(WAIT_S)]);
                if (r.code)
                        throw new Error(`warm-up: no ${title} window within ${WAIT_S} s`);
                await sleep(1000);
                await tasks.find((t) => t.name === key).stop();
        }
        await cli(['wait', profile, '--for', 'quiet=300', '--timeout', '10']);

        const runs = [];
        for (let round = 0; round < ROUNDS; round++)
                for (const t of tasks.filter((x) => !process.env.TASKS_ONLY || process.env.TASKS_ONLY.split(',').includes(x.name)))
                        // The order of the modes alternates by round: what the first run warms, the second has.
                        for (const mode of round % 2 ? ['best', 'reference'] : ['reference', 'best']) {
                                const r = await runTask(agent, t, mode);
                                r.round = round + 1;
                                runs.push(r);
                                console.error(`tasks.cjs: round ${r.round} ${t.name} ${mode}: ${r.wall_ms} ms, ${r.screenshots} screenshots, ` +
                                              `${r.image_bytes} bytes, ${r.tool_calls} calls, ${r.ok ? 'ok' : 'WRONG: ' + r.wrong}` +
                                              (r.stalled ? ` (STALLED: ${r.stalled} action calls over ${STALL_MS} ms)` : '') +
                                              (process.env.TASKS_TRACE ? '\n  ' + r.calls.map((c) => `${c.tool} ${c.what} ${c.ms} ms ${c.images} img`).join('\n  ') : ''));
                        }
        await client.close();

        const summary = (list) => ({
                wall_ms: median(list.map((r) => r.wall_ms)), screenshots: median(list.map((r) => r.screenshots)),
                image_bytes: median(list.map((r) => r.image_bytes)), tool_calls: median(list.map((r) => r.tool_calls)),
                ok: list.filter((r) => r.ok).length, runs: list.length, stalled: list.reduce((n, r) => n + r.stalled, 0),
        });
        const out = { rounds: ROUNDS, sleep_ms: SLEEP_MS, screen: status.screen, screenshot: status.screenshot, tasks: [], total: {} };
        for (const mode of ['reference', 'best'])
                out.total[mode] = { wall_ms: 0, screenshots: 0, image_bytes: 0, tool_calls: 0, ok: 0, runs: 0, stalled: 0 };
        for (const t of tasks) {
                const row = { task: t.name, what: t.what };
                for (const mode of ['reference', 'best']) {
                        row[mode] = summary(runs.filter((r) => r.task === t.name && r.mode === mode));
                        for (const k of Object.keys(out.total[mode]))
                                out.total[mode][k] += row[mode][k];
                }
                out.tasks.push(row);
        }
        out.runs = runs;
        console.log(JSON.stringify(out));
        process.exit(runs.every((r) => r.ok) ? 0 : 1);
}
main().catch((e) => { console.error(`tasks.cjs: ${e.stack || e}`); process.exit(2); });
