/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The viewer's side of a remote profile's handshake (rfb-front.h): a few
 * fixed-size reads, each answered from what botdesk already knows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfb-client.h"
#include "rfb-front.h"
#include "util.h"

/* Before ServerInit: the version (12), a security list or type (4), a SecurityResult (4). */
#define GREETING_MAX 20u

static void put32(uint8_t *p, uint32_t v) {
        p[0] = (uint8_t) (v >> 24);
        p[1] = (uint8_t) (v >> 16);
        p[2] = (uint8_t) (v >> 8);
        p[3] = (uint8_t) v;
}

static void say(struct rfb_front *f, const void *data, size_t size) {
        /* Sized at init for everything the handshake says. */
        memcpy(f->out + f->out_len, data, size);
        f->out_len += size;
}

int rfb_front_init(struct rfb_front *f, uint16_t width, uint16_t height, const uint8_t pixel_format[static 16],
                   const char *name) {
        size_t name_len = strlen(name ?: "");

        *f = (struct rfb_front) { .state = RFB_FRONT_VERSION, .need = 12 };
        if (name_len > RFB_CLIENT_NAME_MAX)
                return -E2BIG;
        f->server_init_len = 24 + name_len;
        f->server_init = malloc(f->server_init_len);
        f->out = malloc(GREETING_MAX + f->server_init_len);
        if (!f->server_init || !f->out) {
                rfb_front_done(f);
                return -ENOMEM;
        }
        f->server_init[0] = (uint8_t) (width >> 8);
        f->server_init[1] = (uint8_t) width;
        f->server_init[2] = (uint8_t) (height >> 8);
        f->server_init[3] = (uint8_t) height;
        memcpy(f->server_init + 4, pixel_format, 16);
        put32(f->server_init + 20, (uint32_t) name_len);
        memcpy(f->server_init + 24, name ?: "", name_len);
        /* The server speaks first. */
        say(f, "RFB 003.008\n", 12);
        return 0;
}

void rfb_front_done(struct rfb_front *f) {
        free(f->server_init);
        free(f->out);
        *f = (struct rfb_front) {};
}

static int fail(struct rfb_front *f, const char *problem) {
        f->state = RFB_FRONT_FAILED;
        f->problem = problem;
        return -EPROTO;
}

static void expect(struct rfb_front *f, enum rfb_front_state state, size_t need) {
        f->state = state;
        f->need = need;
        f->have = 0;
}

/* The versions rfb-filter.h lets through to a local desktop: the same three here. */
static int on_version(struct rfb_front *f) {
        uint8_t security[4];

        if (memcmp(f->head, "RFB 003.003\n", 12) == 0)
                f->minor = 3;
        else if (memcmp(f->head, "RFB 003.007\n", 12) == 0)
                f->minor = 7;
        else if (memcmp(f->head, "RFB 003.008\n", 12) == 0)
                f->minor = 8;
        else
                return fail(f, "the viewer asked for an RFB version other than 3.3, 3.7 or 3.8");
        if (f->minor == 3) {
                /* 3.3: the server names the type, and None has no result. */
                put32(security, RFB_SECURITY_NONE);
                say(f, security, 4);
                expect(f, RFB_FRONT_CLIENT_INIT, 1);
                return 0;
        }
        say(f, (const uint8_t[]) { 1, RFB_SECURITY_NONE }, 2);
        expect(f, RFB_FRONT_SECURITY, 1);
        return 0;
}

static int on_security(struct rfb_front *f) {
        uint8_t ok[4] = {};

        if (f->head[0] != RFB_SECURITY_NONE)
                return fail(f, "the viewer chose a security type that was not offered");
        /* 3.8 answers None with a SecurityResult too. */
        if (f->minor == 8)
                say(f, ok, sizeof ok);
        expect(f, RFB_FRONT_CLIENT_INIT, 1);
        return 0;
}

static int on_client_init(struct rfb_front *f) {
        /* Shared or not, botdesk's own connection to the server is shared. */
        say(f, f->server_init, f->server_init_len);
        f->state = RFB_FRONT_READY;
        return 0;
}

ssize_t rfb_front_feed(struct rfb_front *f, const void *data, size_t size) {
        const uint8_t *p = data;
        size_t used = 0;
        int r = 0;

        while (f->state != RFB_FRONT_READY && f->state != RFB_FRONT_FAILED && used < size) {
                size_t n = f->need - f->have < size - used ? f->need - f->have : size - used;

                memcpy(f->head + f->have, p + used, n);
                f->have += n;
                used += n;
                if (f->have < f->need)
                        break;
                switch (f->state) {
                case RFB_FRONT_VERSION:
                        r = on_version(f);
                        break;
                case RFB_FRONT_SECURITY:
                        r = on_security(f);
                        break;
                case RFB_FRONT_CLIENT_INIT:
                        r = on_client_init(f);
                        break;
                default:
                        break;
                }
                if (r < 0)
                        return r;
        }
        if (f->state == RFB_FRONT_FAILED)
                return -EPROTO;
        return (ssize_t) used;
}

size_t rfb_front_pending(const struct rfb_front *f, const uint8_t **ret) {
        *ret = f->out + f->out_sent;
        return f->out_len - f->out_sent;
}

void rfb_front_sent(struct rfb_front *f, size_t n) {
        f->out_sent += n < f->out_len - f->out_sent ? n : f->out_len - f->out_sent;
}
