// SPDX-License-Identifier: LGPL-2.1-or-later
// Playwright's own client (playwright-core, no browser of its own) against
// the DevTools URL botdesk browser PROFILE endpoint printed: what a gateway's
// browser tool does. One JSON line per step on stdout.
//   node browser-endpoint-client.cjs SDK_DIR open URL TITLE   connect, open a data: page titled TITLE, read it back
//   node browser-endpoint-client.cjs SDK_DIR refused URL      connect, expecting a refusal: its message
//   node browser-endpoint-client.cjs SDK_DIR pair URL1 URL2 TITLE
//                                   two clients at once, each opening a page of its own and reading it back
'use strict';
const path = require('path');
const [sdkDir, mode, url, ...rest] = process.argv.slice(2);
const title = rest[rest.length - 1];
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

async function pair() {
        const [a, b] = await Promise.all([url, rest[0]].map((u) => chromium.connectOverCDP(u, { timeout: 30000 })));
        const pages = await Promise.all([a, b].map((browser) => browser.contexts()[0].newPage()));
        await Promise.all(pages.map((page, i) =>
                page.goto('data:text/html,<title>' + encodeURIComponent(title + ' ' + i) + '</title>')));
        const titles = await Promise.all(pages.map((page) => page.title()));
        const sums = await Promise.all(pages.map((page, i) => page.evaluate((k) => k * 7, i + 6)));
        say({ step: 'pair', titles: titles, sums: sums });
        await Promise.all(pages.map((page) => page.close()));
}

(mode === 'open' ? open() : mode === 'pair' ? pair() : refused()).then(() => process.exit(0), (e) => {
        say({ step: 'error', message: String(e && e.message || e).split('\n')[0] });
        process.exit(1);
});
