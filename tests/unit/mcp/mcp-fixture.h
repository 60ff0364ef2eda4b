/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the MCP server's unit tests share: one message in, its response parsed, its error's code. */

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "server.h"
#include "util.h"

/* The response to one line (NULL: none), parsed; a response that is not one line of JSON is said. */
_unused_ static struct json_value *handle(struct mcp_server *s, const char *line) {
        _cleanup_free_ char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        struct json_value *v = NULL;

        assert(f);
        (void) mcp_server_handle(s, line, strlen(line), f);
        fclose(f);
        if (size == 0)
                return NULL;
        if (out[size - 1] != '\n' || memchr(out, '\n', size - 1))
                printf("# not one line: %s\n", out);
        if (json_parse(out, size, &v) < 0)
                printf("# not JSON: %s\n", out);
        return v;
}

/* The code of a JSON-RPC error response; 0 for anything else. */
_unused_ static long long error_code(const struct json_value *v) {
        long long c = 0;

        (void) json_get_int(json_get(json_get(v, "error"), "code"), -100000, 100000, &c);
        return c;
}
