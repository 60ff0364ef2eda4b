// SPDX-License-Identifier: LGPL-2.1-or-later
// What the MCP clients of the tests (mcp-client.cjs, mcp-v2-client.cjs)
// print of a step, and how they read a tool's result: its JSON text and the
// size its picture decodes to.
'use strict';

const say = (step, data) => process.stdout.write(JSON.stringify({ step, ...data }) + '\n');

// The width and height a baseline or progressive JPEG's SOF header gives.
function jpegSize(buf) {
        if (buf[0] !== 0xff || buf[1] !== 0xd8) return null;
        let i = 2;
        while (i + 9 < buf.length) {
                if (buf[i] !== 0xff) return null;
                const marker = buf[i + 1], len = buf.readUInt16BE(i + 2);
                if (marker >= 0xc0 && marker <= 0xc3)
                        return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
                i += 2 + len;
        }
        return null;
}

// A tool result as the test reads it: its JSON text, its picture's size.
function describe(res) {
        const text = res.content.find((c) => c.type === 'text');
        const image = res.content.find((c) => c.type === 'image');
        let parsed = null;
        try { parsed = text ? JSON.parse(text.text) : null; } catch (e) { parsed = { unparsable: text.text }; }
        return {
                isError: !!res.isError,
                text: parsed,
                image: image ? { mimeType: image.mimeType, ...jpegSize(Buffer.from(image.data, 'base64')) } : null,
        };
}

module.exports = { say, jpegSize, describe };
