/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-browser relays whatever a DevTools client sends. Feed arbitrary
 * bytes as an attached client's, in chunks the first byte chooses, then
 * echo what reached the browser back as the browser's answers. Each whole
 * message is either answered at once by the relay with an error, or it
 * reaches the browser with one of the relay's ids and a sessionId, and
 * the client then gets back exactly the message it sent, ids and all, in
 * order. That holds only if the id rewriting and the sessionId insertion
 * find the same spans both ways and are undone exactly, and if framing
 * never splits, merges or alters a message.
 */
#undef NDEBUG
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdp-relay.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int feed(struct cdp_relay *r, int slot, const char *d, size_t n, size_t chunk) {
        for (size_t i = 0; i < n; i += chunk) {
                size_t len = n - i < chunk ? n - i : chunk;
                int k = slot < 0 ? cdp_relay_from_browser(r, d + i, len)
                                 : cdp_relay_from_client(r, (unsigned) slot, d + i, len);
                if (k < 0)
                        return k;
        }
        return 0;
}

/* The buffer's contents, taken out (a NUL after the last message's). */
static char *take(struct cdp_buf *b, size_t *ret_size) {
        size_t n = cdp_buf_len(b);
        char *s = malloc(n + 1);

        if (!s)
                abort();
        if (n)
                memcpy(s, b->data + b->start, n);
        s[n] = 0;
        cdp_buf_consume(b, n);
        *ret_size = n;
        return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char attached[] = "{\"id\":1,\"result\":{\"sessionId\":\"FUZZ\"}}";
        struct cdp_relay r;
        const char *text = (const char *) data + 1, *last;
        size_t n, whole, chunk, sent, refused_size, back_size, at = 0;
        char *echo, *refused, *back;
        unsigned n_refused = 0;
        int slot;

        if (size < 1)
                return 0;
        chunk = (size_t) (data[0] & 0x0f) + 1;
        n = size - 1;
        /* The client's complete messages: everything up to its last NUL. */
        last = n ? memrchr(text, 0, n) : NULL;
        whole = last ? (size_t) (last - text) + 1 : 0;

        cdp_relay_init(&r);
        slot = cdp_relay_client_open(&r);
        if (slot < 0)
                abort();
        cdp_buf_consume(&r.to_browser, cdp_buf_len(&r.to_browser));
        if (feed(&r, -1, attached, sizeof attached, sizeof attached) < 0 || !r.clients[slot].attached)
                abort();
        if (memmem(text, n, "botdesk.attachRoot", strlen("botdesk.attachRoot"))) {
                /* A page made the client's root: the relay attaches it and holds the rest, so nothing below
                 * holds (test-cdp-relay.c's test_root says what does). Here: no crash, no leak, whatever
                 * the browser answers (the relay's own messages echoed back). */
                size_t echo_size;

                (void) feed(&r, slot, text, n, chunk);
                echo = take(&r.to_browser, &echo_size);
                (void) feed(&r, -1, echo, echo_size, chunk);
                free(echo);
                cdp_relay_done(&r);
                return 0;
        }
        if (feed(&r, slot, text, n, chunk) < 0)
                abort();
        if (cdp_buf_len(&r.clients[slot].from_client) != n - whole)
                abort(); /* a partial message waits, nothing else */

        /* What the relay answered itself: errors only. */
        refused = take(&r.clients[slot].to_client, &refused_size);
        for (size_t i = 0, start = 0; i < refused_size; i++)
                if (refused[i] == 0) {
                        size_t s, e;
                        if (cdp_message_member(refused + start, i - start, "error", &s, &e) != 1)
                                abort();
                        n_refused++;
                        start = i + 1;
                }
        free(refused);

        echo = take(&r.to_browser, &sent);
        for (size_t i = 0, start = 0; i < sent; i++)
                if (echo[i] == 0) {
                        size_t s, e;
                        /* Every id the browser sees is the relay's: 1..INT32_MAX; every message has a sessionId. */
                        if (cdp_message_id(echo + start, i - start, &s, &e) != 1 || echo[start + s] == '-' ||
                            e - s > 10 || cdp_message_scan(echo + start, i - start, "sessionId", NULL, NULL) != 1)
                                abort();
                        start = i + 1;
                }
        if (feed(&r, -1, echo, sent, chunk) < 0)
                abort();
        free(echo);

        /* The answers are the client's messages that were not refused, unchanged, in order. */
        back = take(&r.clients[slot].to_client, &back_size);
        for (size_t i = 0, start = 0; i < back_size; i++)
                if (back[i] == 0) {
                        size_t len = i - start;
                        for (;;) {
                                const char *nul;
                                if (at >= whole)
                                        abort();
                                nul = memchr(text + at, 0, whole - at);
                                if ((size_t) (nul - (text + at)) == len && memcmp(text + at, back + start, len) == 0)
                                        break;
                                if (n_refused == 0)
                                        abort();
                                n_refused--;
                                at = (size_t) (nul - text) + 1;
                        }
                        at += len + 1;
                        start = i + 1;
                }
        free(back);
        if (at < whole) {
                /* The rest was refused, all of it. */
                for (size_t i = at; i < whole; i++)
                        if (text[i] == 0 && n_refused-- == 0)
                                abort();
        }
        if (n_refused != 0)
                abort();
        if (r.n_pending != 0 || r.dropped_answers != 0)
                abort();
        cdp_relay_done(&r);
        return 0;
}
