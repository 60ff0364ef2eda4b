/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * VNC authentication (RFC 6143 7.2.2): the 16-byte challenge encrypted
 * with DES under the password. The key is what the first VNC servers made
 * of it: at most 8 characters, each one byte (Latin-1), zero-padded, and
 * each byte's bits in reverse order (their DES code took the low bit
 * first). Weak as it is, it is what a server of this kind speaks; botdesk
 * recommends a transport that carries it inside something stronger.
 */
#include <errno.h>
#include <nettle/des.h>
#include <string.h>

#include "rfb-client.h"

static uint8_t reverse_bits(uint8_t b) {
        b = (uint8_t) ((b & 0xf0u) >> 4 | (b & 0x0fu) << 4);
        b = (uint8_t) ((b & 0xccu) >> 2 | (b & 0x33u) << 2);
        return (uint8_t) ((b & 0xaau) >> 1 | (b & 0x55u) << 1);
}

int rfb_vnc_auth_key(const char *password, uint8_t ret[static 8]) {
        const unsigned char *p = (const unsigned char *) password;
        uint8_t key[8] = {};

        for (size_t i = 0; i < 8 && *p; i++) {
                unsigned cp;

                /* UTF-8 in, one Latin-1 byte out: U+0000-U+00FF only. */
                if (*p < 0x80)
                        cp = *p++;
                else if ((*p & 0xe0u) == 0xc0u && (p[1] & 0xc0u) == 0x80u) {
                        cp = (unsigned) (*p & 0x1fu) << 6 | (p[1] & 0x3fu);
                        p += 2;
                        if (cp < 0x80 || cp > 0xff)
                                return -EINVAL;
                } else
                        return -EINVAL;
                key[i] = reverse_bits((uint8_t) cp);
        }
        memcpy(ret, key, sizeof key);
        return 0;
}

void rfb_vnc_auth_response(const uint8_t key[static 8], const uint8_t challenge[static 16], uint8_t ret[static 16]) {
        struct des_ctx ctx;

        /* The parity bits are ignored; a weak key (a password of one
         * repeated character, say) is still the key the server uses. */
        (void) des_set_key(&ctx, key);
        des_encrypt(&ctx, 16, ret, challenge);
}
