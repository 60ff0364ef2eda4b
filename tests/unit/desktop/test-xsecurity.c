/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cookie an adoption makes never expires: xsecurity_new_cookie()'s
 * GenerateAuthorization carries an explicit timeout of 0 (without it the X
 * server's default, 60 s after the last client, applies) and the trusted
 * level. A fake X server on a socketpair (a child process) answers the
 * connection setup, QueryExtension("SECURITY") and the request; it sends
 * back, as the authorization id, the value mask it was given, and as the
 * cookie's first 8 bytes the values themselves.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include "tap.h"
#include "xsecurity.h"

#define SECURITY_OPCODE 130

static int read_all(int fd, void *buf, size_t n) {
        for (size_t o = 0; o < n;) {
                ssize_t k = read(fd, (uint8_t *) buf + o, n - o);
                if (k <= 0)
                        return -1;
                o += (size_t) k;
        }
        return 0;
}

static int write_all(int fd, const void *buf, size_t n) {
        return write(fd, buf, n) == (ssize_t) n ? 0 : -1;
}

/* One request: its header, then the rest of its length (little-endian client). */
static int read_request(int fd, uint8_t *buf, size_t size, size_t *ret_len) {
        size_t len;

        if (read_all(fd, buf, 4) < 0)
                return -1;
        len = (size_t) (buf[2] | buf[3] << 8) * 4;
        if (len < 4 || len > size || read_all(fd, buf + 4, len - 4) < 0)
                return -1;
        *ret_len = len;
        return 0;
}

static void put16(uint8_t *p, uint16_t v) {
        p[0] = v & 0xff;
        p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v) {
        put16(p, v & 0xffff);
        put16(p + 2, v >> 16);
}

static uint32_t get32(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static int fake_server(int fd) {
        uint8_t buf[4096], setup[8 + 32] = {}, reply[32 + 16] = {};
        size_t len, proto_len, data_len, values_at, n_values;
        uint32_t mask;

        /* The setup request (no authorization), then a success with no screens. */
        if (read_all(fd, buf, 12) < 0 || buf[0] != 'l')
                return 1;
        setup[0] = 1;
        put16(setup + 2, 11);
        put16(setup + 6, 8);
        put32(setup + 8 + 8, 0x001fffff);       /* resource-id-mask */
        put16(setup + 8 + 18, 65535);           /* maximum-request-length */
        if (write_all(fd, setup, sizeof setup) < 0)
                return 1;

        /* QueryExtension (98): SECURITY is present. */
        if (read_request(fd, buf, sizeof buf, &len) < 0 || buf[0] != 98 || memcmp(buf + 8, "SECURITY", 8) != 0)
                return 2;
        memset(reply, 0, sizeof reply);
        reply[0] = 1;
        put16(reply + 2, 1);
        reply[8] = 1;
        reply[9] = SECURITY_OPCODE;
        if (write_all(fd, reply, 32) < 0)
                return 2;

        /* GenerateAuthorization: echo the mask as the id, the values as the cookie. */
        if (read_request(fd, buf, sizeof buf, &len) < 0 || buf[0] != SECURITY_OPCODE || buf[1] != 1)
                return 3;
        proto_len = (size_t) (buf[4] | buf[5] << 8);
        data_len = (size_t) (buf[6] | buf[7] << 8);
        mask = get32(buf + 8);
        values_at = 12 + (proto_len + 3) / 4 * 4 + (data_len + 3) / 4 * 4;
        n_values = (len - values_at) / 4;
        memset(reply, 0xee, sizeof reply);
        reply[0] = 1;
        reply[1] = 0;
        put16(reply + 2, 2);
        put32(reply + 4, 4);                    /* 16 bytes of data */
        put32(reply + 8, mask);
        put16(reply + 12, 16);
        memset(reply + 14, 0, 18);
        memcpy(reply + 32, buf + values_at, (n_values > 4 ? 4 : n_values) * 4);
        if (write_all(fd, reply, sizeof reply) < 0)
                return 3;
        /* Until the client hangs up: an early close would reach it as an error before the reply. */
        while (read(fd, buf, sizeof buf) > 0)
                ;
        return 0;
}

int main(void) {
        uint8_t cookie[XAUTH_COOKIE_SIZE];
        xcb_connection_t *c;
        uint32_t id = 0;
        int sv[2], status, r;
        pid_t pid;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return 1;
        pid = fork();
        if (pid == 0) {
                close(sv[0]);
                _exit(fake_server(sv[1]));
        }
        close(sv[1]);
        c = xcb_connect_to_fd(sv[0], NULL);
        tap_ok(c && !xcb_connection_has_error(c), "a connection to the fake X server");
        memset(cookie, 0xff, sizeof cookie);
        r = xsecurity_new_cookie(c, cookie, &id);
        TAP_EQ_INT(r, 0, "xsecurity_new_cookie() gets a cookie");
        if (r < 0)
                printf("#   connection error %d\n", xcb_connection_has_error(c));
        tap_ok(id & 0x1, "the request carries a timeout (value mask %#x)", id);
        tap_ok(id & 0x2, "and a trust level");
        /* The values come in the order of their mask bits: timeout, then trust level. */
        tap_ok((id & 0x3) == 0x3 && get32(cookie) == 0, "the timeout is 0: the authorization never expires");
        tap_ok((id & 0x3) == 0x3 && get32(cookie + 4) == 0, "the trust level is trusted (0)");
        xcb_disconnect(c);
        TAP_EQ_INT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
                   "the fake server saw the setup, QueryExtension and GenerateAuthorization");
        return tap_done();
}
