// SPDX-License-Identifier: LGPL-2.1-or-later
// The Tasks extension of MCP 2026-07-28 against `botdesk mcp PROFILE` on
// stdio, or with SOCKDIR over Streamable HTTP on a socket of its own
// (--listen unix:SOCKDIR/N.sock), in raw JSON-RPC: the SDK v2 has Tasks as
// wire types only, with no runtime to drive them. Each step prints one line
// of JSON, {"step": NAME, ...}, for mcp-tasks.sh to judge. Usage: node
// mcp-tasks-client.cjs BOTDESK PROFILE TITLE [SOCKDIR] (TITLE: the title of
// the window the test opens).
'use strict';
const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const path = require('path');

const [botdesk, profile, title, sockDir] = process.argv.slice(2);
let servers = 0;
const TASKS = 'io.modelcontextprotocol/tasks';
const say = (step, data) => console.log(JSON.stringify({ step, ...data }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// One `botdesk mcp --listen unix:` and a request's answer, each its own POST.
function httpServer() {
        const sock = path.join(sockDir, `${++servers}.sock`);
        const child = spawn(botdesk, ['mcp', profile, '--listen', `unix:${sock}`], { stdio: ['ignore', 'ignore', 'inherit'] });
        const ready = (async () => {
                for (const end = Date.now() + 10000; Date.now() < end; await sleep(50))
                        if (fs.existsSync(sock)) return;
                throw new Error(`no ${sock} within 10 s`);
        })();
        let id = 0;
        const request = async (method, params, timeoutMs = 20000) => {
                await ready;
                const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
                // What a 2026 client says beside its body, as the SDK's transport says it.
                const version = params && params._meta && params._meta['io.modelcontextprotocol/protocolVersion'];
                const headers = { host: 'localhost', 'content-type': 'application/json',
                                  accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body),
                                  ...(version ? { 'mcp-protocol-version': version, 'mcp-method': method } : {}),
                                  ...(version && method === 'tools/call' ? { 'mcp-name': params.name } : {}) };
                return new Promise((resolve, reject) => {
                        const req = http.request({ socketPath: sock, path: '/mcp', method: 'POST', timeout: timeoutMs,
                                                   headers }, (res) => {
                                const chunks = [];
                                res.on('data', (c) => chunks.push(c));
                                res.on('end', () => {
                                        try { resolve(JSON.parse(Buffer.concat(chunks).toString())); } catch (e) { reject(e); }
                                });
                        });
                        req.on('timeout', () => req.destroy(new Error(`no answer to ${method} in ${timeoutMs} ms`)));
                        req.on('error', reject);
                        req.end(body);
                });
        };
        return { child, request, children: () => childrenOf(child.pid), end: () => child.kill('SIGTERM') };
}

function childrenOf(pid) {
        try {
                return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
        } catch { return []; }
}

// One `botdesk mcp` and its responses by id.
function server() {
        if (sockDir)
                return httpServer();
        const child = spawn(botdesk, ['mcp', profile], { stdio: ['pipe', 'pipe', 'inherit'] });
        const waiting = new Map();
        let buf = '', id = 0;
        child.stdout.on('data', (d) => {
                buf += d.toString();
                let nl;
                while ((nl = buf.indexOf('\n')) >= 0) {
                        const msg = JSON.parse(buf.slice(0, nl));
                        buf = buf.slice(nl + 1);
                        const w = waiting.get(msg.id);
                        if (w) { waiting.delete(msg.id); w(msg); }
                }
        });
        const request = (method, params, timeoutMs = 20000) => new Promise((resolve, reject) => {
                const my = ++id;
                const timer = setTimeout(() => reject(new Error(`no answer to ${method} in ${timeoutMs} ms`)), timeoutMs);
                waiting.set(my, (m) => { clearTimeout(timer); resolve(m); });
                child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: my, method, params }) + '\n');
        });
        return { child, request, children: () => childrenOf(child.pid), end: () => child.stdin.end() };
}

const meta = (caps) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps });
const withTasks = meta({ extensions: { [TASKS]: {} } });
const plain = meta({});
const lease = () => { const l = JSON.parse(execFileSync(botdesk, ['lease', profile, '--json']).toString()); return l.lease || l; };
const human = (...args) => execFileSync(botdesk, ['lease', profile, ...args, '--viewer', 'human-1'], { stdio: 'ignore' });

// tasks/get until the task leaves working, at most ms; every answer's status.
async function until(s, taskId, ms) {
        const seen = [];
        for (const end = Date.now() + ms; Date.now() < end;) {
                const m = await s.request('tasks/get', { taskId, _meta: withTasks });
                if (!m.result) return { last: m, seen };
                seen.push(m.result.status);
                if (m.result.status !== 'working') return { last: m, seen };
                await sleep(200);
        }
        return { last: null, seen };
}

async function main() {
        const s = server();
        const d = await s.request('server/discover', { _meta: plain });
        say('discover', { extensions: d.result.capabilities.extensions || null });

        // wait_until as a task: working until the window the test opens exists, then completed with what matched.
        const call = (name, args, m = withTasks) => s.request('tools/call', { name, arguments: args, _meta: m });
        const created = await call('wait_until', { for: `window=${title}`, timeout: 60, screenshot: false });
        const task = created.result;
        say('created', { result: task, children: s.children().length });
        const got = await s.request('tasks/get', { taskId: task.taskId, _meta: withTasks });
        say('working', { result: got.result });
        const xm = spawn(botdesk, ['exec', profile, '--', 'xmessage', '-title', title, 'tasks test'], { stdio: 'ignore' });
        say('window', { pid: xm.pid });
        const done = await until(s, task.taskId, 30000);
        say('completed', { seen: done.seen, result: done.last && done.last.result, children: s.children().length,
                           text: done.last && JSON.parse(done.last.result.result.content[0].text) });

        // A wait that nothing ends, cancelled: its process gone, get says cancelled, the server serves on.
        const never = (await call('wait_until', { for: `window=never-${title}`, timeout: 600, screenshot: false })).result;
        const before = s.children().length;
        const cancel = await s.request('tasks/cancel', { taskId: never.taskId, _meta: withTasks });
        const after = await s.request('tasks/get', { taskId: never.taskId, _meta: withTasks });
        const status = await call('status', {});
        say('cancelled', { before, after: s.children().length, cancel, get: after.result,
                           status: status.result && status.result.resultType, statusError: status.result && status.result.isError });

        // What errs: an id never made, the same for cancel, a get from a client that did not declare the extension.
        const fake = 'f'.repeat(32);
        say('unknown', { get: (await s.request('tasks/get', { taskId: fake, _meta: withTasks })).error,
                         cancel: (await s.request('tasks/cancel', { taskId: fake, _meta: withTasks })).error,
                         update: (await s.request('tasks/update', { taskId: task.taskId, inputResponses: {}, _meta: withTasks })).result,
                         undeclared: (await s.request('tasks/get', { taskId: task.taskId, _meta: plain })).error });

        // Without the extension the same call is answered in its request, as before.
        const direct = await call('wait_until', { for: `window=${title}`, timeout: 10, screenshot: false }, plain);
        say('no_extension', { result: direct.result });

        // ask_human as a task: working while the request is pending; the human takes and hands back; completed.
        const ask = (await call('ask_human', { reason: 'solve the captcha', timeout: 60 })).result;
        let pending = null;
        for (const end = Date.now() + 15000; Date.now() < end && !pending; await sleep(200))
                pending = lease().pending;
        const mid = await s.request('tasks/get', { taskId: ask.taskId, _meta: withTasks });
        human('take');
        human('release');
        const asked = await until(s, ask.taskId, 30000);
        say('ask', { created: ask, pending, mid: mid.result, result: asked.last && asked.last.result,
                     text: asked.last && JSON.parse(asked.last.result.result.content[0].text) });

        // ask_human cancelled: the request for control withdrawn.
        const ask2 = (await call('ask_human', { reason: 'approve the payment', timeout: 60 })).result;
        let pending2 = null;
        for (const end = Date.now() + 15000; Date.now() < end && !pending2; await sleep(200))
                pending2 = lease().pending;
        await s.request('tasks/cancel', { taskId: ask2.taskId, _meta: withTasks });
        const got2 = await s.request('tasks/get', { taskId: ask2.taskId, _meta: withTasks });
        say('ask_cancelled', { pending: pending2, status: got2.result.status, after: lease().pending || null });

        // The cap: 16 working tasks, the next refused with words; all cancelled, room again.
        const ids = [];
        for (let i = 0; i < 16; i++)
                ids.push((await call('wait_until', { for: `window=never-${i}-${title}`, timeout: 600, screenshot: false })).result);
        const over = await call('wait_until', { for: `window=never-x-${title}`, timeout: 600, screenshot: false });
        const running = s.children().length;
        for (const t of ids)
                await s.request('tasks/cancel', { taskId: t.taskId, _meta: withTasks });
        say('cap', { kinds: [...new Set(ids.map((t) => t.resultType))], over: over.result, running, left: s.children().length });

        // The input ends (over HTTP: the server is stopped) with a task working: the server ends, and so does
        // the task's process.
        await call('wait_until', { for: `window=never-end-${title}`, timeout: 600, screenshot: false });
        const last = s.children();
        s.end();
        const code = await new Promise((r) => s.child.on('exit', (c) => r(c)));
        await sleep(300);
        say('end', { code, children: last.length, alive: last.filter((p) => fs.existsSync(`/proc/${p}`)).length });

        // A 2025 connection: no tasks, the call answered in its request; tasks/get is no method of that revision.
        const old = server();
        await old.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
        const oldCall = await old.request('tools/call', { name: 'wait_until', arguments: { for: `window=${title}`, timeout: 10, screenshot: false } });
        const oldGet = await old.request('tasks/get', { taskId: task.taskId });
        say('legacy', { result: oldCall.result, get: oldGet.error });
        old.end();
        xm.kill();
}

main().then(() => process.exit(0), (e) => { console.error(e && e.stack || e); process.exit(1); });
