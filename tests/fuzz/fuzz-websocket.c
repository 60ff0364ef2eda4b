/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The WebSocket parser reads whatever a browser (or anyone who can reach
 * the listener) sends. Whatever the bytes and however they are cut:
 *  - the verdict, the events in order, the payload and the close code do
 *    not depend on the chunking (fed whole vs in the chunks the input names);
 *  - data never exceeds the input, control payloads never exceed 125 bytes,
 *    a close code handed out is one an endpoint may send (or 1005);
 *  - after an error the parser stays broken.
 *
 * Messages end where the parser says (the same in every chunking), and a
 * DATA event is empty only when it ends its message.
 *
 * Input: byte 0 sets the endpoint (bit 0: text, as DevTools', else binary,
 * as RFB's) and max_frame (the other bits times 128), then chunks: one
 * header byte (size = (h & 0x7f) + 1) and that many bytes.
 */
#undef NDEBUG
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "websocket.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct trace {
        uint8_t *data;
        size_t n_data;
        char events[4096];
        size_t n_events;
        uint16_t error, code;
};

static void note(struct trace *t, char c) {
        /* Runs of data collapse: chunking may split one frame's payload. */
        if (c == 'D' && t->n_events && t->events[t->n_events - 1] == 'D')
                return;
        if (t->n_events < sizeof t->events)
                t->events[t->n_events++] = c;
}

/* Feed buf[0..n) in pieces of the given sizes (NULL: whole). */
static void run(uint8_t *buf, size_t n, const size_t *pieces, size_t n_pieces, uint64_t max_frame, bool text,
                struct trace *t) {
        struct ws_parser p;
        size_t at = 0, k = 0;

        if (text)
                ws_parser_init_text(&p, max_frame);
        else
                ws_parser_init(&p, max_frame);
        while (at < n) {
                size_t end = pieces ? at + pieces[k++] : n;

                if (end > n)
                        end = n;
                while (at < end) {
                        struct ws_event ev;
                        size_t used;
                        int r = ws_parser_feed(&p, buf + at, end - at, &ev, &used);

                        if (used > end - at)
                                abort();
                        at += used;
                        if (r < 0) {
                                if (r != -EBADMSG)
                                        abort();
                                t->error = ws_parser_error(&p, NULL);
                                if (!t->error || ws_parser_feed(&p, buf, n, &ev, &used) != -EBADMSG)
                                        abort();
                                return;
                        }
                        switch (ev.type) {
                        case WS_EVENT_NONE:
                                if (used == 0)
                                        goto next;
                                break;
                        case WS_EVENT_DATA:
                                if ((ev.size == 0 && !ev.end) || ev.size > used)
                                        abort();
                                memcpy(t->data + t->n_data, ev.data, ev.size);
                                t->n_data += ev.size;
                                note(t, 'D');
                                if (ev.end)
                                        note(t, 'E');
                                break;
                        case WS_EVENT_PING:
                        case WS_EVENT_PONG:
                                if (ev.size > WS_CONTROL_MAX)
                                        abort();
                                note(t, ev.type == WS_EVENT_PING ? 'P' : 'O');
                                break;
                        case WS_EVENT_CLOSE:
                                if (ev.code != WS_CLOSE_NO_STATUS && !ws_close_code_valid(ev.code))
                                        abort();
                                if (!utf8_valid((const uint8_t *) ev.reason, strlen(ev.reason)))
                                        abort();
                                t->code = ev.code;
                                note(t, 'C');
                                break;
                        }
                }
        next:;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t *whole, *chunked;
        size_t *pieces, n_pieces = 0, n = 0;
        struct trace a = {}, b = {};
        uint64_t max_frame;
        bool text;

        if (size < 1)
                return 0;
        text = data[0] & 1;
        max_frame = (uint64_t) (data[0] >> 1) * 128;
        whole = malloc(size);
        chunked = malloc(size);
        pieces = malloc(size * sizeof *pieces);
        a.data = malloc(size);
        b.data = malloc(size);
        if (!whole || !chunked || !pieces || !a.data || !b.data)
                abort();
        for (size_t i = 1; i < size;) {
                size_t k = (size_t) (data[i++] & 0x7f) + 1;

                if (k > size - i)
                        k = size - i;
                memcpy(whole + n, data + i, k);
                n += k;
                if (k)
                        pieces[n_pieces++] = k;
                i += k;
        }
        memcpy(chunked, whole, n);

        run(whole, n, NULL, 0, max_frame, text, &a);
        run(chunked, n, pieces, n_pieces, max_frame, text, &b);
        if (a.error != b.error || a.code != b.code || a.n_data != b.n_data || memcmp(a.data, b.data, a.n_data) != 0 ||
            a.n_events != b.n_events || memcmp(a.events, b.events, a.n_events) != 0)
                abort();
        if (a.n_data > n)
                abort();

        free(whole);
        free(chunked);
        free(pieces);
        free(a.data);
        free(b.data);
        return 0;
}
