/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's RFB handshake (rfb-client.h) against servers' transcripts:
 * each version and security type, fed whole and a byte at a time; what the
 * client answers, byte for byte; every refusal with its error and words
 * that never carry the server's own text; and the VNC authentication's
 * responses against DES answers computed with OpenSSL. VeNCrypt (19): the
 * exchange before TLS byte for byte, the stop for TLS, what follows inside
 * it, and the rule of rfb_client_use_tls() with each of its refusals.
 */
#include "tap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rfb-bytes.h"
#include "rfb-client.h"
#include "util.h"

static void server_init(struct bytes *b, uint16_t w, uint16_t h, const char *name, uint32_t name_len) {
        uint8_t head[20] = { (uint8_t) (w >> 8), (uint8_t) w, (uint8_t) (h >> 8), (uint8_t) h, 32, 24, 0, 1 };

        add(b, head, sizeof head);
        add32(b, name_len);
        if (name)
                add(b, name, strlen(name));
}

static const uint8_t challenge[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
/* openssl enc -des-ecb -nopad -K 46f62e26a6ced600 (botdesk, bits reversed) of 00..0f */
static const uint8_t botdesk_response[16] = { 0x8d, 0x8b, 0x6b, 0x0a, 0xd2, 0xd5, 0xb3, 0xe3,
                                              0x41, 0x8f, 0x37, 0xaf, 0x44, 0x7f, 0xa7, 0x78 };

struct run {
        ssize_t r;
        struct bytes out;
        struct rfb_client c;
        unsigned tls_starts;            /* how often the machine stopped for TLS */
        bool tls_x509;                  /* ... and the kind it asked for */
        size_t out_before_tls;          /* what the client had said in clear by then */
        size_t in_before_tls;           /* ... and taken of the transcript */
};

/* Whether the test's caller can run TLS, and has a CA (rfb_client_use_tls()). */
enum tls { NO_TLS, TLS_ANON_ONLY, TLS_CA };

/*
 * Feeds the transcript (whole, or a byte at a time) and gathers what the
 * client said. Where the machine stops for TLS, the test plays the TLS
 * layer: what follows in the transcript is what TLS would decrypt.
 */
static void run_tls(struct run *x, const char *password, enum tls tls, const struct bytes *in, bool bytewise) {
        size_t off = 0;

        *x = (struct run) {};
        if (rfb_client_init(&x->c, password) < 0)
                abort();
        if (tls != NO_TLS)
                rfb_client_use_tls(&x->c, true, tls == TLS_CA);
        while (off < in->n) {
                size_t n = bytewise ? 1 : in->n - off;
                uint8_t o[64];
                size_t k;

                x->r = rfb_client_feed(&x->c, in->d + off, n);
                while ((k = rfb_client_take_out(&x->c, o, sizeof o)) > 0)
                        add(&x->out, o, k);
                if (x->r >= 0 && x->c.state == RFB_CLIENT_START_TLS) {
                        x->tls_starts++;
                        x->tls_x509 = x->c.tls_x509;
                        x->out_before_tls = x->out.n;
                        off += (size_t) x->r;
                        x->in_before_tls = off;
                        x->r = (ssize_t) off;
                        rfb_client_tls_started(&x->c);
                        continue;
                }
                if (x->r < 0 || (size_t) x->r < n) {
                        if (x->r >= 0)
                                x->r = (ssize_t) (off + (size_t) x->r);
                        return;
                }
                off += n;
                x->r = (ssize_t) off;
        }
}

static void run(struct run *x, const char *password, const struct bytes *in, bool bytewise) {
        run_tls(x, password, NO_TLS, in, bytewise);
}

static uint32_t be32_at(const struct bytes *b, size_t off) {
        if (off + 4 > b->n)
                return 0;
        return (uint32_t) b->d[off] << 24 | (uint32_t) b->d[off + 1] << 16 | (uint32_t) b->d[off + 2] << 8 | b->d[off + 3];
}

static bool out_is(const struct run *x, const struct bytes *want) {
        return x->out.n == want->n && memcmp(x->out.d, want->d, want->n) == 0;
}

static void check_vnc_38(bool bytewise) {
        struct bytes in = {}, want = {};
        struct run x;

        add(&in, "RFB 003.008\n", 12);
        add(&in, "\x02\x01\x02", 3);
        add(&in, challenge, 16);
        add32(&in, 0);
        server_init(&in, 800, 600, "work", 4);
        add(&in, "\x00\x00", 2);                /* the session's first bytes: not the handshake's */
        add(&want, "RFB 003.008\n", 12);
        add(&want, "\x02", 1);
        add(&want, botdesk_response, 16);
        add(&want, "\x01", 1);
        run(&x, "botdesk", &in, bytewise);
        TAP_EQ_INT(x.r, in.n - 2, "3.8, VNC auth (%s): the handshake takes its bytes, not the session's",
                   bytewise ? "a byte at a time" : "whole");
        tap_ok(x.c.state == RFB_CLIENT_READY && x.c.width == 800 && x.c.height == 600 && streq(x.c.name, "work"),
               "... ready, with ServerInit's 800x600 and name");
        tap_ok(out_is(&x, &want), "... and it said version 3.8, VNC auth, the DES response and shared ClientInit");
        rfb_client_done(&x.c);
}

/* A VeNCrypt server up to its subtypes: version 3.8, the types offered, VeNCrypt 0.2 and its ack. */
static void vencrypt_head(struct bytes *in, const char *types, size_t n_types) {
        add(in, "RFB 003.008\n", 12);
        add(in, (uint8_t[]) { (uint8_t) n_types }, 1);
        add(in, types, n_types);
        add(in, "\x00\x02\x00", 3);
}

static void subtypes(struct bytes *in, const uint32_t *list, size_t n) {
        add(in, (uint8_t[]) { (uint8_t) n }, 1);
        for (size_t i = 0; i < n; i++)
                add32(in, list[i]);
}

/* X509Vnc with a CA, though the server offers VNC authentication in clear too. */
static void check_x509_vnc(bool bytewise) {
        struct bytes in = {}, want = {};
        struct run x;
        bool zero = true;

        vencrypt_head(&in, "\x02\x13", 2);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_X509_NONE, RFB_VENCRYPT_X509_VNC }, 2);
        add(&in, "\x01", 1);
        /* Inside TLS. */
        add(&in, challenge, 16);
        add32(&in, 0);
        server_init(&in, 1280, 720, "tls", 3);
        add(&want, "RFB 003.008\n\x13\x00\x02", 15);
        add32(&want, RFB_VENCRYPT_X509_VNC);
        add(&want, botdesk_response, 16);
        add(&want, "\x01", 1);
        run_tls(&x, "botdesk", TLS_CA, &in, bytewise);
        TAP_EQ_INT(x.r, in.n, "VeNCrypt X509Vnc (%s): the whole handshake taken", bytewise ? "a byte at a time" : "whole");
        tap_ok(x.tls_starts == 1 && x.tls_x509 && x.in_before_tls == 12 + 3 + 3 + 1 + 8 + 1,
               "... it stopped once for TLS, X509, right after the server's accept byte");
        tap_ok(x.out_before_tls == 12 + 1 + 2 + 4,
               "... having said in clear only the version, 19 (VeNCrypt, over VNC auth: a CA is set), 0.2 and the subtype");
        tap_ok(out_is(&x, &want), "... then, inside TLS, the DES response and shared ClientInit");
        tap_ok(x.c.state == RFB_CLIENT_READY && x.c.width == 1280 && x.c.height == 720 && streq(x.c.name, "tls"),
               "... ready with ServerInit's 1280x720 and name");
        for (size_t i = 0; i < sizeof x.c.key; i++)
                zero = zero && x.c.key[i] == 0;
        tap_ok(zero, "... and the DES key is wiped once the response is made");
        rfb_client_done(&x.c);
}

/* The machine's verdict on a VeNCrypt transcript: its error, and whether its words contain needle. */
static void refused(const char *password, enum tls tls, const struct bytes *in, int error, const char *needle,
                    const char *what) {
        struct run x;

        run_tls(&x, password, tls, in, false);
        TAP_EQ_INT(x.r, error, "%s", what);
        tap_ok(x.c.problem && (!needle || strstr(x.c.problem, needle)) && x.tls_starts == 0,
               "... before any TLS, saying so (%s)", strnull(x.c.problem));
        rfb_client_done(&x.c);
        run_tls(&x, password, tls, in, true);
        TAP_EQ_INT(x.r, error, "... the same a byte at a time");
        rfb_client_done(&x.c);
}

static void check_vencrypt(void) {
        struct bytes in, want;
        struct run x;

        check_x509_vnc(false);
        check_x509_vnc(true);

        /* Anonymous TLSVnc: no CA, and the server offers nothing else. */
        in = (struct bytes) {};
        want = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_TLS_NONE, RFB_VENCRYPT_TLS_VNC }, 2);
        add(&in, "\x01", 1);
        add(&in, challenge, 16);
        add32(&in, 0);
        server_init(&in, 640, 480, "anon", 4);
        add(&want, "RFB 003.008\n\x13\x00\x02", 15);
        add32(&want, RFB_VENCRYPT_TLS_VNC);
        add(&want, botdesk_response, 16);
        add(&want, "\x01", 1);
        run_tls(&x, "botdesk", TLS_ANON_ONLY, &in, true);
        tap_ok(x.c.state == RFB_CLIENT_READY && x.tls_starts == 1 && !x.tls_x509 && out_is(&x, &want),
               "VeNCrypt alone, no CA: TLSVnc with the password (anonymous TLS), VNC auth inside it");
        rfb_client_done(&x.c);

        /* TLSNone without a password; 3.7: a SecurityResult comes all the same (TigerVNC and QEMU send it). */
        in = (struct bytes) {};
        want = (struct bytes) {};
        add(&in, "RFB 003.007\n\x01\x13\x00\x02\x00", 17);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_TLS_VNC, RFB_VENCRYPT_TLS_NONE }, 2);
        add(&in, "\x01", 1);
        add32(&in, 0);
        server_init(&in, 640, 480, "n", 1);
        add(&want, "RFB 003.007\n\x13\x00\x02", 15);
        add32(&want, RFB_VENCRYPT_TLS_NONE);
        add(&want, "\x01", 1);
        run_tls(&x, NULL, TLS_ANON_ONLY, &in, false);
        tap_ok(x.c.state == RFB_CLIENT_READY && x.tls_starts == 1 && out_is(&x, &want),
               "3.7, no password: TLSNone, then inside TLS a SecurityResult and ClientInit");
        rfb_client_done(&x.c);

        /* X509None with a CA and no password. */
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_X509_VNC, RFB_VENCRYPT_X509_NONE }, 2);
        add(&in, "\x01", 1);
        add32(&in, 0);
        server_init(&in, 8, 8, "", 0);
        run_tls(&x, NULL, TLS_CA, &in, false);
        tap_ok(x.c.state == RFB_CLIENT_READY && x.tls_x509 && be32_at(&x.out, 15) == RFB_VENCRYPT_X509_NONE,
               "a CA and no password: X509None");
        rfb_client_done(&x.c);

        /* No CA, and VNC auth offered beside VeNCrypt: VeNCrypt's anonymous TLS, the password inside it. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x02\x13\x02\x00\x02\x00", 18);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_TLS_VNC }, 1);
        add(&in, "\x01", 1);
        add(&in, challenge, 16);
        add32(&in, 0);
        server_init(&in, 8, 8, "", 0);
        run_tls(&x, "botdesk", TLS_ANON_ONLY, &in, false);
        tap_ok(x.c.state == RFB_CLIENT_READY && x.tls_starts == 1 && x.out.d[12] == RFB_SECURITY_VENCRYPT,
               "no CA, VeNCrypt and VNC auth offered: VeNCrypt, the password's exchange inside anonymous TLS");
        rfb_client_done(&x.c);

        /* The same without GnuTLS: VNC auth, as a build without it can. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x02\x13\x02", 15);
        add(&in, challenge, 16);
        add32(&in, 0);
        server_init(&in, 8, 8, "", 0);
        run_tls(&x, "botdesk", NO_TLS, &in, false);
        tap_ok(x.c.state == RFB_CLIENT_READY && x.tls_starts == 0 && x.out.d[12] == RFB_SECURITY_VNC,
               "... and in a build without GnuTLS, VNC auth");
        rfb_client_done(&x.c);

        /* Wrong password inside TLS: the reason drained, never shown. */
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_X509_VNC }, 1);
        add(&in, "\x01", 1);
        add(&in, challenge, 16);
        add32(&in, 1);
        add32(&in, 6);
        add(&in, "SECRET", 6);
        run_tls(&x, "wrong", TLS_CA, &in, true);
        TAP_EQ_INT(x.r, -EACCES, "X509Vnc, a wrong password: -EACCES, after TLS");
        tap_ok(x.tls_starts == 1 && x.c.problem && !strstr(x.c.problem, "SECRET"), "... in botdesk's words");
        rfb_client_done(&x.c);

        /* The refusals. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x13\x00\x01", 16);
        refused(NULL, TLS_ANON_ONLY, &in, -EPROTONOSUPPORT, "0.2", "VeNCrypt 0.1: -EPROTONOSUPPORT");
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x13\x01\x00", 16);
        refused(NULL, TLS_ANON_ONLY, &in, -EPROTONOSUPPORT, "0.2", "VeNCrypt 1.0: -EPROTONOSUPPORT");
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x13\x00\x02\x01", 17);
        refused(NULL, TLS_ANON_ONLY, &in, -EPROTONOSUPPORT, "refused VeNCrypt", "the server's ack is not 0: -EPROTONOSUPPORT");
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        add(&in, "\x00", 1);
        refused(NULL, TLS_ANON_ONLY, &in, -EPROTO, NULL, "no subtype at all: -EPROTO");
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { 30, 0xffffffffu }, 2);
        refused("pw", TLS_ANON_ONLY, &in, -EPROTONOSUPPORT, "no VeNCrypt subtype", "no subtype botdesk speaks: -EPROTONOSUPPORT");
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_PLAIN, RFB_VENCRYPT_TLS_PLAIN, RFB_VENCRYPT_X509_PLAIN }, 3);
        refused("pw", TLS_ANON_ONLY, &in, -EPROTONOSUPPORT, "username", "only the Plain subtypes (a username): -EPROTONOSUPPORT");
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_TLS_VNC, RFB_VENCRYPT_X509_VNC }, 2);
        refused("pw", TLS_ANON_ONLY, &in, -EPROTONOSUPPORT, "remote_ca_file",
                "an X509 subtype offered and no CA: refused, naming remote_ca_file (not downgraded to anonymous)");
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_TLS_NONE, RFB_VENCRYPT_TLS_VNC }, 2);
        refused("pw", TLS_CA, &in, -EPROTONOSUPPORT, "remote_ca_file", "a CA and only anonymous TLS offered: refused");
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x02\x01\x02", 15);
        refused("pw", TLS_CA, &in, -EPROTONOSUPPORT, "remote_ca_file", "a CA and no VeNCrypt offered: refused, no clear RFB");
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 2);
        refused("pw", TLS_CA, &in, -EPROTONOSUPPORT, "remote_ca_file", "a CA and an RFB 3.3 server: refused");
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_X509_VNC }, 1);
        refused(NULL, TLS_CA, &in, -ENOKEY, "password", "X509Vnc alone and no password: -ENOKEY");
        in = (struct bytes) {};
        vencrypt_head(&in, "\x13", 1);
        subtypes(&in, (const uint32_t[]) { RFB_VENCRYPT_X509_VNC }, 1);
        add(&in, "\x00", 1);
        refused("pw", TLS_CA, &in, -ECONNREFUSED, NULL, "the server refuses the subtype chosen: -ECONNREFUSED");
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x13", 14);
        /* A caller that never said it can run TLS: rfb_grab(), or a build without GnuTLS. */
        refused("pw", NO_TLS, &in, -EPROTONOSUPPORT, "GnuTLS", "VeNCrypt alone and no TLS to run it: -EPROTONOSUPPORT");
}

int main(void) {
        struct bytes in, want;
        uint8_t key[8], resp[16];
        struct rfb_client c;
        struct run x;

        /* DES: answers computed apart, with OpenSSL (openssl enc -des-ecb -nopad -K KEY). */
        TAP_EQ_INT(rfb_vnc_auth_key("botdesk", key), 0, "a password's key");
        rfb_vnc_auth_response(key, challenge, resp);
        tap_ok(memcmp(resp, botdesk_response, 16) == 0, "the response to a challenge is DES under the bit-reversed key");
        TAP_EQ_INT(rfb_vnc_auth_key("pässwörd-long", key), 0, "a password of Latin-1 characters, over 8: its first 8");
        {
                static const uint8_t ch[16] = { 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
                                                0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00 };
                static const uint8_t want_resp[16] = { 0x80, 0x40, 0xbd, 0x42, 0xd0, 0x38, 0xfd, 0xaa,
                                                       0x92, 0x67, 0xff, 0x53, 0xd8, 0x08, 0xbe, 0x1a };
                rfb_vnc_auth_response(key, ch, resp);
                tap_ok(memcmp(resp, want_resp, 16) == 0, "... as one byte each (ä, ö in Latin-1), the rest cut");
        }
        TAP_EQ_INT(rfb_vnc_auth_key("€uro", key), -EINVAL, "a character with no Latin-1 byte: -EINVAL");
        TAP_EQ_INT(rfb_client_init(&c, "€uro"), -EINVAL, "... which the handshake refuses up front");

        check_vnc_38(false);
        check_vnc_38(true);
        check_vencrypt();

        /* 3.889 (Apple's) is 3.8. */
        in = (struct bytes) {};
        add(&in, "RFB 003.889\n", 12);
        run(&x, NULL, &in, false);
        tap_ok(x.out.n == 12 && memcmp(x.out.d, "RFB 003.008\n", 12) == 0, "3.889 is answered as 3.8");
        rfb_client_done(&x.c);

        /* 3.3 with None: the server's one type, no SecurityResult. */
        in = (struct bytes) {};
        want = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 1);
        server_init(&in, 1024, 768, "", 0);
        add(&want, "RFB 003.003\n\x01", 13);
        run(&x, NULL, &in, true);
        tap_ok(x.r == (ssize_t) in.n && x.c.state == RFB_CLIENT_READY && x.c.minor == 3 && out_is(&x, &want),
               "3.3, None: version, then ClientInit straight away; an empty name");
        rfb_client_done(&x.c);

        /* 3.7 with None: the client picks it, no SecurityResult either. */
        in = (struct bytes) {};
        want = (struct bytes) {};
        add(&in, "RFB 003.007\n\x01\x01", 14);
        server_init(&in, 640, 480, "x", 1);
        add(&want, "RFB 003.007\n\x01\x01", 14);
        run(&x, NULL, &in, false);
        tap_ok(x.c.state == RFB_CLIENT_READY && out_is(&x, &want), "3.7, None: the type, then ClientInit");
        rfb_client_done(&x.c);

        /* 3.8 with None: a SecurityResult comes. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x01", 14);
        add32(&in, 0);
        server_init(&in, 640, 480, "x", 1);
        run(&x, "unused", &in, false);
        tap_ok(x.c.state == RFB_CLIENT_READY, "3.8, None offered alone: taken, even with a password");
        rfb_client_done(&x.c);

        /* A wrong password: 3.8 sends a reason, drained and never shown. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x02", 14);
        add(&in, challenge, 16);
        add32(&in, 1);
        add32(&in, 20);
        add(&in, "SECRET-SERVER-TEXT!!", 20);
        run(&x, "wrong", &in, true);
        TAP_EQ_INT(x.r, -EACCES, "a wrong password: -EACCES");
        tap_ok(x.c.problem && !strstr(x.c.problem, "SECRET"), "... in botdesk's words, not the server's (%s)",
               strnull(x.c.problem));
        rfb_client_done(&x.c);

        /* 3.3: a failed authentication has no reason. */
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 2);
        add(&in, challenge, 16);
        add32(&in, 1);
        run(&x, "wrong", &in, false);
        TAP_EQ_INT(x.r, -EACCES, "3.3, a wrong password: -EACCES at once");
        rfb_client_done(&x.c);

        /* Apple's types alone. */
        in = (struct bytes) {};
        add(&in, "RFB 003.889\n\x04\x1e\x21\x23\x24", 17);
        run(&x, "pw", &in, false);
        TAP_EQ_INT(x.r, -EPROTONOSUPPORT, "only Apple's types (30, 33, 35, 36): -EPROTONOSUPPORT");
        tap_ok(x.out.n == 12, "... and nothing is chosen");
        rfb_client_done(&x.c);

        /* VNC auth without a password. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x01\x02", 14);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -ENOKEY, "VNC auth wanted and no password configured: -ENOKEY");
        rfb_client_done(&x.c);

        /* Refused at once, with a reason. */
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x00", 13);
        add32(&in, 12);
        add(&in, "too many sec", 12);
        run(&x, NULL, &in, true);
        TAP_EQ_INT(x.r, -ECONNREFUSED, "no security types, a reason: -ECONNREFUSED");
        rfb_client_done(&x.c);
        in = (struct bytes) {};
        add(&in, "RFB 003.008\n\x00", 13);
        add32(&in, 5000);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EPROTO, "a reason over 4096 bytes: -EPROTO before any of it is read");
        rfb_client_done(&x.c);

        /* ServerInit over the limits. */
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 1);
        server_init(&in, 5000, 5000, NULL, 0);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EFBIG, "a 5000x5000 screen (over 16777216 pixels): -EFBIG");
        rfb_client_done(&x.c);
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 1);
        server_init(&in, 10, 10, NULL, 70000);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EFBIG, "a name of 70000 bytes: -EFBIG before it is read");
        rfb_client_done(&x.c);

        /* Not RFB, or too old. */
        in = (struct bytes) {};
        add(&in, "HTTP/1.1 200", 12);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EPROTO, "an HTTP server: -EPROTO");
        rfb_client_done(&x.c);
        in = (struct bytes) {};
        add(&in, "RFB 002.000\n", 12);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EPROTONOSUPPORT, "RFB 2.0: -EPROTONOSUPPORT");
        rfb_client_done(&x.c);

        /* 3.3 offering a type of its own. */
        in = (struct bytes) {};
        add(&in, "RFB 003.003\n", 12);
        add32(&in, 19);
        run(&x, NULL, &in, false);
        TAP_EQ_INT(x.r, -EPROTONOSUPPORT, "3.3 with VeNCrypt (19) as its one type: -EPROTONOSUPPORT");
        rfb_client_done(&x.c);
        return tap_done();
}
