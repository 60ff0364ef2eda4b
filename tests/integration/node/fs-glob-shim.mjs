// SPDX-License-Identifier: LGPL-2.1-or-later
// node:fs with a globSync that Node.js 20 lacks. The MCP conformance suite
// (pinned, 0.2.0-alpha.12) imports it by name, so on Debian's machines of
// Node.js 20 it would not load at all; none of the server scenarios the
// tests run calls it (the shim says so loudly if one ever does).
import * as fs from 'node:fs';
export * from 'node:fs';
export default fs.default ?? fs;
export function globSync(pattern) {
        throw new Error(`globSync(${pattern}): not on Node.js ${process.version} (tests/integration/node/fs-glob-shim.mjs)`);
}
