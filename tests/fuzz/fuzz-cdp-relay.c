/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-browser relays whatever a DevTools client sends. Feed arbitrary
 * bytes as the client's, in chunks the first byte chooses, then echo what
 * reached the browser back as the browser's answers: the client must get
 * back exactly the messages it sent, ids and all. That holds only if the id
 * rewriting finds the same span both ways and restores every id, and if
 * framing never splits, merges or alters a message.
 */
#undef NDEBUG
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdp-relay.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int feed(struct cdp_relay *r, bool browser, const char *d, size_t n, size_t chunk) {
        for (size_t i = 0; i < n; i += chunk) {
                size_t len = n - i < chunk ? n - i : chunk;
                int k = browser ? cdp_relay_from_browser(r, d + i, len) : cdp_relay_from_client(r, d + i, len);
                if (k < 0)
                        return k;
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct cdp_relay r;
        const char *text = (const char *) data + 1, *last;
        size_t n, whole, chunk, sent;
        char *echo;

        if (size < 1)
                return 0;
        chunk = (size_t) (data[0] & 0x0f) + 1;
        n = size - 1;
        /* The client's complete messages: everything up to its last NUL. */
        last = n ? memrchr(text, 0, n) : NULL;
        whole = last ? (size_t) (last - text) + 1 : 0;

        cdp_relay_init(&r);
        cdp_relay_client_open(&r);
        if (feed(&r, false, text, n, chunk) < 0)
                abort();
        if (cdp_buf_len(&r.from_client) != n - whole)
                abort(); /* a partial message waits, nothing else */

        sent = cdp_buf_len(&r.to_browser);
        echo = malloc(sent ? sent : 1);
        if (!echo)
                abort();
        memcpy(echo, r.to_browser.data + r.to_browser.start, sent);
        cdp_buf_consume(&r.to_browser, sent);
        for (size_t i = 0, start = 0; i < sent; i++)
                if (echo[i] == 0) {
                        size_t s, e;
                        /* Every id the browser sees is the relay's: 1..INT32_MAX. */
                        if (cdp_message_id(echo + start, i - start, &s, &e) == 1) {
                                if (echo[start + s] == '-' || e - s > 10)
                                        abort();
                        }
                        start = i + 1;
                }
        if (feed(&r, true, echo, sent, chunk) < 0)
                abort();
        free(echo);

        if (cdp_buf_len(&r.to_client) != whole ||
            memcmp(r.to_client.data + r.to_client.start, text, whole) != 0)
                abort();
        if (r.n_pending != 0 || r.dropped_answers != 0)
                abort();
        cdp_relay_done(&r);
        return 0;
}
