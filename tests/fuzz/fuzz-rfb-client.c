/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's RFB handshake (control/rfb-client.h) fed what a hostile
 * server sends, in pieces: the first byte sizes the pieces, the second says
 * whether the client has a password. Whatever comes, the client takes no
 * more than it was given, says at most what fits its buffer, ends ready
 * with a ServerInit within the limits or failed with an error and words of
 * its own, and leaks nothing.
 */
#undef NDEBUG
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rfb-client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct rfb_client c;
        size_t piece, off = 2;
        uint8_t out[64];

        if (size < 2)
                return 0;
        piece = (size_t) data[0] % 32 + 1;
        if (rfb_client_init(&c, data[1] & 1 ? "botdesk" : NULL) < 0)
                return 0;
        while (off < size) {
                size_t n = size - off < piece ? size - off : piece;
                ssize_t r = rfb_client_feed(&c, data + off, n);

                while (rfb_client_take_out(&c, out, sizeof out) > 0)
                        ;
                if (r < 0) {
                        if (c.state != RFB_CLIENT_FAILED || !c.problem || r != c.failure)
                                abort();
                        break;
                }
                if ((size_t) r > n)
                        abort();
                off += (size_t) r;
                if ((size_t) r < n) {
                        /* Only a finished handshake leaves bytes: they are the session's. */
                        if (c.state != RFB_CLIENT_READY)
                                abort();
                        break;
                }
                if (c.state == RFB_CLIENT_READY)
                        break;
        }
        if (c.state == RFB_CLIENT_READY &&
            (!c.name || strlen(c.name) > RFB_CLIENT_NAME_MAX || c.width == 0 || c.height == 0 ||
             (uint32_t) c.width * c.height > RFB_CLIENT_PIXELS_MAX || (c.minor != 3 && c.minor != 7 && c.minor != 8)))
                abort();
        rfb_client_done(&c);
        return 0;
}
