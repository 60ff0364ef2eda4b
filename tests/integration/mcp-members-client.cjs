// SPDX-License-Identifier: LGPL-2.1-or-later
// The MCP client of tests/integration/act-vendors.sh: the official
// TypeScript SDK's Client over stdio against `botdesk mcp PROFILE`, as a
// client that hands MCP tools to a model would use the toolset's members:
// lists the tools, calls left_click and type by their member names with the
// members' inputs, and an invalid input; prints one JSON line of what it saw.
//   node mcp-members-client.cjs SDK_DIR BOTDESK PROFILE
'use strict';
const path = require('path');
const { createRequire } = require('module');

const [sdkDir, botdesk, profile] = process.argv.slice(2);
const sdk = createRequire(path.join(sdkDir, 'node_modules', 'botdesk-tests.js'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');

function text(res) {
        const t = res.content.find((c) => c.type === 'text');
        try { return t ? JSON.parse(t.text) : null; } catch (e) { return { unparsable: t.text }; }
}

async function main() {
        const transport = new StdioClientTransport({ command: botdesk, args: ['mcp', profile], stderr: 'inherit',
                                                     env: { ...process.env } });
        const client = new Client({ name: 'botdesk-tests', version: '1.0.0' });

        await client.connect(transport);
        const { tools } = await client.listTools();
        const lc = tools.find((t) => t.name === 'left_click');
        const click = await client.callTool({ name: 'left_click', arguments: { coordinate: [250, 260] } });
        const type = await client.callTool({ name: 'type', arguments: { text: 'mcp' } });
        const bad = await client.callTool({ name: 'mouse_move', arguments: { coordinate: [1, 1], action: 'x' } });
        process.stdout.write(JSON.stringify({
                names: tools.map((t) => t.name),
                left_click_properties: lc ? Object.keys(lc.inputSchema.properties).sort() : null,
                click: { isError: !!click.isError, text: text(click), image: click.content.some((c) => c.type === 'image') },
                type: { isError: !!type.isError, text: text(type) },
                bad: { isError: !!bad.isError, text: bad.content[0].text },
        }) + '\n');
        await client.close();
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
