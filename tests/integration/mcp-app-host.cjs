// SPDX-License-Identifier: LGPL-2.1-or-later
// A host of MCP Apps (the io.modelcontextprotocol/ui extension), for
// tests/integration/mcp-app.sh: the official SDK v2 client reads what
// `botdesk mcp PROFILE` offers (the view tool's _meta, ui://botdesk/viewer
// and its CSP) and calls view; with "render" it then shows the page as a
// host does, in Debian's Chromium driven by playwright-core: a sandboxed
// frame (scripts only: an opaque origin, so every request it makes is
// cross-origin), the Content-Security-Policy made from _meta.ui.csp,
// ui/initialize answered and the tool's result handed over, and the page's
// tools/call passed on to the server (as hosts do for an app). With
// "takeover" it then clicks the page's Take over, types "a" through the
// page's noVNC, and clicks Hand back. One JSON line per step on stdout.
//   node mcp-app-host.cjs SDK_DIR BOTDESK PROFILE CHROMIUM list|render|takeover [R,G,B]
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [sdkDir, botdesk, profile, chromiumPath, mode, want] = process.argv.slice(2);
const sdk = createRequire(path.join(sdkDir, 'node_modules', 'botdesk-tests.js'));
const { Client } = sdk('@modelcontextprotocol/client');
const { StdioClientTransport } = sdk('@modelcontextprotocol/client/stdio');
const { chromium } = sdk('playwright-core');

const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

// The frame's policy, as the extension's hosts make it from the resource's _meta.ui.csp.
function policy(csp) {
        const res = (csp.resourceDomains || []).join(' '), con = (csp.connectDomains || []).join(' ') || "'none'";
        return `default-src 'none'; script-src 'unsafe-inline' ${res}; style-src 'unsafe-inline' ${res}; ` +
               `img-src data: ${res}; font-src ${res}; media-src ${res}; connect-src ${con}`;
}

const HOST = `<!doctype html><html><body style="margin:0">
<iframe id="app" sandbox="allow-scripts" style="width:800px;height:600px;border:0"></iframe>
<script>
const frame = document.getElementById('app');
window.heard = [];
window.addEventListener('message', (e) => {
  if (e.source !== frame.contentWindow) return;
  const m = e.data;
  window.heard.push(m.method || 'reply');
  if (m.method === 'ui/initialize')
    frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2026-01-26',
      hostInfo: { name: 'botdesk-test-host', version: '1' }, hostCapabilities: {}, hostContext: {} } }, '*');
  else if (m.method === 'ui/notifications/initialized')
    frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: window.toolResult }, '*');
  else if (m.method === 'tools/call')
    window.hostCall(m.params).then((result) => frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result }, '*'),
      (e) => frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: String(e) } }, '*'));
});
</script></body></html>`;

// The desktop's control as the server's status tool says it.
async function control(client) {
        return JSON.parse((await client.callTool({ name: 'status', arguments: {} })).content[0].text).control;
}

async function until(frame, what, ms) {
        const t0 = Date.now();
        while (Date.now() - t0 < ms) {
                if (await frame.evaluate(what).catch(() => false)) return true;
                await new Promise((r) => setTimeout(r, 100));
        }
        return false;
}

async function render(client, html, csp, result) {
        const browser = await chromium.launch({ executablePath: chromiumPath, headless: true,
                                                args: ['--no-sandbox', '--disable-gpu'] });
        try {
                const page = await browser.newPage();
                const blocked = [], called = [];
                await page.exposeFunction('hostCall', async (params) => {
                        called.push(params.name);
                        return client.callTool(params);
                });
                page.on('console', (m) => { if (/Content Security Policy|Refused/.test(m.text())) blocked.push(m.text()); });
                await page.setContent(HOST);
                const app = html.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${policy(csp)}">`);
                await page.evaluate(([doc, res]) => { window.toolResult = res; document.getElementById('app').srcdoc = doc; },
                                    [app, result]);
                const frame = await (await page.$('#app')).contentFrame();
                const t0 = Date.now();
                let state = { connected: false, error: null };
                while (Date.now() - t0 < 30000) {
                        state = await frame.evaluate(() => window.botdesk || {}).catch(() => ({}));
                        if (state.connected || state.error) break;
                        await new Promise((r) => setTimeout(r, 100));
                }
                // The centre of the picture, once drawn (the desktop's root colour), or what it last was.
                let pixel = null;
                while (state.connected && Date.now() - t0 < 50000) {
                        pixel = await frame.evaluate(() => {
                                const c = document.querySelector('#screen canvas');
                                return c ? Array.from(c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data.slice(0, 3)) : null;
                        });
                        if (pixel && (!want || pixel.join(',') === want)) break;
                        await new Promise((r) => setTimeout(r, 100));
                }
                say({ step: 'render', connected: !!state.connected, error: state.error || null, pixel: pixel && pixel.join(','),
                      heard: await page.evaluate(() => window.heard), blocked, origin: await frame.evaluate(() => String(window.origin)),
                      ms: Date.now() - t0 });
                if (mode === 'takeover') {
                        const before = await control(client);
                        await frame.click('#control');
                        const took = await until(frame, () => window.botdesk.control === true, 10000);
                        const during = await control(client);
                        // A key typed in the frame, through its noVNC: it reaches the desktop only under control.
                        await frame.evaluate(() => window.botdesk.rfb.sendKey(0x61, 'KeyA'));
                        await new Promise((r) => setTimeout(r, 500));
                        await frame.click('#control');
                        const handed = await until(frame, () => window.botdesk.control === false, 10000);
                        say({ step: 'takeover', before, took, during, handed, after: await control(client), called,
                              button: await frame.evaluate(() => document.getElementById('control').textContent),
                              error: await frame.evaluate(() => window.botdesk.error) });
                }
        } finally {
                await browser.close();
        }
}

async function main() {
        const client = new Client({ name: 'botdesk-app-host', version: '1.0.0' });
        await client.connect(new StdioClientTransport({ command: botdesk, args: ['mcp', profile], env: { ...process.env } }));
        const tools = (await client.listTools()).tools;
        const view = tools.find((t) => t.name === 'view');
        say({ step: 'tools', view: !!view, meta: view ? view._meta : null,
              others: tools.filter((t) => t._meta && t._meta.ui && t.name !== 'view').map((t) => [t.name, t._meta.ui.visibility]) });
        const listed = (await client.listResources()).resources.find((r) => r.uri === 'ui://botdesk/viewer');
        say({ step: 'listed', listed: listed || null });
        const read = (await client.readResource({ uri: 'ui://botdesk/viewer' })).contents[0];
        say({ step: 'read', uri: read.uri, mimeType: read.mimeType, csp: read._meta && read._meta.ui ? read._meta.ui.csp : null,
              prefersBorder: read._meta && read._meta.ui ? read._meta.ui.prefersBorder : null, html: read.text.length,
              doctype: /^<!doctype html>/i.test(read.text), secret: /[0-9a-f]{64}/.test(read.text) });
        const result = await client.callTool({ name: 'view', arguments: {} });
        let body = null;
        try { body = JSON.parse(result.content[0].text); } catch (e) { body = { text: result.content[0].text }; }
        say({ step: 'view', isError: !!result.isError, body });
        if (mode !== 'list' && !result.isError)
                await render(client, read.text, read._meta.ui.csp, result);
        await client.close();
}
main().then(() => process.exit(0), (e) => {
        say({ step: 'error', message: String(e && e.stack || e).split('\n').slice(0, 3).join(' | ') });
        process.exit(1);
});
