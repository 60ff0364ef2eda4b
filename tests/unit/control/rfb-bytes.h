/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A server's side of an RFB exchange, built for the client's tests
 * (test-rfb-client.c, test-rfb-client-update.c): bytes appended, integers
 * in network order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct bytes {
        uint8_t d[80000];
        size_t n;
};

static inline void add(struct bytes *b, const void *p, size_t n) {
        if (b->n + n > sizeof b->d)
                abort();
        memcpy(b->d + b->n, p, n);
        b->n += n;
}

static inline void add16(struct bytes *b, uint16_t v) {
        add(b, (uint8_t[]) { (uint8_t) (v >> 8), (uint8_t) v }, 2);
}

static inline void add32(struct bytes *b, uint32_t v) {
        add(b, (uint8_t[]) { (uint8_t) (v >> 24), (uint8_t) (v >> 16), (uint8_t) (v >> 8), (uint8_t) v }, 4);
}
