// SPDX-License-Identifier: LGPL-2.1-or-later
// The MCP client of tests/integration/mcp-v2.sh: the official TypeScript
// SDK v2's Client over its stdio transport, driving `botdesk mcp PROFILE`
// with the version negotiation MODE asks for: "pin" (2026-07-28 only),
// "auto" (server/discover first, 2025 initialize as the fallback) or
// "legacy" (initialize, the SDK's default). With SOCKET, over Streamable
// HTTP to `botdesk mcp PROFILE --listen unix:SOCKET` instead of stdio
// (the SDK's HTTP transport, its fetch carried over the Unix socket). One
// JSON line per step on stdout, for the shell test to judge. With a URL
// instead (http://HOST:PORT/PROFILE/mcp), through `botdesk web`, with the
// bearer token in MCP_TOKEN, over the SDK's own fetch.
// MODE "ask" plays the hand-off of ask_human instead (ask() below).
//   node mcp-v2-client.cjs SDK_DIR BOTDESK PROFILE MODE [SOCKET|URL]
'use strict';
const path = require('path');
const { execFileSync } = require('child_process');
const { createRequire } = require('module');

const http = require('http');

const [sdkDir, botdesk, profile, mode, socket] = process.argv.slice(2);
const sdk = createRequire(path.join(sdkDir, 'node_modules', 'botdesk-tests.js'));
const { Client, ProtocolError, StreamableHTTPClientTransport } = sdk('@modelcontextprotocol/client');
const { StdioClientTransport } = sdk('@modelcontextprotocol/client/stdio');
const Ajv = sdk('ajv');

const { say, describe } = require('./mcp-results.cjs');

// fetch() over the Unix socket: the request as the SDK built it, the answer as a Response.
function unixFetch(url, init = {}) {
        return new Promise((resolve, reject) => {
                const u = new URL(url);
                const headers = Object.fromEntries(new Headers(init.headers || {}));
                const body = init.body ? Buffer.from(init.body) : null;
                // Its length said first, as fetch() says it for a body it holds whole.
                if (body) headers['content-length'] = String(body.length);
                const req = http.request({ socketPath: socket, path: u.pathname + u.search, method: init.method || 'GET',
                                           headers: { ...headers, host: 'localhost' } }, (res) => {
                        const chunks = [];
                        res.on('data', (c) => chunks.push(c));
                        res.on('end', () => {
                                const body = Buffer.concat(chunks);
                                const h = new Headers();
                                for (const [k, v] of Object.entries(res.headers)) h.set(k, Array.isArray(v) ? v.join(', ') : v);
                                resolve(new Response([101, 204, 205, 304].includes(res.statusCode) || body.length === 0 ? null : body,
                                                     { status: res.statusCode, headers: h }));
                        });
                        res.on('error', reject);
                });
                req.on('error', reject);
                if (init.signal) init.signal.addEventListener('abort', () => req.destroy(new Error('aborted')));
                if (body) req.write(body);
                req.end();
        });
}

// "ask": ask_human as rounds of input requests (2026-07-28, a client that
// elicits): the elicitation's answer, and what the test's human did in the
// meantime through the CLI, decide each outcome.
async function ask(transport) {
        const client = new Client({ name: 'botdesk-tests-v2', version: '1.0.0' },
                                  { versionNegotiation: { mode: { pin: '2026-07-28' } },
                                    capabilities: { elicitation: { form: {} } } });
        let plan = null, seen = [];
        client.setRequestHandler('elicitation/create', async (request) => {
                const pending = JSON.parse(execFileSync(botdesk, ['lease', profile, '--json']).toString());
                seen.push({ message: request.params.message, pending: (pending.lease || pending).pending || null });
                return plan(seen.length);
        });
        await client.connect(transport);
        const run = async (step, how) => {
                plan = how;
                seen = [];
                const res = await client.callTool({ name: 'ask_human', arguments: { reason: 'log in to the bank' } });
                say(step, { ...describe(res), elicitations: seen });
        };
        const cli = (...args) => execFileSync(botdesk, ['lease', profile, ...args], { stdio: 'ignore' });
        await run('ask_returned', (round) => {
                if (round === 1) { cli('take', '--viewer', 'human-1'); cli('release', '--viewer', 'human-1'); }
                return { action: 'accept', content: {} };
        });
        await run('ask_held', (round) => {
                if (round === 1) cli('take', '--viewer', 'human-1');
                if (round === 2) cli('release', '--viewer', 'human-1');
                return { action: 'accept', content: {} };
        });
        await run('ask_declined', () => ({ action: 'decline' }));
        say('after_decline', { lease: JSON.parse(execFileSync(botdesk, ['lease', profile, '--json']).toString()) });
        await run('ask_not_taken', () => ({ action: 'accept', content: {} }));
        await client.close();
        say('done', {});
}

// One resources/read's contents, as the shell test judges them: the JSON of a JSON text, another text's size
// (the viewer's page), a blob's first bytes and size.
function readDescribe(res) {
        const c = res.contents[0];
        const out = { n: res.contents.length, uri: c.uri, mimeType: c.mimeType };
        if (c.text !== undefined && c.mimeType === 'application/json') out.json = JSON.parse(c.text);
        else if (c.text !== undefined) out.text = { size: c.text.length };
        if (c.blob !== undefined) {
                const bytes = Buffer.from(c.blob, 'base64');
                out.blob = { size: bytes.length, magic: bytes.subarray(0, 3).toString('hex') };
        }
        return out;
}

// resources/list, and a read of each of the desktop's resources and of one it does not have.
async function resources(client, step) {
        const caps = client.getServerCapabilities() || {};
        const { resources } = await client.listResources();
        const read = {};
        for (const r of resources)
                read[r.name] = readDescribe(await client.readResource({ uri: r.uri }));
        let unknown = null;
        try {
                await client.readResource({ uri: `botdesk://${profile}/nothing` });
        } catch (e) {
                unknown = { code: e.code, uri: e.data && e.data.uri };
        }
        say(step, { capability: !!caps.resources, list: resources.map((r) => [r.uri, r.mimeType]), read, unknown });
}

async function main() {
        const negotiation = mode === 'pin' || mode === 'ask' ? { mode: { pin: '2026-07-28' } } : mode === 'auto' ? { mode: 'auto' } : undefined;
        const client = new Client({ name: 'botdesk-tests-v2', version: '1.0.0' },
                                  negotiation ? { versionNegotiation: negotiation } : {});
        const transport = socket && socket.startsWith('http')
                ? new StreamableHTTPClientTransport(new URL(socket),
                                                    { requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } } })
                : socket
                ? new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), { fetch: unixFetch })
                : new StdioClientTransport({ command: botdesk, args: ['mcp', profile], stderr: 'inherit',
                                             env: { ...process.env } });
        if (mode === 'ask')
                return ask(transport);
        await client.connect(transport);
        const discover = client.getDiscoverResult();
        say('connect', {
                version: client.getNegotiatedProtocolVersion(),
                server: client.getServerVersion(),
                supported: discover ? discover.supportedVersions : null,
                tools: !!(client.getServerCapabilities() || {}).tools,
                instructions: !!client.getInstructions(),
        });

        const ajv = new Ajv({ strict: false });
        const { tools } = await client.listTools();
        say('tools', {
                names: tools.map((t) => t.name),
                invalid: tools.filter((t) => { try { ajv.compile(t.inputSchema); return false; } catch (e) { return true; } })
                        .map((t) => t.name),
        });

        say('screenshot', describe(await client.callTool({ name: 'computer', arguments: { action: 'screenshot' } })));
        say('member', describe(await client.callTool({ name: 'mouse_move', arguments: { coordinate: [10, 10] } })));
        say('status', describe(await client.callTool({ name: 'status', arguments: {} })));
        await resources(client, 'resources');

        execFileSync(botdesk, ['lease', profile, 'take', '--viewer', 'human-1'], { stdio: 'ignore' });
        say('taken', describe(await client.callTool({ name: 'computer', arguments: { action: 'left_click', coordinate: [5, 5] } })));
        say('taken_screen', readDescribe(await client.readResource({ uri: `botdesk://${profile}/screen` })));
        execFileSync(botdesk, ['lease', profile, 'release', '--viewer', 'human-1'], { stdio: 'ignore' });
        say('released', describe(await client.callTool({ name: 'computer', arguments: { action: 'left_click', coordinate: [6, 6] } })));

        let unknown = null;
        try {
                await client.callTool({ name: 'fly', arguments: {} });
        } catch (e) {
                unknown = { code: e.code, protocolError: e instanceof ProtocolError, message: e.message };
        }
        say('unknown', { error: unknown });
        await client.close();
        say('done', {});
}

main().catch((e) => {
        process.stderr.write(`mcp-v2-client: ${e.stack || e}\n`);
        process.exit(1);
});
