/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rfb-grab.h"
#include "socket-util.h"
#include "util.h"

/* One read of what the server sent: its size, 0 at its end, or -errno (-ETIMEDOUT past deadline). */
static ssize_t read_some(int fd, void *buf, size_t size, unsigned long long deadline) {
        for (;;) {
                ssize_t n = read(fd, buf, size);
                int r;

                if (n >= 0)
                        return n;
                if (errno == EINTR)
                        continue;
                if (errno != EAGAIN)
                        return negative_errno();
                r = fd_wait_until(fd, POLLIN, deadline);
                if (r < 0)
                        return r;
        }
}

/* All of data, however the socket takes it, before deadline. */
static int write_some(int fd, const void *data, size_t size, unsigned long long deadline) {
        const uint8_t *p = data;

        while (size > 0) {
                ssize_t n = write(fd, p, size);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN) {
                        int r = fd_wait_until(fd, POLLOUT, deadline);

                        if (r < 0)
                                return r;
                        continue;
                }
                if (n < 0)
                        return negative_errno();
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

static int fail(const char **ret_problem, const char *problem, int r) {
        *ret_problem = problem;
        return r;
}

/* The server's bytes, through TLS once it started. */
static ssize_t handshake_read(int fd, struct rfb_handshake_tls *tls, void *buf, size_t size,
                              unsigned long long deadline) {
        return tls && tls->tls ? rfb_tls_read(tls->tls, buf, size, deadline) : read_some(fd, buf, size, deadline);
}

static int handshake_write(int fd, struct rfb_handshake_tls *tls, const void *data, size_t size,
                           unsigned long long deadline) {
        return tls && tls->tls ? rfb_tls_write(tls->tls, data, size, deadline) : write_some(fd, data, size, deadline);
}

/* The machine stopped for TLS: nothing of the server's may be left over (TLS's hello is the client's). */
static int start_tls(int fd, struct rfb_handshake_tls *tls, struct rfb_client *c, size_t left,
                     unsigned long long deadline, const char **ret_problem) {
        int r;

        if (!tls)
                return fail(ret_problem, "the handshake stopped for TLS that was not offered", -EPROTO);
        if (left > 0)
                return fail(ret_problem, "the server sent bytes out of the VeNCrypt protocol before TLS", -EPROTO);
        r = rfb_tls_start(fd, c->tls_x509, tls->ca_pem, tls->ca_len, tls->address, deadline, &tls->tls, tls->problem);
        if (r < 0)
                return fail(ret_problem, tls->problem, r);
        rfb_client_tls_started(c);
        return 0;
}

int rfb_handshake(int fd, const char *password, struct rfb_handshake_tls *tls, unsigned long long deadline,
                  struct rfb_client *c, uint8_t rest[static RFB_HANDSHAKE_READ], size_t *ret_rest,
                  const char **ret_problem) {
        uint8_t out[64];
        ssize_t n = 0, used = 0;
        size_t k;
        int r;

        *ret_rest = 0;
        if (tls)
                tls->tls = NULL;
        r = rfb_client_init(c, password);
        if (r < 0)
                return fail(ret_problem, "the password has a character that is not Latin-1, which RFB cannot send", r);
        if (tls)
                rfb_client_use_tls(c, rfb_tls_supported(), tls->ca_pem != NULL);
        while (c->state != RFB_CLIENT_READY) {
                n = handshake_read(fd, tls, rest, RFB_HANDSHAKE_READ, deadline);
                if (n == -ETIMEDOUT)
                        r = fail(ret_problem, "the server did not finish the handshake in time", -ETIMEDOUT);
                else if (n <= 0)
                        r = fail(ret_problem, "the server closed the connection during the handshake",
                                 n < 0 ? (int) n : -ECONNRESET);
                else {
                        used = rfb_client_feed(c, rest, (size_t) n);
                        while ((k = rfb_client_take_out(c, out, sizeof out)) > 0 && r >= 0)
                                if (handshake_write(fd, tls, out, k, deadline) < 0)
                                        r = fail(ret_problem, "cannot write to the server", -EPIPE);
                        if (r >= 0 && used < 0)
                                r = fail(ret_problem, c->problem, (int) used);
                        else if (r >= 0 && c->state == RFB_CLIENT_START_TLS) {
                                r = start_tls(fd, tls, c, (size_t) (n - used), deadline, ret_problem);
                                used = n;
                        }
                }
                if (r < 0) {
                        explicit_bzero(out, sizeof out);
                        rfb_client_done(c);
                        if (tls)
                                tls->tls = rfb_tls_free(tls->tls);
                        return r;
                }
        }
        explicit_bzero(out, sizeof out);
        /* What came after ServerInit in the last read is the session's. */
        memmove(rest, rest + used, (size_t) (n - used));
        *ret_rest = (size_t) (n - used);
        return 0;
}

int rfb_grab(int fd, const char *password, unsigned long long deadline, struct rfb_framebuffer *fb, char **ret_name,
             const char **ret_problem) {
        _cleanup_(rfb_client_done) struct rfb_client c = {};
        _cleanup_free_ uint8_t *buf = malloc(RFB_HANDSHAKE_READ);
        _cleanup_(rfb_update_reader_done) struct rfb_update_reader rd = {};
        uint8_t out[64];
        size_t rest;
        ssize_t n;
        int r;

        *fb = (struct rfb_framebuffer) {};
        if (!buf)
                return fail(ret_problem, "out of memory", -ENOMEM);
        /* One picture, on the caller's fd: no VeNCrypt, whose session would need a pump of its own. */
        r = rfb_handshake(fd, password, NULL, deadline, &c, buf, &rest, ret_problem);
        if (r < 0)
                return r;
        r = rfb_framebuffer_init(fb, c.width, c.height);
        if (r < 0)
                return fail(ret_problem, "out of memory for the framebuffer", r);
        rfb_update_reader_init(&rd);
        r = write_some(fd, out, rfb_request_pixel_format(out), deadline);
        if (r >= 0)
                r = write_some(fd, out, rfb_request_encodings(out), deadline);
        if (r >= 0)
                r = write_some(fd, out, rfb_request_update(false, 0, 0, c.width, c.height, out), deadline);
        if (r < 0) {
                rfb_framebuffer_done(fb);
                return fail(ret_problem, "cannot write to the server", -EPIPE);
        }
        if (rest > 0 && rfb_update_feed(&rd, fb, buf, rest) < 0) {
                rfb_framebuffer_done(fb);
                return fail(ret_problem, "the server sent a message botdesk cannot read", -EPROTO);
        }
        while (rd.updates == 0) {
                n = read_some(fd, buf, RFB_HANDSHAKE_READ, deadline);
                if (n <= 0 || rfb_update_feed(&rd, fb, buf, (size_t) n) < 0) {
                        rfb_framebuffer_done(fb);
                        return fail(ret_problem,
                                    n == -ETIMEDOUT ? "the server sent no whole screen in time"
                                    : n <= 0        ? "the server closed the connection"
                                                    : "the server sent a message botdesk cannot read",
                                    n == -ETIMEDOUT ? -ETIMEDOUT : n <= 0 ? -ECONNRESET : -EPROTO);
                }
        }
        if (ret_name) {
                *ret_name = strdup(c.name ?: "");
                if (!*ret_name) {
                        rfb_framebuffer_done(fb);
                        return fail(ret_problem, "out of memory", -ENOMEM);
                }
        }
        return 0;
}
