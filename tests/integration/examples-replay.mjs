// SPDX-License-Identifier: LGPL-2.1-or-later
// The examples' agent loops (examples/*.mjs) against recorded model output,
// with no network and no key: a server of this test's own on 127.0.0.1
// answers the vendor's SDK with the recorded responses in turn and keeps
// every request the SDK sent; the loop drives a real botdesk desktop in
// between. Prints the requests as one JSON array for
// tests/integration/act-vendors.sh to compare with its golden file, with
// what a run may vary written as a placeholder: every image's data (IMAGE),
// the lease epoch (EPOCH) and how the screen settled (SETTLE).
//   node examples-replay.mjs VENDOR BOTDESK PROFILE RECORDED.json
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const [vendor, botdesk, profile, recordedFile] = process.argv.slice(2);
const recorded = JSON.parse(readFileSync(recordedFile, 'utf8'));
const requests = [];

const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => { body += c; });
        req.on('end', () => {
                requests.push({ method: req.method, path: req.url.split('?')[0], body: body ? JSON.parse(body) : null });
                const next = recorded[requests.length - 1];
                res.writeHead(next ? 200 : 500, { 'content-type': 'application/json', 'request-id': `req_${requests.length}` });
                res.end(JSON.stringify(next ?? { error: { message: 'no more recorded responses' } }));
        });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const placeholders = { epoch: 'EPOCH', settle: 'SETTLE' };
function cut(v) {
        if (Array.isArray(v))
                return v.map(cut);
        if (v && typeof v === 'object')
                return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, placeholders[k] ?? cut(x)]));
        if (typeof v === 'string' && v.length > 200 && /^(data:image\/jpeg;base64,)?[A-Za-z0-9+/=]+$/.test(v))
                return `IMAGE(${v.startsWith('data:') ? 'data-url' : 'base64'})`;
        return v;
}

const task = 'Click the window, type, and look.';
try {
        if (vendor === 'anthropic') {
                const { default: Anthropic } = await import('@anthropic-ai/sdk');
                const { run } = await import('../../examples/anthropic.mjs');
                await run({ profile, task, botdesk, client: new Anthropic({ apiKey: 'test', baseURL: base, maxRetries: 0 }) });
        } else if (vendor === 'openai') {
                const { default: OpenAI } = await import('openai');
                const { run } = await import('../../examples/openai.mjs');
                await run({ profile, task, botdesk, client: new OpenAI({ apiKey: 'test', baseURL: base, maxRetries: 0 }) });
        } else {
                const { GoogleGenAI } = await import('@google/genai');
                const { run } = await import('../../examples/gemini.mjs');
                await run({ profile, task, botdesk, client: new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: base } }) });
        }
} finally {
        server.close();
}
process.stdout.write(JSON.stringify(cut(requests)) + '\n');
