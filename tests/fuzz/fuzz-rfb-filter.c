/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RFB filter parses whatever a viewer sends. Whatever the bytes and
 * however they are cut into chunks:
 *  - without allow_input, no input message ever reaches the server: an
 *    independent walker of the output (no code shared with the filter)
 *    finds none, and with flips it counts exactly what the filter says it
 *    let through;
 *  - the output is always a valid client stream: a second filter, trusted
 *    (input allowed), accepts all of it and forwards it unchanged (the rewrites are idempotent), with
 *    exactly the input messages the first one let through;
 *  - the framing does not depend on the chunking: fed whole, the same bytes
 *    give the same output and the same verdict.
 *
 * Input: byte 0 flags (bit 0: allow_input at the start, bit 1: chunk headers
 * with bit 7 set flip allow_input), bytes 1-2 max_cut_text (big endian),
 * then chunks: one header byte (size = (h & 0x7f) + 1) and that many bytes.
 */
#undef NDEBUG
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rfb-filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/*
 * An oracle that shares no code with the filter: walks a forwarded stream
 * (which may end inside a payload, never inside a head) and counts its input
 * messages by type. Aborts on anything a server would not accept.
 */
static uint64_t count_input(const uint8_t *p, size_t n) {
        uint64_t inputs = 0;
        size_t i = 12, head;

        if (n < 12)
                return 0;
        if (memcmp(p, "RFB 003.00", 10) != 0 || p[11] != '\n')
                abort();
        if (p[10] != '3') {
                if (i >= n)
                        return 0;
                if (p[i] == 2)
                        i += 16;
                else if (p[i] != 1)
                        abort();
                i++;
        }
        if (i >= n)
                return 0;
        if (p[i++] != 1)
                abort(); /* the shared flag is always forced on */

        while (i < n) {
                uint64_t body = 0;
                uint8_t type = p[i];

                switch (type) {
                case 0: head = 20; break;
                case 2: head = 4; break;
                case 3: case 150: head = 10; break;
                case 4: case 6: case 251: head = 8; break;
                case 5: head = 6; break;
                case 248: head = 9; break;
                case 255:
                        if (i + 2 > n)
                                abort();
                        if (p[i + 1] == 0)
                                head = 12;
                        else if (p[i + 1] == 1 && i + 4 <= n && p[i + 2] == 0 && p[i + 3] <= 2)
                                head = p[i + 3] == 2 ? 10 : 4;
                        else
                                abort();
                        break;
                default:
                        abort();
                }
                if (i + head > n)
                        abort(); /* a head cut short: the filter forwards heads whole */
                if (type == 2)
                        body = 4 * (uint64_t) (p[i + 2] << 8 | p[i + 3]);
                else if (type == 6) {
                        uint32_t len = be32(p + i + 4);
                        body = len & 0x80000000u ? 0x100000000ull - len : len;
                } else if (type == 248)
                        body = p[i + 8];
                else if (type == 251)
                        body = 16 * (uint64_t) p[i + 6];
                if (type == 4 || type == 5 || type == 6 || type == 251 || type == 255)
                        inputs++;
                i += head;
                if (type == 2)
                        for (size_t k = 0; k < body && i + k + 4 <= n; k += 4)
                                if (be32(p + i + k) == (uint32_t) RFB_ENCODING_EXTENDED_MOUSE_BUTTONS)
                                        abort(); /* would change PointerEvent framing */
                if (body > n - i)
                        break;
                i += body;
        }
        return inputs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct rfb_filter a, b, c;
        uint8_t *stream, *out_a, *out_b, *out_c;
        size_t n_stream = 0, n_a = 0, got, got_b, got_c, i;
        bool flips, allow;
        uint32_t max_cut;
        int ra = 0, rb, rc;

        if (size < 3)
                return 0;
        allow = data[0] & 1;
        flips = data[0] & 2;
        max_cut = (uint32_t) data[1] << 8 | data[2];

        stream = malloc(size);
        out_a = malloc(RFB_FILTER_OUT_SIZE(size));
        out_b = malloc(RFB_FILTER_OUT_SIZE(RFB_FILTER_OUT_SIZE(size)));
        out_c = malloc(RFB_FILTER_OUT_SIZE(size));
        if (!stream || !out_a || !out_b || !out_c)
                abort();

        rfb_filter_init(&a, max_cut);
        a.allow_input = allow;
        for (i = 3; i < size;) {
                uint8_t h = data[i++];
                size_t k = (size_t) (h & 0x7f) + 1;

                if (k > size - i)
                        k = size - i;
                if (flips && (h & 0x80))
                        a.allow_input = !a.allow_input;
                memcpy(stream + n_stream, data + i, k);
                n_stream += k;
                if (ra == 0) {
                        uint8_t tmp[RFB_FILTER_OUT_SIZE(128)];
                        ra = rfb_filter_feed(&a, data + i, k, tmp, sizeof tmp, &got);
                        if (ra != 0 && ra != -EBADMSG)
                                abort();
                        if ((ra < 0) != (rfb_filter_error(&a) != NULL))
                                abort();
                        memcpy(out_a + n_a, tmp, got);
                        n_a += got;
                }
                i += k;
        }
        if (n_a > n_stream)
                abort();

        /* The trusted re-parse. */
        rfb_filter_init(&b, max_cut);
        b.allow_input = true;
        rb = rfb_filter_feed(&b, out_a, n_a, out_b, RFB_FILTER_OUT_SIZE(n_a), &got_b);
        if (rb != 0)
                abort(); /* the filter forwarded something that is not a valid stream */
        if (got_b != n_a || memcmp(out_a, out_b, n_a) != 0)
                abort();
        if (b.input_forwarded != a.input_forwarded || b.input_dropped != 0)
                abort();
        if (count_input(out_a, n_a) != a.input_forwarded)
                abort();
        if (!flips && !allow && count_input(out_a, n_a) != 0)
                abort(); /* an input message got through with input refused */

        /* Chunking does not matter. */
        if (!flips) {
                rfb_filter_init(&c, max_cut);
                c.allow_input = allow;
                rc = rfb_filter_feed(&c, stream, n_stream, out_c, RFB_FILTER_OUT_SIZE(n_stream), &got_c);
                if (rc != ra || got_c != n_a || memcmp(out_c, out_a, n_a) != 0)
                        abort();
                if (c.input_forwarded != a.input_forwarded || c.input_dropped != a.input_dropped ||
                    c.messages != a.messages)
                        abort();
        }

        free(stream);
        free(out_a);
        free(out_b);
        free(out_c);
        return 0;
}
