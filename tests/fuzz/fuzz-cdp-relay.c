/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-browser relays whatever its DevTools clients send. Feed arbitrary
 * bytes as two attached clients', their whole messages dealt out in turn
 * (the second byte chooses how), in chunks the first byte chooses; then
 * echo what reached the browser back as the browser's answers. Each whole
 * message is either answered at once by the relay with an error, or it
 * reaches the browser with one of the relay's ids and its client's
 * sessionId, and that client then gets back exactly the message it sent,
 * ids and all, in order, and the other client nothing of it. That holds
 * only if the id rewriting and the sessionId insertion find the same spans
 * both ways and are undone exactly, if answers are routed to the client
 * that asked even when both used the same ids, and if framing never
 * splits, merges or alters a message.
 */
#undef NDEBUG
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdp-relay.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CLIENTS 2

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
static char *take(struct buffer *b, size_t *ret_size) {
        size_t n = buffer_len(b);
        char *s = malloc(n + 1);

        if (!s)
                abort();
        if (n)
                memcpy(s, buffer_data(b), n);
        s[n] = 0;
        buffer_consume(b, n);
        *ret_size = n;
        return s;
}

/* What the relay answered a client itself: errors only. Their number. */
static unsigned refusals(struct cdp_relay *r, int slot) {
        size_t size;
        char *refused = take(&r->clients[slot].to_client, &size);
        unsigned n = 0;

        for (size_t i = 0, start = 0; i < size; i++)
                if (refused[i] == 0) {
                        size_t s, e;
                        if (cdp_message_member(refused + start, i - start, "error", &s, &e) != 1)
                                abort();
                        n++;
                        start = i + 1;
                }
        free(refused);
        return n;
}

/* The answers a client got back are its whole messages (text[0..whole)) that were not refused, unchanged, in
 * order; the others are exactly n_refused. */
static void check_answers(struct cdp_relay *r, int slot, const char *text, size_t whole, unsigned n_refused) {
        size_t back_size, at = 0;
        char *back = take(&r->clients[slot].to_client, &back_size);

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
        /* The rest was refused, all of it. */
        for (size_t i = at; i < whole; i++)
                if (text[i] == 0 && n_refused-- == 0)
                        abort();
        if (n_refused != 0)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char *const attached[CLIENTS] = { "{\"id\":1,\"result\":{\"sessionId\":\"FUZZA\"}}",
                                                       "{\"id\":2,\"result\":{\"sessionId\":\"FUZZB\"}}" };
        struct cdp_relay r;
        const char *text = (const char *) data + 2, *last;
        char *own[CLIENTS] = {}, *echo;
        size_t own_size[CLIENTS] = {}, n, whole, chunk, sent;
        unsigned n_refused[CLIENTS];
        uint8_t deal;
        int slot[CLIENTS];

        if (size < 2)
                return 0;
        chunk = (size_t) (data[0] & 0x0f) + 1;
        deal = data[1];
        n = size - 2;
        /* The complete messages: everything up to the last NUL; the partial rest is the first client's. */
        last = n ? memrchr(text, 0, n) : NULL;
        whole = last ? (size_t) (last - text) + 1 : 0;

        cdp_relay_init(&r);
        for (int c = 0; c < CLIENTS; c++) {
                slot[c] = cdp_relay_client_open(&r);
                if (slot[c] != c)
                        abort();
        }
        buffer_consume(&r.to_browser, buffer_len(&r.to_browser));
        for (int c = 0; c < CLIENTS; c++)
                if (feed(&r, -1, attached[c], strlen(attached[c]) + 1, strlen(attached[c]) + 1) < 0 ||
                    !r.clients[c].attached)
                        abort();
        if (memmem(text, n, "botdesk.attachRoot", strlen("botdesk.attachRoot"))) {
                /* A page made a client's root: the relay attaches it and holds the rest, so nothing below
                 * holds (test-cdp-relay.c's test_root says what does). Here: no crash, no leak, whatever
                 * the browser answers (the relay's own messages echoed back). */
                (void) feed(&r, slot[0], text, n, chunk);
                echo = take(&r.to_browser, &sent);
                (void) feed(&r, -1, echo, sent, chunk);
                free(echo);
                cdp_relay_done(&r);
                return 0;
        }

        /* Deal the whole messages out, one bit of deal each (round and round), and feed each as it is dealt:
         * the relay sees the clients' messages interleaved. */
        for (size_t at = 0, k = 0; at < whole; k++) {
                const char *nul = memchr(text + at, 0, whole - at);
                size_t len = (size_t) (nul - (text + at)) + 1;
                int c = (deal >> (k % 8)) & 1;
                char *grown = realloc(own[c], own_size[c] + len);

                if (!grown)
                        abort();
                own[c] = grown;
                memcpy(own[c] + own_size[c], text + at, len);
                own_size[c] += len;
                if (feed(&r, slot[c], text + at, len, chunk) < 0)
                        abort();
                at += len;
        }
        if (feed(&r, slot[0], text + whole, n - whole, chunk) < 0)
                abort();
        for (int c = 0; c < CLIENTS; c++)
                if (buffer_len(&r.clients[c].from_client) != (c == 0 ? n - whole : 0))
                        abort(); /* a partial message waits, nothing else */

        for (int c = 0; c < CLIENTS; c++)
                n_refused[c] = refusals(&r, slot[c]);

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

        for (int c = 0; c < CLIENTS; c++) {
                check_answers(&r, slot[c], own[c] ? own[c] : "", own_size[c], n_refused[c]);
                free(own[c]);
        }
        if (r.n_pending != 0 || r.dropped_answers != 0)
                abort();
        cdp_relay_done(&r);
        return 0;
}
