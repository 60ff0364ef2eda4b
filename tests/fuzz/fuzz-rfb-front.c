/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The viewer's side of a remote profile's handshake (control/rfb-front.h)
 * fed what a viewer sends, in pieces the first byte sizes (the corpus is
 * rfb-filter's: viewers' streams). Whatever comes, the front takes no more
 * than it was given and nothing past ClientInit; it ends ready, having
 * said the version, a security answer and the ServerInit it was given, or
 * failed with words of its own, or still waits; nothing leaks.
 */
#undef NDEBUG
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rfb-front.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const uint8_t pf[16] = { 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0 };
        struct rfb_front f;
        size_t piece, off = 1, said = 0;
        const uint8_t *out;

        if (size < 1)
                return 0;
        piece = (size_t) data[0] % 16 + 1;
        if (rfb_front_init(&f, 800, 600, pf, "fuzz") < 0)
                return 0;
        while (off < size) {
                size_t n = size - off < piece ? size - off : piece, k;
                ssize_t used = rfb_front_feed(&f, data + off, n);

                if (used < 0) {
                        assert(used == -EPROTO && f.state == RFB_FRONT_FAILED && f.problem);
                        break;
                }
                assert((size_t) used <= n);
                k = rfb_front_pending(&f, &out);
                if (said == 0)
                        assert(k >= 12 && memcmp(out, "RFB 003.008\n", 12) == 0);
                said += k;
                rfb_front_sent(&f, k);
                if (f.state == RFB_FRONT_READY) {
                        /* The greeting, a security answer (2-8 bytes) and ServerInit with its 4-byte name. */
                        assert(said >= 12 + 2 + 28 && said <= 12 + 8 + 28);
                        break;
                }
                assert((size_t) used == n);
                off += n;
        }
        rfb_front_done(&f);
        return 0;
}
