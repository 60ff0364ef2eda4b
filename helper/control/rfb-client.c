/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's RFB handshake as a state machine over the server's bytes
 * (rfb-client.h). Each state names how many bytes it waits for; they are
 * gathered in one buffer sized for the largest the limits allow, then the
 * state decides and names the next.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfb-client.h"
#include "util.h"

/* The most one state waits for: a name at its cap (the reason's cap is smaller). */
#define BUF_MAX RFB_CLIENT_NAME_MAX

static uint32_t be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p) {
        return (uint16_t) (p[0] << 8 | p[1]);
}

int rfb_client_init(struct rfb_client *c, const char *password) {
        int r;

        *c = (struct rfb_client) { .state = RFB_CLIENT_VERSION, .need = 12 };
        if (password) {
                r = rfb_vnc_auth_key(password, c->key);
                if (r < 0)
                        return r;
                c->have_password = true;
        }
        c->buf = malloc(BUF_MAX);
        return c->buf ? 0 : -ENOMEM;
}

void rfb_client_done(struct rfb_client *c) {
        explicit_bzero(c->key, sizeof c->key);
        free(c->buf);
        free(c->name);
        *c = (struct rfb_client) {};
}

static void say(struct rfb_client *c, const void *data, size_t size) {
        /* The handshake's messages are small, and each is sent before the next is made. */
        if (c->out_len + size <= sizeof c->out) {
                memcpy(c->out + c->out_len, data, size);
                c->out_len += size;
        }
}

void rfb_client_use_tls(struct rfb_client *c, bool tls_usable, bool have_ca) {
        c->tls_usable = tls_usable;
        c->have_ca = have_ca;
}

size_t rfb_client_take_out(struct rfb_client *c, void *ret, size_t size) {
        size_t n = c->out_len < size ? c->out_len : size;

        memcpy(ret, c->out, n);
        memmove(c->out, c->out + n, c->out_len - n);
        c->out_len -= n;
        /* What moved down leaves no copy behind: a VNC response is as good as the password to a brute-forcer. */
        explicit_bzero(c->out + c->out_len, n);
        return n;
}

static int fail(struct rfb_client *c, int error, const char *problem) {
        c->state = RFB_CLIENT_FAILED;
        c->failure = error;
        c->problem = problem;
        return error;
}

static void expect(struct rfb_client *c, enum rfb_client_state state, size_t need) {
        c->state = state;
        c->need = need;
        c->have = 0;
}

/* A failure that comes with a reason (a u32 length, then the text): drain it, then fail with error. */
static int expect_reason(struct rfb_client *c, int error) {
        c->reason_error = error;
        expect(c, RFB_CLIENT_REASON, 4);
        return 0;
}

/* "RFB 003.008\n": 3.3, 3.7 or 3.8 (any later minor, or major, is answered as 3.8; 3.4-3.6 as 3.3, as the RFC says). */
static int on_version(struct rfb_client *c) {
        unsigned major, minor;
        char text[13], reply[13];

        memcpy(text, c->buf, 12);
        text[12] = '\0';
        if (memcmp(text, "RFB ", 4) != 0 || text[7] != '.' || text[11] != '\n' ||
            sscanf(text + 4, "%3u.%3u", &major, &minor) != 2)
                return fail(c, -EPROTO, "the peer is not an RFB server");
        if (major < 3 || (major == 3 && minor < 3))
                return fail(c, -EPROTONOSUPPORT, "the server speaks an RFB version before 3.3");
        c->minor = major > 3 || minor >= 8 ? 8 : minor == 7 ? 7 : 3;
        snprintf(reply, sizeof reply, "RFB 003.%03u\n", c->minor);
        say(c, reply, 12);
        expect(c, RFB_CLIENT_SECURITY, c->minor == 3 ? 4 : 1);
        return 0;
}

/* After security: the result, or (3.3 and 3.7 with None) straight to ClientInit. */
static void client_init(struct rfb_client *c) {
        static const uint8_t shared = 1;

        /* Shared: the desktop's own viewers stay connected. */
        say(c, &shared, 1);
        expect(c, RFB_CLIENT_SERVER_INIT, 24);
}

static int chosen(struct rfb_client *c, uint32_t type) {
        if (type == RFB_SECURITY_VNC) {
                if (!c->have_password)
                        return fail(c, -ENOKEY, "the server asks for a password and none is configured");
                expect(c, RFB_CLIENT_CHALLENGE, 16);
                return 0;
        }
        /* None: 3.8 still sends a SecurityResult. */
        if (c->minor == 8)
                expect(c, RFB_CLIENT_RESULT, 4);
        else
                client_init(c);
        return 0;
}

/* Why a server without VeNCrypt is refused when remote_ca_file is set (rfb_client_use_tls()). */
static int no_vencrypt(struct rfb_client *c) {
        return fail(c, -EPROTONOSUPPORT,
                    "remote_ca_file asks for TLS with a verified certificate and the server does not offer VeNCrypt");
}

static int vencrypt(struct rfb_client *c) {
        if (!c->tls_usable)
                return fail(c, -EPROTONOSUPPORT,
                            c->have_ca ? "remote_ca_file asks for TLS (VeNCrypt) and botdesk was built without GnuTLS"
                                       : "the server offers only VeNCrypt (TLS) and botdesk was built without GnuTLS");
        say(c, &(uint8_t) { RFB_SECURITY_VENCRYPT }, 1);
        expect(c, RFB_CLIENT_VENCRYPT_VERSION, 2);
        return 0;
}

static int on_security(struct rfb_client *c) {
        uint32_t type = 0;
        bool offers_vencrypt = false;

        if (c->minor == 3) {
                type = be32(c->buf);
                if (type == 0)
                        return expect_reason(c, -ECONNREFUSED);
                /* 3.3 names one type and VeNCrypt is none of its: a CA's promise cannot be kept. */
                if (c->have_ca)
                        return no_vencrypt(c);
                if (type != RFB_SECURITY_NONE && type != RFB_SECURITY_VNC)
                        return fail(c, -EPROTONOSUPPORT, "the server asks for a security type botdesk does not speak");
                return chosen(c, type);
        }
        if (c->need == 1) {
                /* The count; the list follows. */
                if (c->buf[0] == 0)
                        return expect_reason(c, -ECONNREFUSED);
                /* The count stays in buf[0]; the list is gathered after it. */
                expect(c, RFB_CLIENT_SECURITY, 1u + c->buf[0]);
                c->have = 1;
                return 0;
        }
        /* VNC authentication when there is a password, else None; Apple's types (30, 33, 35, 36) and the rest never. */
        for (size_t i = 1; i < c->need; i++) {
                if (c->buf[i] == RFB_SECURITY_VNC && c->have_password)
                        type = RFB_SECURITY_VNC;
                else if (c->buf[i] == RFB_SECURITY_NONE && type == 0)
                        type = RFB_SECURITY_NONE;
                else if (c->buf[i] == RFB_SECURITY_VENCRYPT)
                        offers_vencrypt = true;
        }
        /* A CA configured: VeNCrypt X509 or nothing, whatever else is offered (no downgrade to clear RFB). */
        if (c->have_ca)
                return offers_vencrypt ? vencrypt(c) : no_vencrypt(c);
        /* Without one, TLS all the same where botdesk has it: anonymous, so no proof of the server's
         * identity, but neither the password's exchange nor the screen crosses the network in clear (as
         * TigerVNC's viewer, which puts VeNCrypt first). */
        if (offers_vencrypt && (type == 0 || c->tls_usable))
                return vencrypt(c);
        if (type == 0) {
                for (size_t i = 1; i < c->need; i++)
                        if (c->buf[i] == RFB_SECURITY_VNC)
                                return fail(c, -ENOKEY, "the server asks for a password and none is configured");
                return fail(c, -EPROTONOSUPPORT, "the server offers no security type botdesk speaks (None, VNC)");
        }
        say(c, &(uint8_t) { (uint8_t) type }, 1);
        return chosen(c, type);
}

/* VeNCrypt's version: 0.2, the one with u32 subtypes (0.1's u8 ones predate every server botdesk meets). */
static int on_vencrypt_version(struct rfb_client *c) {
        static const uint8_t v02[2] = { 0, 2 };

        if (memcmp(c->buf, v02, 2) != 0)
                return fail(c, -EPROTONOSUPPORT, "the server speaks a VeNCrypt version other than 0.2");
        say(c, v02, 2);
        expect(c, RFB_CLIENT_VENCRYPT_ACK, 1);
        return 0;
}

static int on_vencrypt_ack(struct rfb_client *c) {
        if (c->buf[0] != 0)
                return fail(c, -EPROTONOSUPPORT, "the server refused VeNCrypt 0.2");
        expect(c, RFB_CLIENT_VENCRYPT_TYPES, 1);
        return 0;
}

static bool offers(const struct rfb_client *c, uint32_t subtype) {
        for (size_t i = 1; i + 4 <= c->need; i += 4)
                if (be32(c->buf + i) == subtype)
                        return true;
        return false;
}

/* The subtype the rule of rfb_client_use_tls() picks, or a failure. */
static int pick_subtype(struct rfb_client *c, uint32_t *ret) {
        uint32_t vnc = c->have_ca ? RFB_VENCRYPT_X509_VNC : RFB_VENCRYPT_TLS_VNC;
        uint32_t none = c->have_ca ? RFB_VENCRYPT_X509_NONE : RFB_VENCRYPT_TLS_NONE;

        if (!c->have_ca && (offers(c, RFB_VENCRYPT_X509_VNC) || offers(c, RFB_VENCRYPT_X509_NONE)))
                return fail(c, -EPROTONOSUPPORT,
                            "the server offers TLS with a certificate (VeNCrypt X509) and remote_ca_file is not set "
                            "to verify it");
        if (offers(c, vnc) && c->have_password)
                *ret = vnc;
        else if (offers(c, none))
                *ret = none;
        else if (offers(c, vnc))
                return fail(c, -ENOKEY, "the server asks for a password and none is configured");
        else if (c->have_ca)
                return fail(c, -EPROTONOSUPPORT,
                            "remote_ca_file asks for a verified certificate and the server offers no VeNCrypt X509 "
                            "subtype botdesk speaks (X509None, X509Vnc)");
        else if (offers(c, RFB_VENCRYPT_PLAIN) || offers(c, RFB_VENCRYPT_TLS_PLAIN) || offers(c, RFB_VENCRYPT_X509_PLAIN))
                return fail(c, -EPROTONOSUPPORT,
                            "the server offers only VeNCrypt subtypes that send a username (Plain), and botdesk has none");
        else
                return fail(c, -EPROTONOSUPPORT, "the server offers no VeNCrypt subtype botdesk speaks");
        return 0;
}

static int on_vencrypt_types(struct rfb_client *c) {
        uint32_t subtype = 0;
        uint8_t choice[4];
        int r;

        if (c->need == 1) {
                if (c->buf[0] == 0)
                        return fail(c, -EPROTO, "the server offers VeNCrypt without a subtype");
                /* The count stays in buf[0]; the u32 list is gathered after it (at most 1 + 255 * 4 bytes). */
                expect(c, RFB_CLIENT_VENCRYPT_TYPES, 1u + 4u * c->buf[0]);
                c->have = 1;
                return 0;
        }
        r = pick_subtype(c, &subtype);
        if (r < 0)
                return r;
        c->subtype = subtype;
        choice[0] = (uint8_t) (subtype >> 24);
        choice[1] = (uint8_t) (subtype >> 16);
        choice[2] = (uint8_t) (subtype >> 8);
        choice[3] = (uint8_t) subtype;
        say(c, choice, sizeof choice);
        expect(c, RFB_CLIENT_VENCRYPT_ACCEPT, 1);
        return 0;
}

/* 1: the server takes the subtype and TLS starts, the client's hello first. */
static int on_vencrypt_accept(struct rfb_client *c) {
        if (c->buf[0] != 1)
                return fail(c, -ECONNREFUSED, "the server refused the VeNCrypt subtype botdesk chose");
        c->tls_x509 = c->subtype == RFB_VENCRYPT_X509_NONE || c->subtype == RFB_VENCRYPT_X509_VNC;
        expect(c, RFB_CLIENT_START_TLS, 0);
        return 0;
}

void rfb_client_tls_started(struct rfb_client *c) {
        if (c->state != RFB_CLIENT_START_TLS)
                return;
        /* Inside TLS: the VNC challenge for the *Vnc subtypes, then a SecurityResult whatever the version (as
         * TigerVNC and QEMU both send one after VeNCrypt, 3.7 included). */
        if (c->subtype == RFB_VENCRYPT_X509_VNC || c->subtype == RFB_VENCRYPT_TLS_VNC)
                expect(c, RFB_CLIENT_CHALLENGE, 16);
        else
                expect(c, RFB_CLIENT_RESULT, 4);
}

static int on_challenge(struct rfb_client *c) {
        uint8_t response[16];

        rfb_vnc_auth_response(c->key, c->buf, response);
        say(c, response, sizeof response);
        explicit_bzero(response, sizeof response);
        /* The key is spent: one challenge a connection. */
        explicit_bzero(c->key, sizeof c->key);
        expect(c, RFB_CLIENT_RESULT, 4);
        return 0;
}

static int on_result(struct rfb_client *c) {
        if (be32(c->buf) == 0) {
                client_init(c);
                return 0;
        }
        /* 3.8 says why; earlier versions only close. */
        if (c->minor == 8)
                return expect_reason(c, -EACCES);
        return fail(c, -EACCES, "the server refused the password");
}

/* A reason is a u32 length (need 4), then its text (need 4 + length): read, never kept or shown. */
static int on_reason(struct rfb_client *c) {
        uint32_t len;

        if (c->need == 4) {
                len = be32(c->buf);
                if (len > RFB_CLIENT_REASON_MAX)
                        return fail(c, -EPROTO, "the server's failure reason is longer than botdesk reads (4096 bytes)");
                if (len > 0) {
                        c->need = 4 + len;
                        return 0;
                }
        }
        return fail(c, c->reason_error,
                    c->reason_error == -EACCES ? "the server refused the password"
                                               : "the server refused the connection");
}

static int on_server_init(struct rfb_client *c) {
        uint32_t name_len = be32(c->buf + 20);

        c->width = be16(c->buf);
        c->height = be16(c->buf + 2);
        memcpy(c->pixel_format, c->buf + 4, sizeof c->pixel_format);
        if (c->width == 0 || c->height == 0 || (uint32_t) c->width * c->height > RFB_CLIENT_PIXELS_MAX)
                return fail(c, -EFBIG, "the server's screen is empty or larger than 16777216 pixels");
        if (name_len > RFB_CLIENT_NAME_MAX)
                return fail(c, -EFBIG, "the server's desktop name is longer than 64 KiB");
        expect(c, RFB_CLIENT_NAME, name_len);
        return 0;
}

static int on_name(struct rfb_client *c) {
        c->name = strndup((const char *) c->buf, c->need);
        if (!c->name)
                return fail(c, -ENOMEM, "out of memory");
        c->state = RFB_CLIENT_READY;
        return 0;
}

static int step(struct rfb_client *c) {
        switch (c->state) {
        case RFB_CLIENT_VERSION:
                return on_version(c);
        case RFB_CLIENT_SECURITY:
                return on_security(c);
        case RFB_CLIENT_VENCRYPT_VERSION:
                return on_vencrypt_version(c);
        case RFB_CLIENT_VENCRYPT_ACK:
                return on_vencrypt_ack(c);
        case RFB_CLIENT_VENCRYPT_TYPES:
                return on_vencrypt_types(c);
        case RFB_CLIENT_VENCRYPT_ACCEPT:
                return on_vencrypt_accept(c);
        case RFB_CLIENT_CHALLENGE:
                return on_challenge(c);
        case RFB_CLIENT_RESULT:
                return on_result(c);
        case RFB_CLIENT_REASON:
                return on_reason(c);
        case RFB_CLIENT_SERVER_INIT:
                return on_server_init(c);
        case RFB_CLIENT_NAME:
                return on_name(c);
        default:
                return 0;
        }
}

ssize_t rfb_client_feed(struct rfb_client *c, const void *data, size_t size) {
        const uint8_t *p = data;
        size_t used = 0;
        int r;

        while (c->state != RFB_CLIENT_READY && c->state != RFB_CLIENT_FAILED && c->state != RFB_CLIENT_START_TLS) {
                if (c->have < c->need) {
                        size_t n = c->need - c->have < size - used ? c->need - c->have : size - used;

                        if (n == 0)
                                break;
                        memcpy(c->buf + c->have, p + used, n);
                        c->have += n;
                        used += n;
                        if (c->have < c->need)
                                break;
                }
                r = step(c);
                if (r < 0)
                        return r;
        }
        if (c->state == RFB_CLIENT_FAILED)
                return c->failure;
        return (ssize_t) used;
}
