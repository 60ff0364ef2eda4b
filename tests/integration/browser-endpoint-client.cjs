// SPDX-License-Identifier: LGPL-2.1-or-later
// Playwright's own client (playwright-core, no browser of its own) against
// the DevTools URL botdesk browser PROFILE endpoint printed: what a gateway's
// browser tool does. One JSON line per step on stdout.
//   node browser-endpoint-client.cjs SDK_DIR open URL TITLE   connect, open a data: page titled TITLE, read it back
//   node browser-endpoint-client.cjs SDK_DIR refused URL      connect, expecting a refusal: its message
'use strict';
const path = require('path');
const [sdkDir, mode, url, title] = process.argv.slice(2);
const { chromium } = require(path.join(sdkDir, 'node_modules', 'playwright-core'));

function say(o) {
        process.stdout.write(JSON.stringify(o) + '\n');
}

async function open() {
        const t0 = Date.now();
        const browser = await chromium.connectOverCDP(url, { timeout: 30000 });
        say({ step: 'connected', version: browser.version(), contexts: browser.contexts().length, ms: Date.now() - t0 });
        const context = browser.contexts()[0];
        const page = await context.newPage();
        await page.goto('data:text/html,<title>' + encodeURIComponent(title) + '</title><p>botdesk</p>');
        say({ step: 'page', title: await page.title(), sum: await page.evaluate(() => 6 * 7) });
        await page.close();
        say({ step: 'done' });
}

async function refused() {
        try {
                await chromium.connectOverCDP(url, { timeout: 15000 });
                say({ step: 'refused', refused: false });
        } catch (e) {
                say({ step: 'refused', refused: true, message: String(e.message).split('\n')[0] });
        }
}

(mode === 'open' ? open() : refused()).then(() => process.exit(0), (e) => {
        say({ step: 'error', message: String(e && e.message || e).split('\n')[0] });
        process.exit(1);
});
