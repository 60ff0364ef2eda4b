/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdio.h>
#include <sys/types.h>

#include "json.h"

/*
 * JSON-RPC 2.0 over a byte stream, as MCP's stdio transport frames it: one
 * message per line, no newline inside a message. A line longer than
 * JSONRPC_LINE_MAX is dropped whole (read to its end, never buffered) and
 * reported, so that one oversized message costs an error, not the session.
 */

#define JSONRPC_LINE_MAX (1u << 20)

enum {
        JSONRPC_PARSE_ERROR = -32700,
        JSONRPC_INVALID_REQUEST = -32600,
        JSONRPC_METHOD_NOT_FOUND = -32601,
        JSONRPC_INVALID_PARAMS = -32602,
        JSONRPC_INTERNAL_ERROR = -32603,
};

struct jsonrpc_reader {
        int fd;
        char *buf;                      /* JSONRPC_LINE_MAX + 1 bytes */
        size_t len;                     /* bytes buffered */
        size_t line_end;                /* the last line handed out ends here (consumed at the next call) */
        bool discarding;                /* inside a line that is too long */
};

int jsonrpc_reader_init(struct jsonrpc_reader *r, int fd);
void jsonrpc_reader_done(struct jsonrpc_reader *r);

/*
 * The next line (without its newline, NUL-terminated, valid until the next
 * call) in *ret, its length in *ret_len. Returns 1 for a line, 0 at the end
 * of the stream, -EMSGSIZE once for each line that was too long (dropped),
 * or a read error. A last line without a newline counts.
 */
int jsonrpc_read_line(struct jsonrpc_reader *r, char **ret, size_t *ret_len);

/* Whether a whole line is buffered past the last one handed out: the next read needs no read(2). */
bool jsonrpc_reader_buffered(const struct jsonrpc_reader *r);

/* {"jsonrpc": "2.0", "id": ID, "error": {"code": CODE, "message": MESSAGE}} and a newline; id NULL writes null. */
void jsonrpc_write_error(FILE *f, const struct json_value *id, int code, const char *message);
/* The same with "data": DATA in the error, DATA already JSON (NULL: none). */
void jsonrpc_write_error_data(FILE *f, const struct json_value *id, int code, const char *message, const char *data);
/* {"jsonrpc": "2.0", "id": ID, "result": RESULT} and a newline, RESULT already JSON. */
void jsonrpc_write_result(FILE *f, const struct json_value *id, const char *result);
