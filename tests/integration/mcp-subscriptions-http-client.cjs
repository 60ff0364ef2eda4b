// SPDX-License-Identifier: LGPL-2.1-or-later
// subscriptions/listen of MCP 2026-07-28 over Streamable HTTP: `botdesk mcp
// PROFILE --listen unix:SOCKET`, spoken to in raw HTTP on the socket; or,
// given TOKEN and WEB_PID, `botdesk web` (pid WEB_PID) listening on SOCKET,
// at /PROFILE/mcp with that bearer token, and there a task besides (its
// handle, then tasks/get on later requests, as web serves them). Each step
// prints one line of JSON, {"step": NAME, ...}, for mcp-subscriptions.sh to
// judge. Usage: node mcp-subscriptions-http-client.cjs BOTDESK PROFILE SOCKET
// [TOKEN WEB_PID TITLE] (TITLE: of the window the task waits for).
'use strict';
const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const http = require('http');

const [botdesk, profile, sock, token, webPid, title] = process.argv.slice(2);
const target = token ? { socketPath: sock, path: `/${profile}/mcp` } : { socketPath: sock, path: '/mcp' };
const SUB = 'io.modelcontextprotocol/subscriptionId';
const say = (step, data) => console.log(JSON.stringify({ step, ...data }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const uri = (what) => `botdesk://${profile}/${what}`;
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const human = (...args) => execFileSync(botdesk, ['lease', profile, ...args, '--viewer', 'human-1'], { stdio: 'ignore' });
// The 2026 headers: the version, and the method (and a tool's name) the body names, as the SDK sends them.
const headers = (m) => ({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                          'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': m.method,
                          ...(m.params && m.params.name ? { 'Mcp-Name': m.params.name } : {}),
                          ...(token ? { Authorization: `Bearer ${token}` } : {}) });
const childrenOf = (pid) => {
        try {
                return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
        } catch { return []; }
};

// One POST: its status, content type and whole body.
const post = (message) => new Promise((resolve, reject) => {
        const req = http.request({ ...target, method: 'POST', headers: headers(message) }, (res) => {
                let body = '';
                res.on('data', (d) => { body += d; });
                res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
        });
        req.on('error', reject);
        req.setTimeout(20000, () => req.destroy(new Error(`no answer to ${message.method} in 20 s`)));
        req.end(JSON.stringify({ jsonrpc: '2.0', ...message }));
});

// A POST whose answer is an event stream: its events as they come, and whether it ended.
function stream(message) {
        const s = { events: [], ended: false, type: null, status: null, wake: null };
        s.req = http.request({ ...target, method: 'POST', headers: headers(message) }, (res) => {
                s.status = res.statusCode;
                s.type = res.headers['content-type'];
                let buf = '';
                res.on('data', (d) => {
                        buf += d.toString();
                        let end;
                        while ((end = buf.indexOf('\n\n')) >= 0) {
                                const lines = buf.slice(0, end).split('\n');
                                buf = buf.slice(end + 2);
                                const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
                                if (data) s.events.push({ at: Date.now(), msg: JSON.parse(data) });
                                if (s.wake) s.wake();
                        }
                });
                res.on('end', () => { s.ended = true; if (s.wake) s.wake(); });
                res.on('error', () => {});
        });
        s.req.on('error', () => { s.ended = true; });
        s.req.end(JSON.stringify({ jsonrpc: '2.0', ...message }));
        // The first event from index `from` on that pred accepts, within ms (null when none came).
        s.next = async (pred, ms, from = 0) => {
                for (const end = Date.now() + ms; ;) {
                        const i = s.events.findIndex((e, k) => k >= from && pred(e.msg));
                        if (i >= 0) return { ...s.events[i], index: i };
                        const left = end - Date.now();
                        if (left <= 0) return null;
                        await new Promise((r) => { s.wake = r; setTimeout(r, left); });
                }
        };
        s.until_end = async (ms) => {
                for (const end = Date.now() + ms; !s.ended && Date.now() < end;)
                        await new Promise((r) => { s.wake = r; setTimeout(r, 100); });
                return s.ended;
        };
        return s;
}

const listen = (id, notifications) => stream({ id, method: 'subscriptions/listen', params: { notifications, _meta: meta } });
const ack = (sub) => (m) => m.method === 'notifications/subscriptions/acknowledged' && m.params._meta[SUB] === sub;
const of = (sub, u) => (m) => m.method === 'notifications/resources/updated' && m.params._meta[SUB] === sub && m.params.uri === uri(u);

// Through web: a task of wait_until for the window TITLE, followed on later requests, each a connection of its own.
async function task(children, children_become) {
        const tasks = { ...meta, 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
        const call = async (id, method, params) => JSON.parse((await post({ id, method, params: { ...params, _meta: tasks } })).body);
        const created = (await call(10, 'tools/call', { name: 'wait_until', arguments: { for: `window=${title}`, timeout: 60, screenshot: false } })).result;
        const id = created && created.taskId;
        const working = (await call(11, 'tasks/get', { taskId: id })).result;
        const running = children().length;
        const xm = spawn(botdesk, ['exec', profile, '--', 'xmessage', '-title', title, 'subscriptions test'], { stdio: 'ignore' });
        say('window', { pid: xm.pid });
        let done = null;
        for (const end = Date.now() + 20000; Date.now() < end; await sleep(250)) {
                done = (await call(12, 'tasks/get', { taskId: id })).result;
                if (!done || done.status !== 'working') break;
        }
        xm.kill();
        const text = done && done.result && done.result.content && JSON.parse(done.result.content[0].text);
        say('task', { kind: created && created.resultType, working: working && working.status, running,
                      status: done && done.status, title: text && text.title, after: await children_become(0, 10000) });
}

async function main() {
        const server = token ? null : spawn(botdesk, ['mcp', profile, '--listen', `unix:${sock}`], { stdio: ['ignore', 'ignore', 'inherit'] });
        say('server', { pid: server ? server.pid : null });
        // The server's children (through web: those of web's children, the server it keeps among them).
        const children = () => token ? childrenOf(webPid).flatMap(childrenOf) : childrenOf(server.pid);
        // Bounded: children(n) within ms, polled every 100 ms.
        const children_become = async (n, ms) => {
                for (const end = Date.now() + ms; children().length !== n && Date.now() < end;) await sleep(100);
                return children().length;
        };
        for (const end = Date.now() + 20000; !fs.existsSync(sock) && Date.now() < end;) await sleep(50);

        const d = await post({ id: 1, method: 'server/discover', params: { _meta: meta } });
        const dr = JSON.parse(d.body).result;
        say('discover', { resources: (dr && dr.capabilities.resources) || null,
                          extensions: (dr && dr.capabilities.extensions) || null, raw: dr ? null : d.body });
        if (token)
                await task(children, children_become);

        // A listen for the lease and the windows: an event stream, its acknowledgment first.
        const s1 = listen('sub-1', { resourceSubscriptions: [uri('lease'), uri('windows'), 'file:///etc/passwd'] });
        const a1 = await s1.next(ack('sub-1'), 20000);
        say('ack', { status: s1.status, type: s1.type, notifications: a1 && a1.msg.params.notifications, first: a1 && a1.index,
                     children: children().length });

        // The human takes control and hands back: an event each, within 10 s.
        let from = s1.events.length, t = Date.now();
        human('take');
        const took = await s1.next((m) => of('sub-1', 'lease')(m) && m.params._meta['botdesk/lease'].holder === 'human', 10000, from);
        say('took', { ms: took && took.at - t });
        from = s1.events.length;
        human('release');
        const back = await s1.next((m) => of('sub-1', 'lease')(m) && m.params._meta['botdesk/lease'].holder === 'agent', 10000, from);
        say('released', { ok: !!back });

        // While the stream is open, requests on other connections are answered; a bad filter is a JSON error.
        const st = await post({ id: 2, method: 'tools/call', params: { name: 'status', arguments: {}, _meta: meta } });
        const bad = await post({ id: 'bad', method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: 'x' }, _meta: meta } });
        say('beside', { status: st.status, statusType: st.type, bad: bad.status, badType: bad.type,
                        badCode: JSON.parse(bad.body).error && JSON.parse(bad.body).error.code });

        // The client closes its stream: the subscription's process goes.
        s1.req.destroy();
        say('closed', { children: await children_become(0, 10000) });

        // notifications/cancelled for an open stream: 202, and the server ends that stream.
        const s2 = listen('sub-2', { resourceSubscriptions: [uri('lease')] });
        const a2 = await s2.next(ack('sub-2'), 20000);
        const c = await post({ method: 'notifications/cancelled', params: { requestId: 'sub-2', reason: 'done' } });
        say('cancelled', { acked: !!a2, status: c.status, ended: await s2.until_end(10000), children: await children_become(0, 10000) });

        // The desktop stops under a listener: a completion, then notifications/cancelled, then the stream ends.
        const s3 = listen('sub-3', { resourceSubscriptions: [uri('windows')] });
        const a3 = await s3.next(ack('sub-3'), 20000);
        execFileSync(botdesk, ['stop', profile], { stdio: 'ignore', timeout: 60000 });
        const done = await s3.next((m) => m.id === 'sub-3', 30000);
        const cancel = await s3.next((m) => m.method === 'notifications/cancelled', 5000);
        say('stopped', { acked: !!a3, result: done && done.msg.result, cancel: cancel && cancel.msg.params.requestId,
                         order: done && cancel ? cancel.index > done.index : null, ended: await s3.until_end(10000) });

        // The desktop gone, the server ends by itself (through web: the one web kept, so web has no child left).
        if (server) {
                const code = await new Promise((r) => {
                        if (server.exitCode !== null) r(server.exitCode);
                        server.on('exit', (c2) => r(c2));
                        setTimeout(() => { server.kill('SIGTERM'); }, 10000);
                });
                say('end', { code, socket: fs.existsSync(sock) });
        } else {
                for (const end = Date.now() + 10000; childrenOf(webPid).length > 0 && Date.now() < end;) await sleep(100);
                const webChildren = childrenOf(webPid).length;
                const after = await post({ id: 20, method: 'server/discover', params: { _meta: meta } });
                say('end', { webChildren, after: { status: after.status, type: after.type } });
        }
}

main().then(() => process.exit(0), (e) => { console.error(e && e.stack || e); process.exit(1); });
