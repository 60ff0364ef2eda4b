// SPDX-License-Identifier: LGPL-2.1-or-later
// The MCP client of tests/integration/a11y-hostile.sh: the official
// TypeScript SDK's Client over stdio against `botdesk mcp PROFILE`, calling
// a11y_tree once; prints the tool's result (its text parsed) as one line.
//   node a11y-hostile-mcp-client.cjs SDK_DIR BOTDESK PROFILE
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [sdkDir, botdesk, profile] = process.argv.slice(2);
const sdk = createRequire(path.join(sdkDir, 'node_modules', 'botdesk-tests.js'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');

async function main() {
        const transport = new StdioClientTransport({ command: botdesk, args: ['mcp', profile], stderr: 'inherit',
                                                     env: { ...process.env } });
        const client = new Client({ name: 'botdesk-tests', version: '1.0.0' });

        await client.connect(transport);
        const res = await client.callTool({ name: 'a11y_tree', arguments: {} });
        const text = res.content.find((c) => c.type === 'text');
        let parsed = null;
        try { parsed = text ? JSON.parse(text.text) : null; } catch (e) { parsed = { unparsable: text.text }; }
        process.stdout.write(JSON.stringify({ isError: !!res.isError, text: parsed }) + '\n');
        await client.close();
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
