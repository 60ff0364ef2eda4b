/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's RFB handshake (control/rfb-client.h) and the session's
 * reader (rfb-client-update.h) fed what a hostile server sends, in pieces:
 * the first byte sizes the pieces, the second says whether the client has
 * a password (bit 0), can run VeNCrypt's TLS (bit 1) and has a CA (bit 2).
 * Where the client stops for TLS the fuzzer plays it: what follows is what
 * TLS would decrypt (the corpus's vencrypt-x509vnc reaches past it).
 * Whatever comes, the client takes no more than it was given,
 * ends ready with a ServerInit within the limits or failed with an error
 * and words of its own; what follows a handshake is painted into a
 * framebuffer of ServerInit's size (ASan sees any write past it) or
 * refused; nothing leaks. ZRLE rectangles (one zlib stream across them)
 * are reached from the corpus's zrle-33, a valid handshake and two updates
 * of every subencoding.
 */
#undef NDEBUG
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rfb-client.h"
#include "rfb-client-update.h"

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
        if (data[1] & 2)
                rfb_client_use_tls(&c, true, data[1] & 4);
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
                if (c.state == RFB_CLIENT_START_TLS) {
                        /* Only a caller that can run TLS is asked to, and a CA means X509, nothing else. */
                        if (!(data[1] & 2) || ((data[1] & 4) && !c.tls_x509))
                                abort();
                        rfb_client_tls_started(&c);
                        continue;
                }
                if ((size_t) r < n && c.state != RFB_CLIENT_READY)
                        /* Only a finished handshake leaves bytes: they are the session's. */
                        abort();
                if (c.state == RFB_CLIENT_READY)
                        break;
        }
        /* The session's messages, into a framebuffer small enough for a fuzzer's pace. */
        if (c.state == RFB_CLIENT_READY && (size_t) c.width * c.height <= 65536 && off < size) {
                struct rfb_framebuffer fb;
                struct rfb_update_reader rd;

                if (rfb_framebuffer_init(&fb, c.width, c.height) == 0) {
                        rfb_update_reader_init(&rd);
                        for (ssize_t r = 0; off < size && r >= 0; off += piece) {
                                size_t n = size - off < piece ? size - off : piece;

                                r = rfb_update_feed(&rd, &fb, data + off, n);
                                if (r >= 0 && (size_t) r != n)
                                        abort();
                                /* -ENOMEM only where the zlib stream could not be made. */
                                if (r < 0 && r != -EPROTO && r != -ENOMEM)
                                        abort();
                        }
                        rfb_update_reader_done(&rd);
                        rfb_framebuffer_done(&fb);
                }
        }
        if (c.state == RFB_CLIENT_READY &&
            (!c.name || strlen(c.name) > RFB_CLIENT_NAME_MAX || c.width == 0 || c.height == 0 ||
             (uint32_t) c.width * c.height > RFB_CLIENT_PIXELS_MAX || (c.minor != 3 && c.minor != 7 && c.minor != 8)))
                abort();
        rfb_client_done(&c);
        return 0;
}
