// SPDX-License-Identifier: LGPL-2.1-or-later
// Module hooks for the MCP conformance suite on Node.js 20: its import of
// fs resolves to fs-glob-shim.mjs; nothing else is touched.
const shim = new URL('./fs-glob-shim.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
        if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL &&
            context.parentURL.includes('/@modelcontextprotocol/conformance/'))
                return { url: shim, shortCircuit: true };
        return next(specifier, context);
}
