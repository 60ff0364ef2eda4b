/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HTTP request reader reads whatever reaches the listener. Whatever the
 * bytes and however they are cut: the same verdict and the same head length
 * whole or in chunks; a complete request has a token method, a path that
 * starts with '/', at most HTTP_HEADERS_MAX fields; the helpers on its
 * fields stay within their buffers; a decoded path segment never holds '/'
 * and never names "." or "..".
 *
 * Input: byte 0 is the chunk size for the second pass (1..256), the rest
 * the bytes a client sends.
 */
#undef NDEBUG
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct http_request a, b;

static int feed(struct http_request *r, const uint8_t *d, size_t n, size_t chunk, size_t body_max, size_t *ret_used) {
        size_t at = 0;
        int k = 0;

        http_request_init(r);
        r->body_max = body_max;
        while (at < n) {
                size_t len = n - at < chunk ? n - at : chunk, used;

                k = http_request_feed(r, d + at, len, &used);
                if (used > len)
                        abort();
                at += used;
                if (k != 0)
                        break;
        }
        *ret_used = at;
        return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        size_t ua, ub, chunk, body_max;
        char v[96], seg[256];
        int ra, rb;

        if (size < 1)
                return 0;
        chunk = (size_t) data[0] + 1;
        /* An odd first byte: a reader that takes bodies of up to 64 KiB (botdesk mcp --listen's). */
        body_max = data[0] & 1 ? 65536 : 0;
        ra = feed(&a, data + 1, size - 1, size, body_max, &ua);
        rb = feed(&b, data + 1, size - 1, chunk, body_max, &ub);
        if (ra != rb || (ra != 0 && ua != ub))
                abort();
        if (ra != 1 && ra != 0 && ra != -EBADMSG && ra != -E2BIG && !(ra == -EFBIG && body_max > 0))
                abort();
        if (ra == 1 && (a.content_length > body_max || a.content_length != b.content_length))
                abort();
        if (ra != 1)
                return 0;

        if (!a.method || !a.path || a.path[0] != '/' || a.n_headers > HTTP_HEADERS_MAX || strcmp(a.path, b.path) != 0)
                abort();
        if (strlen(a.method) == 0 || strpbrk(a.method, " \t\r\n()<>@,;:\\\"/[]?={}"))
                abort();
        (void) http_header_has_token(&a, "Connection", "upgrade");
        (void) http_query_get(a.query, "ticket", v, sizeof v);
        (void) http_cookie_get(&a, "botdesk_session", v, sizeof v);
        for (const char *p = a.path + 1; *p;) {
                size_t l = strcspn(p, "/");

                if (http_segment_decode(p, l, seg, sizeof seg) == 0 &&
                    (strchr(seg, '/') || seg[0] == '.' || seg[0] == 0))
                        abort();
                p += l;
                if (*p)
                        p++;
        }
        return 0;
}
