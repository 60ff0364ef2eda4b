/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HTTP request reader of botdesk web: what a browser and a proxy send
 * is read the same way whole, byte by byte and in random chunks; what is
 * malformed is refused (400), what is too long too (431); the query,
 * cookie, token and path-segment helpers.
 */
#include <errno.h>
#include <stdlib.h>

#include "http.h"
#include "tap.h"

#define ELEMENTSOF_(x) (sizeof(x) / sizeof((x)[0]))

static struct http_request req;

/* Feed text in the given chunking; returns the final result, *ret_used the head's length. */
static int feed(const char *text, int mode, unsigned seed, size_t *ret_used) {
        size_t n = strlen(text), at = 0, used;
        int r = 0;

        srand(seed);
        http_request_init(&req);
        while (at < n) {
                size_t chunk = mode == 0 ? n - at : mode == 1 ? 1 : 1 + (size_t) rand() % 9;

                if (chunk > n - at)
                        chunk = n - at;
                r = http_request_feed(&req, text + at, chunk, &used);
                at += used;
                if (r != 0)
                        break;
        }
        if (ret_used)
                *ret_used = at;
        return r;
}

static const char upgrade[] =
        "GET /work/websockify?ticket=abc&x=1 HTTP/1.1\r\n"
        "Host: 127.0.0.1:6080\r\n"
        "Connection: keep-alive, Upgrade\r\n"
        "Upgrade: websocket\r\n"
        "Sec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Cookie: a=1; botdesk_session=s3cr3t; b=2\r\n"
        "User-Agent:   spaced value \t\r\n"
        "\r\n"
        "\x82\x80";     /* a frame sent early: not part of the head */

static void test_valid(void) {
        const char *modes[] = { "whole", "byte by byte", "random chunks" };
        char v[64];

        for (int mode = 0; mode < 3; mode++) {
                size_t used;
                int r = feed(upgrade, mode, 11, &used);

                TAP_EQ_INT(r, 1, "%s: a WebSocket upgrade request is complete", modes[mode]);
                TAP_EQ_INT(used, strlen(upgrade) - 2, "%s: the bytes after the blank line are not taken", modes[mode]);
                TAP_EQ_STR(req.method, "GET", "%s: method", modes[mode]);
                TAP_EQ_STR(req.path, "/work/websockify", "%s: path without the query", modes[mode]);
                TAP_EQ_STR(req.query, "ticket=abc&x=1", "%s: query", modes[mode]);
                TAP_EQ_INT(req.minor, 1, "%s: HTTP/1.1", modes[mode]);
        }
        TAP_EQ_STR(http_header(&req, "host"), "127.0.0.1:6080", "header names compare without case");
        TAP_EQ_STR(http_header(&req, "User-Agent"), "spaced value", "values lose surrounding whitespace");
        tap_ok(http_header_has_token(&req, "Connection", "upgrade"), "Connection lists the upgrade token (any case)");
        tap_ok(!http_header_has_token(&req, "Connection", "close"), "and not a token it does not list");
        TAP_EQ_INT(http_query_get(req.query, "ticket", v, sizeof v), 1, "the ticket is in the query");
        TAP_EQ_STR(v, "abc", "its value");
        TAP_EQ_INT(http_query_get(req.query, "tick", v, sizeof v), 0, "a prefix of a key is not the key");
        TAP_EQ_INT(http_query_get(req.query, "ticket", v, 3), -ENOBUFS, "a value too long for the buffer is refused");
        TAP_EQ_INT(http_cookie_get(&req, "botdesk_session", v, sizeof v), 1, "the session cookie is found among others");
        TAP_EQ_STR(v, "s3cr3t", "its value");
        TAP_EQ_INT(http_cookie_get(&req, "c", v, sizeof v), 0, "an absent cookie is absent");

        TAP_EQ_INT(feed("POST /w/take HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 1, 0, NULL), 1,
                   "a POST with an empty body is accepted");
        TAP_EQ_INT(feed("GET / HTTP/1.0\r\n\r\n", 0, 0, NULL), 1, "HTTP/1.0 needs no Host");
        TAP_EQ_INT(feed("GET / HTTP/1.1\r\nHost: x\r\n", 0, 0, NULL), 0, "a head without its blank line needs more");
}

static void test_malformed(void) {
        static const struct {
                const char *what, *text;
        } bad[] = {
                { "a request line without a version", "GET /\r\nHost: x\r\n\r\n" },
                { "an absolute URL (not origin-form)", "GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n" },
                { "HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n" },
                { "a method that is not a token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n" },
                { "two spaces in the request line", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n" },
                { "a space in the target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n" },
                { "HTTP/1.1 without Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n" },
                { "two Host fields", "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n" },
                { "a header without a colon", "GET / HTTP/1.1\r\nHost: x\r\nBroken\r\n\r\n" },
                { "whitespace before the colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n" },
                { "a folded header line", "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n" },
                { "a bare LF", "GET / HTTP/1.1\nHost: x\r\n\r\n" },
                { "a bare CR in a value", "GET / HTTP/1.1\r\nHost: x\ry\r\n\r\n" },
                { "a control character in a value", "GET / HTTP/1.1\r\nHost: x\x01\r\n\r\n" },
                { "Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" },
                { "a body", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n" },
                { "two Content-Length fields", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n" },
                { "an empty head", "\r\n\r\n" },
        };

        for (size_t i = 0; i < ELEMENTSOF_(bad); i++)
                for (int mode = 0; mode < 3; mode++) {
                        int r = feed(bad[i].text, mode, 5, NULL);
                        if (mode > 0 && r == -EBADMSG)
                                continue; /* one line per case when every chunking agrees */
                        TAP_EQ_INT(r, -EBADMSG, "400 for %s (%s)", bad[i].what, mode == 0 ? "whole" : "chunked");
                }

        /* A NUL inside the head. */
        {
                char nul[] = "GET / HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n";
                size_t used;
                http_request_init(&req);
                TAP_EQ_INT(http_request_feed(&req, nul, sizeof nul - 1, &used), -EBADMSG, "400 for a NUL byte in the head");
        }
        /* Too many fields, too long a head. */
        {
                static char big[3 * HTTP_HEAD_MAX];
                size_t o = (size_t) snprintf(big, sizeof big, "GET / HTTP/1.1\r\nHost: x\r\n");
                for (int i = 0; i < HTTP_HEADERS_MAX; i++)
                        o += (size_t) snprintf(big + o, sizeof big - o, "X-%d: y\r\n", i);
                snprintf(big + o, sizeof big - o, "\r\n");
                TAP_EQ_INT(feed(big, 0, 0, NULL), -EBADMSG, "400 for more than %d header fields", HTTP_HEADERS_MAX);

                o = (size_t) snprintf(big, sizeof big, "GET / HTTP/1.1\r\nHost: x\r\nX-Long: ");
                memset(big + o, 'a', HTTP_HEAD_MAX);
                big[o + HTTP_HEAD_MAX] = 0;
                TAP_EQ_INT(feed(big, 2, 1, NULL), -E2BIG, "431 for a head over %d bytes, in chunks", HTTP_HEAD_MAX);
                TAP_EQ_INT(feed(big, 0, 0, NULL), -E2BIG, "431 for a head over %d bytes, whole", HTTP_HEAD_MAX);
        }
}

static void test_segments(void) {
        char out[64];

        TAP_EQ_INT(http_segment_decode("rfb.js", 6, out, sizeof out), 0, "a plain segment decodes");
        TAP_EQ_STR(out, "rfb.js", "to itself");
        TAP_EQ_INT(http_segment_decode("a%20b", 5, out, sizeof out), 0, "a percent escape decodes");
        TAP_EQ_STR(out, "a b", "to its byte");
        TAP_EQ_INT(http_segment_decode("..", 2, out, sizeof out), -EINVAL, "\"..\" is refused");
        TAP_EQ_INT(http_segment_decode("%2e%2e", 6, out, sizeof out), -EINVAL, "\"..\" spelt in escapes is refused");
        TAP_EQ_INT(http_segment_decode(".", 1, out, sizeof out), -EINVAL, "\".\" is refused");
        TAP_EQ_INT(http_segment_decode(".hidden", 7, out, sizeof out), -EINVAL, "a hidden name is refused");
        TAP_EQ_INT(http_segment_decode("", 0, out, sizeof out), -EINVAL, "an empty segment (\"//\") is refused");
        TAP_EQ_INT(http_segment_decode("a%2fb", 5, out, sizeof out), -EINVAL, "an escaped '/' is refused");
        TAP_EQ_INT(http_segment_decode("a%00", 4, out, sizeof out), -EINVAL, "an escaped NUL is refused");
        TAP_EQ_INT(http_segment_decode("a%4", 3, out, sizeof out), -EINVAL, "a truncated escape is refused");
        TAP_EQ_INT(http_segment_decode("a%zz", 4, out, sizeof out), -EINVAL, "a non-hex escape is refused");
}

/* A reader that takes bodies (botdesk mcp --listen): the length, within the cap, else 413. */
static void test_bodies(void) {
        static const char post[] = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}";
        size_t used;

        http_request_init(&req);
        req.body_max = 1024;
        TAP_EQ_INT(http_request_feed(&req, post, sizeof post - 1, &used), 1, "with body_max, a POST with a body is read");
        TAP_EQ_INT(req.content_length, 17, "... its Content-Length given");
        TAP_EQ_INT(used, sizeof post - 1 - 17, "... and the body left to the caller, not taken as head");

        static const struct {
                const char *what, *text;
                int want;
        } cases[] = {
                { "a body over the cap", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1025\r\n\r\n", -EFBIG },
                { "a length of 30 digits", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 123456789012345678901234567890\r\n\r\n", -EFBIG },
                { "a signed length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\n", -EBADMSG },
                { "a length with junk", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5x\r\n\r\n", -EBADMSG },
                { "an empty length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", -EBADMSG },
                { "a chunked body", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", -EBADMSG },
        };
        for (size_t i = 0; i < ELEMENTSOF_(cases); i++) {
                http_request_init(&req);
                req.body_max = 1024;
                TAP_EQ_INT(http_request_feed(&req, cases[i].text, strlen(cases[i].text), &used), cases[i].want,
                           "with body_max 1024: %s is %s", cases[i].what, cases[i].want == -EFBIG ? "413" : "400");
        }
}

int main(void) {
        test_valid();
        test_bodies();
        test_malformed();
        test_segments();
        return tap_done();
}
