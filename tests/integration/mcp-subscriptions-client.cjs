// SPDX-License-Identifier: LGPL-2.1-or-later
// subscriptions/listen of MCP 2026-07-28 against `botdesk mcp PROFILE` on
// stdio, in raw JSON-RPC (the SDK v2 types the method but delivers nothing).
// Each step prints one line of JSON, {"step": NAME, ...}, for
// mcp-subscriptions.sh to judge. Usage: node mcp-subscriptions-client.cjs
// BOTDESK PROFILE TITLE (TITLE: the title of the windows it opens).
'use strict';
const { spawn, execFileSync } = require('child_process');
const fs = require('fs');

const [botdesk, profile, title] = process.argv.slice(2);
const SUB = 'io.modelcontextprotocol/subscriptionId';
const say = (step, data) => console.log(JSON.stringify({ step, ...data }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const uri = (what) => `botdesk://${profile}/${what}`;

// One `botdesk mcp`: responses by id, every other message kept in order with the time it came.
function server() {
        const child = spawn(botdesk, ['mcp', profile], { stdio: ['pipe', 'pipe', 'inherit'] });
        const waiting = new Map(), seen = [];
        let buf = '', id = 0, wake = null;
        child.stdout.on('data', (d) => {
                buf += d.toString();
                let nl;
                while ((nl = buf.indexOf('\n')) >= 0) {
                        const msg = JSON.parse(buf.slice(0, nl));
                        buf = buf.slice(nl + 1);
                        const w = msg.method === undefined && waiting.get(msg.id);
                        if (w) { waiting.delete(msg.id); w(msg); continue; }
                        seen.push({ at: Date.now(), msg });
                        if (wake) wake();
                }
        });
        const send = (m) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
        const request = (method, params, timeoutMs = 20000) => new Promise((resolve, reject) => {
                const my = ++id;
                const timer = setTimeout(() => reject(new Error(`no answer to ${method} in ${timeoutMs} ms`)), timeoutMs);
                waiting.set(my, (m) => { clearTimeout(timer); resolve(m); });
                send({ id: my, method, params });
        });
        // The first message from index `from` on that pred accepts, within ms (null when none came: what is said).
        const next = async (pred, ms, from = 0) => {
                for (const end = Date.now() + ms; ;) {
                        const i = seen.findIndex((s, k) => k >= from && pred(s.msg));
                        if (i >= 0) return { ...seen[i], index: i };
                        const left = end - Date.now();
                        if (left <= 0) return null;
                        await new Promise((r) => { wake = r; setTimeout(r, left); });
                }
        };
        const children = () => {
                try {
                        return fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
                } catch { return []; }
        };
        return { child, send, request, next, seen, children };
}

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const human = (...args) => execFileSync(botdesk, ['lease', profile, ...args, '--viewer', 'human-1'], { stdio: 'ignore' });
const of = (sub, u) => (m) => m.method === 'notifications/resources/updated' && m.params._meta[SUB] === sub && (!u || m.params.uri === uri(u));
const ack = (sub) => (m) => m.method === 'notifications/subscriptions/acknowledged' && m.params._meta[SUB] === sub;
const listen = (s, id, notifications) => s.send({ id, method: 'subscriptions/listen', params: { notifications, _meta: meta } });

async function main() {
        const s = server();
        const d = await s.request('server/discover', { _meta: meta });
        say('discover', { resources: d.result.capabilities.resources || null });

        // A listen for the three, two URIs botdesk does not serve and a list it never changes.
        const t0 = Date.now();
        listen(s, 'sub-1', { toolsListChanged: true,
                             resourceSubscriptions: [uri('lease'), uri('windows'), uri('screen'), 'botdesk://other/lease', 'file:///etc/passwd'] });
        const a = await s.next(ack('sub-1'), 20000);
        say('ack', { notifications: a && a.msg.params.notifications, ms: a && a.at - t0, children: s.children().length,
                     first: s.seen.findIndex((x) => x.msg.params && x.msg.params._meta && x.msg.params._meta[SUB] === 'sub-1') });

        // The human takes control, then hands back: a lease notification each, within 10 s.
        let from = s.seen.length, t = Date.now();
        human('take');
        const took = await s.next((m) => of('sub-1', 'lease')(m) && m.params._meta['botdesk/lease'].holder === 'human', 10000, from);
        say('took', { meta: took && took.msg.params._meta['botdesk/lease'], ms: took && took.at - t });
        from = s.seen.length; t = Date.now();
        human('release');
        const back = await s.next((m) => of('sub-1', 'lease')(m) && m.params._meta['botdesk/lease'].holder === 'agent', 10000, from);
        say('released', { meta: back && back.msg.params._meta['botdesk/lease'], ms: back && back.at - t });

        // A window opens, then closes: a windows notification each, within 15 s.
        from = s.seen.length; t = Date.now();
        const xm = spawn(botdesk, ['exec', profile, '--', 'xmessage', '-title', title, 'subscriptions test'], { stdio: 'ignore' });
        say('window', { pid: xm.pid });
        const opened = await s.next((m) => of('sub-1', 'windows')(m) &&
                                    m.params._meta['botdesk/windows'].opened.some((w) => w.title === title), 15000, from);
        const id = opened && opened.msg.params._meta['botdesk/windows'].opened.find((w) => w.title === title).id;
        say('opened', { ms: opened && opened.at - t, id });
        from = s.seen.length; t = Date.now();
        xm.kill();
        const closed = await s.next((m) => of('sub-1', 'windows')(m) && m.params._meta['botdesk/windows'].closed.includes(id), 15000, from);
        // Another window of the session may open in the same read (Xfce's start is slow under ASan): only this one is judged.
        const w = closed && closed.msg.params._meta['botdesk/windows'];
        say('closed', { ms: closed && closed.at - t, reopened: w && w.opened.filter((o) => o.id === id || o.title === title).length,
                        others: w && w.opened.map((o) => o.title) });

        // The screen kept changing for 3 s (a window every 100 ms): screen notifications, never two within the throttle.
        from = s.seen.length;
        const bt = Date.now();
        const burst = spawn(botdesk, ['exec', profile, '--', 'sh', '-c',
                `for i in $(seq 30); do xmessage -timeout 1 -title ${title}-$i burst & sleep 0.1; done; wait`], { stdio: 'ignore' });
        await new Promise((r) => burst.on('exit', r));
        await sleep(700);
        const screens = s.seen.slice(from).filter((x) => of('sub-1', 'screen')(x.msg)).map((x) => x.at);
        const gaps = screens.slice(1).map((at, i) => at - screens[i]);
        say('screen', { count: screens.length, span: Date.now() - bt, minGap: gaps.length ? Math.min(...gaps) : null,
                        hasMeta: s.seen.slice(from).filter((x) => of('sub-1', 'screen')(x.msg)).some((x) => 'botdesk/screen' in x.msg.params._meta) });

        // What is refused, and what is allowed beside it.
        const refused = {};
        for (const [name, n] of [['missing', undefined], ['not_array', { resourceSubscriptions: uri('lease') }],
                                 ['not_string', { resourceSubscriptions: [1] }], ['not_bool', { toolsListChanged: 'yes' }]]) {
                s.send({ id: `bad-${name}`, method: 'subscriptions/listen', params: { ...(n ? { notifications: n } : {}), _meta: meta } });
                const e = await s.next((m) => m.id === `bad-${name}`, 10000);
                refused[name] = e && e.msg.error && e.msg.error.code;
        }
        listen(s, 'sub-1', { resourceSubscriptions: [uri('lease')] });
        const dup = await s.next((m) => m.id === 'sub-1' && m.error, 10000);
        listen(s, 'sub-2', { resourceSubscriptions: [uri('lease')] });
        listen(s, 'sub-3', {});
        const a2 = await s.next(ack('sub-2'), 20000), a3 = await s.next(ack('sub-3'), 20000);
        listen(s, 'sub-4', { resourceSubscriptions: [uri('windows')] });
        const a4 = await s.next(ack('sub-4'), 20000);
        listen(s, 'sub-5', { resourceSubscriptions: [uri('lease')] });
        const over = await s.next((m) => m.id === 'sub-5', 10000);
        say('bad', { refused, dup: dup && dup.msg.error.code, second: a2 && a2.msg.params.notifications,
                     empty: a3 && a3.msg.params.notifications, fourth: !!a4, over: over && over.msg.error && over.msg.error.code,
                     children: s.children().length });
        // Both lease listeners hear the same take, each under its own id.
        from = s.seen.length;
        human('take');
        const h1 = await s.next(of('sub-1', 'lease'), 10000, from), h2 = await s.next(of('sub-2', 'lease'), 10000, from);
        human('release');
        say('both', { one: !!h1, two: !!h2 });

        // Cancelled: no response, the process gone, nothing more of it, the server answers the next call.
        for (const sub of ['sub-1', 'sub-3', 'sub-4'])
                s.send({ method: 'notifications/cancelled', params: { requestId: sub, reason: 'done' } });
        const status = await s.request('tools/call', { name: 'status', arguments: {}, _meta: meta });
        from = s.seen.length;
        human('take');
        const still = await s.next(of('sub-2', 'lease'), 10000, from);
        human('release');
        await s.next((m) => of('sub-2', 'lease')(m) && m.params._meta['botdesk/lease'].holder === 'agent', 10000, from);
        await sleep(500);
        const after = s.seen.slice(from).filter((x) => x.msg.params && x.msg.params._meta && x.msg.params._meta[SUB] === 'sub-1');
        say('cancelled', { status: status.result && status.result.resultType, statusError: status.result && status.result.isError,
                           children: s.children().length, other: !!still, after: after.length,
                           responses: s.seen.filter((x) => ['sub-1', 'sub-3', 'sub-4'].includes(x.msg.id) && x.msg.result).length });

        // The input ends with a listener open: the server exits 0, its listener's process with it.
        const last = s.children();
        s.child.stdin.end();
        const code = await new Promise((r) => s.child.on('exit', (c) => r(c)));
        await sleep(300);
        say('end', { code, children: last.length, alive: last.filter((p) => fs.existsSync(`/proc/${p}`)).length });

        // A 2025 connection: subscriptions/listen is no method of that revision.
        const old = server();
        await old.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
        const oldListen = await old.request('subscriptions/listen', { notifications: { resourceSubscriptions: [uri('lease')] } });
        say('legacy', { error: oldListen.error });
        old.child.stdin.end();

        // The desktop stops under a listener: the server ends the subscription, a completion then a cancellation.
        const z = server();
        listen(z, 9, { resourceSubscriptions: [uri('windows')] });
        const za = await z.next(ack(9), 20000);
        execFileSync(botdesk, ['stop', profile], { stdio: 'ignore', timeout: 60000 });
        const done = await z.next((m) => m.id === 9, 30000);
        const cancel = await z.next((m) => m.method === 'notifications/cancelled', 5000);
        say('stopped', { acked: !!za, result: done && done.msg.result, cancel: cancel && cancel.msg.params.requestId,
                         order: done && cancel ? cancel.index > done.index : null });
        z.child.stdin.end();
}

main().then(() => process.exit(0), (e) => { console.error(e && e.stack || e); process.exit(1); });
