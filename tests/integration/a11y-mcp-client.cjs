// SPDX-License-Identifier: LGPL-2.1-or-later
// The MCP client of tests/integration/a11y.sh: the official TypeScript SDK's
// Client over stdio against `botdesk mcp PROFILE`, calling the a11y tools.
// One JSON line per step on stdout, for the shell test to judge.
//   node a11y-mcp-client.cjs SDK_DIR BOTDESK PROFILE
'use strict';
const path = require('path');
const { execFileSync } = require('child_process');
const { createRequire } = require('module');

const [sdkDir, botdesk, profile] = process.argv.slice(2);
const sdk = createRequire(path.join(sdkDir, 'node_modules', 'botdesk-tests.js'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdk('@modelcontextprotocol/sdk/client/stdio.js');
const Ajv = sdk('ajv');

const say = (step, data) => process.stdout.write(JSON.stringify({ step, ...data }) + '\n');

function describe(res) {
        const text = res.content.find((c) => c.type === 'text');
        let parsed = null;
        try { parsed = text ? JSON.parse(text.text) : null; } catch (e) { parsed = { unparsable: text.text }; }
        return { isError: !!res.isError, text: parsed };
}

async function main() {
        const transport = new StdioClientTransport({ command: botdesk, args: ['mcp', profile], stderr: 'inherit',
                                                     env: { ...process.env } });
        const client = new Client({ name: 'botdesk-tests', version: '1.0.0' });
        const call = async (name, args) => describe(await client.callTool({ name, arguments: args }));

        await client.connect(transport);
        const { tools } = await client.listTools();
        const ajv = new Ajv({ strict: false });
        say('tools', {
                tools: tools.filter((t) => t.name.startsWith('a11y_')).map((t) => {
                        let valid = true;
                        try { ajv.compile(t.inputSchema); } catch (e) { valid = false; }
                        return { name: t.name, schemaValid: valid };
                }),
        });
        const found = await call('a11y_find', { find: 'role=push button,name==Save' });
        say('find', found);
        const tree = await call('a11y_tree', {});
        say('tree', { isError: tree.isError, count: tree.text && tree.text.count,
                      roles: tree.text && tree.text.nodes ? tree.text.nodes.map((n) => n.role) : [] });
        const entry = await call('a11y_find', { find: 'role=text,name==Name' });
        say('set_text', await call('a11y_do', { id: entry.text.nodes[0].id, action: 'set-text', text: 'via mcp' }));
        const id = found.text.nodes[0].id;
        say('press', await call('a11y_do', { id, action: 'press' }));
        say('stale', await call('a11y_do', { id: id.split(':')[0] + ':999999', action: 'press' }));
        say('bad_find', await call('a11y_find', { find: 'colour=red' }));
        execFileSync(botdesk, ['lease', profile, 'take', '--viewer', 'human-mcp']);
        say('human', await call('a11y_do', { id, action: 'press' }));
        execFileSync(botdesk, ['lease', profile, 'release', '--viewer', 'human-mcp']);
        await client.close();
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
