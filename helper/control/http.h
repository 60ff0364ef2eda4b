/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * The HTTP/1.1 request reader of `botdesk web`: just what a browser and a
 * reverse proxy send to open a page, fetch static files, POST a button and
 * upgrade to a WebSocket. One request per connection (every response says
 * "Connection: close"), no request bodies beyond an empty one.
 *
 * Fed chunks of any size, it collects the head (request line and header
 * fields, up to HTTP_HEAD_MAX bytes) and parses it once the blank line
 * arrives. Refused (-EBADMSG, answer 400 and close): a request line that is
 * not "METHOD SP origin-form SP HTTP/1.x", a method or header name that is
 * not a token, a header line without ':' or folded onto the previous one,
 * control characters in values, bare CR, a NUL anywhere, more than
 * HTTP_HEADERS_MAX fields, a second Host or Content-Length, a
 * Transfer-Encoding, a non-zero Content-Length (unless body_max allows
 * it), an HTTP/1.1 request without Host. Too long (-E2BIG, answer 431): a
 * head over HTTP_HEAD_MAX. A body longer than body_max: -EFBIG (answer 413).
 *
 * A reader that takes bodies (botdesk mcp --listen's POST) sets body_max
 * after http_request_init(); the body itself, content_length bytes after
 * the head, is the caller's to read. A Content-Length that is not digits
 * alone is malformed.
 */

#define HTTP_HEAD_MAX 8192
#define HTTP_HEADERS_MAX 48

struct http_header {
        const char *name;       /* as sent; compare with strcasecmp */
        const char *value;      /* surrounding whitespace removed */
};

struct http_request {
        /* Parsed: point into buf, valid while the request lives. */
        const char *method;
        const char *target;     /* as sent: path and query */
        const char *path;       /* target up to '?' (not percent-decoded) */
        const char *query;      /* after '?', or NULL */
        unsigned minor;         /* HTTP/1.minor */
        struct http_header headers[HTTP_HEADERS_MAX];
        size_t n_headers;
        size_t content_length;  /* 0 without a Content-Length */

        /* Set by the caller: the longest body taken (0, the default: none). */
        size_t body_max;

        /* Reader state: private. */
        char buf[2 * HTTP_HEAD_MAX + 2];    /* the head, its NUL, the path's copy */
        size_t size;
        unsigned crlf;          /* how much of "\r\n\r\n" the last bytes matched */
        bool done;
};

void http_request_init(struct http_request *r);

/*
 * Feed n bytes; *consumed says how many belong to the head (bytes after it,
 * which a client may only send after a WebSocket upgrade, are not taken).
 * Returns 1 once the request is complete and parsed, 0 when more is needed,
 * -EBADMSG when malformed, -E2BIG when the head is too long.
 */
int http_request_feed(struct http_request *r, const void *data, size_t n, size_t *consumed);

/* The value of the first field named name (case-insensitive), or NULL. */
const char *http_header(const struct http_request *r, const char *name);

/* Whether the comma-separated value of field name holds token (case-insensitive). */
bool http_header_has_token(const struct http_request *r, const char *name, const char *token);

/*
 * The value of key in a query string ("a=1&b=2"), copied to ret (size
 * bytes, NUL-terminated) without decoding: 1 found, 0 absent, -ENOBUFS too long.
 */
int http_query_get(const char *query, const char *key, char *ret, size_t size);

/*
 * The value of cookie name in the Cookie fields, copied as for
 * http_query_get(): 1 found, 0 absent, -ENOBUFS too long.
 */
int http_cookie_get(const struct http_request *r, const char *name, char *ret, size_t size);

/*
 * Percent-decode a path segment of n bytes into ret (size bytes). -EINVAL
 * for a malformed escape, a decoded NUL or '/', or a segment that would
 * name a parent or hidden entry ("." or ".." or a leading '.').
 */
int http_segment_decode(const char *s, size_t n, char *ret, size_t size);

const char *http_status_text(unsigned status);
