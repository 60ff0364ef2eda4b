/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * VeNCrypt's TLS with GnuTLS (rfb-tls.h): the handshake and the reads and
 * writes of the rest of the RFB handshake, each within the caller's
 * deadline on a non-blocking fd, and the pump that gives the session's
 * other users a plain socket. GnuTLS is loaded with dlopen() the first
 * time a remote profile asks for TLS, as thumbnail-png.c loads libpng:
 * linked, its libraries' relocations and its global init cost every CLI
 * process about 1.2 ms, the half of `botdesk status` (tests/bench).
 */
#include <errno.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rfb-tls.h"
#include "buffer.h"
#include "dlopen-util.h"
#include "socket-util.h"
#include "util.h"

/* GnuTLS 3's soname since 3.4; the headers do not say it. */
#define GNUTLS_SONAME "libgnutls.so.30"

#define GNUTLS_SYMBOLS(X) \
        X(gnutls_anon_allocate_client_credentials) \
        X(gnutls_anon_free_client_credentials) \
        X(gnutls_certificate_allocate_credentials) \
        X(gnutls_certificate_free_credentials) \
        X(gnutls_certificate_set_x509_trust_mem) \
        X(gnutls_certificate_verification_status_print) \
        X(gnutls_credentials_set) \
        X(gnutls_deinit) \
        X(gnutls_error_is_fatal) \
        X(gnutls_handshake) \
        X(gnutls_init) \
        X(gnutls_priority_set_direct) \
        X(gnutls_record_check_pending) \
        X(gnutls_record_get_direction) \
        X(gnutls_record_recv) \
        X(gnutls_record_send) \
        X(gnutls_session_get_verify_cert_status) \
        X(gnutls_session_set_verify_cert) \
        X(gnutls_session_set_verify_cert2) \
        X(gnutls_set_default_priority) \
        X(gnutls_strerror) \
        X(gnutls_transport_set_int2)

/* Loaded once and never unloaded: the process ends with its verb, or is the TLS pump. */
static struct {
#define GNUTLS_FIELD(name) typeof(name) *name;
        GNUTLS_SYMBOLS(GNUTLS_FIELD)
#undef GNUTLS_FIELD
        gnutls_free_function *gnutls_free;
} sym;
static bool sym_loaded;

/* Anonymous Diffie-Hellman has no TLS 1.3 form: offered in 1.2, as TigerVNC's and QEMU's servers take it. */
#define ANON_PRIORITY "NORMAL:-VERS-TLS1.3:+ANON-ECDH:+ANON-DH"
/* Each way in the pump: a TLS record is at most 16 KiB, a framebuffer update many of them. */
#define PUMP_BUF_SIZE (256u * 1024u)

struct rfb_tls {
        int fd;
        gnutls_session_t session;
        gnutls_certificate_credentials_t cert;
        gnutls_anon_client_credentials_t anon;
        /* The address the certificate must name: GnuTLS keeps a pointer to it, not a copy, for the session's life. */
        uint8_t ip[16];
        size_t ip_len;
        gnutls_typed_vdata_st want;
};

/* 0, or -ELIBACC when GnuTLS cannot be loaded. */
static int gnutls_load(void) {
        static const struct dlopen_symbol syms[] = {
#define GNUTLS_ROW(name) DLOPEN_SYMBOL(name, sym.name),
                GNUTLS_SYMBOLS(GNUTLS_ROW)
#undef GNUTLS_ROW
                /* Not a function: the library's pointer to its allocator's free. */
                DLOPEN_SYMBOL(gnutls_free, sym.gnutls_free),
        };
        int r;

        if (sym_loaded)
                return 0;
        r = dlopen_symbols(GNUTLS_SONAME, syms, ELEMENTSOF(syms));
        sym_loaded = r >= 0;
        return r;
}

bool rfb_tls_supported(void) {
        return gnutls_load() >= 0;
}

struct rfb_tls *rfb_tls_free(struct rfb_tls *t) {
        if (!t)
                return NULL;
        if (t->session)
                sym.gnutls_deinit(t->session);
        if (t->cert)
                sym.gnutls_certificate_free_credentials(t->cert);
        if (t->anon)
                sym.gnutls_anon_free_client_credentials(t->anon);
        free(t);
        return NULL;
}

/* Until fd is ready for what GnuTLS last waited for, or deadline: 0, -ETIMEDOUT, or -errno. */
static int wait_fd(struct rfb_tls *t, unsigned long long deadline) {
        return fd_wait_until(t->fd, sym.gnutls_record_get_direction(t->session) ? POLLOUT : POLLIN, deadline);
}

static int fail(char *problem, int r, const char *text) {
        snprintf(problem, RFB_TLS_PROBLEM_MAX, "%s", text);
        return r;
}

/* GnuTLS's sentence for a verification status, without its trailing blanks and full stop (ours follows). */
static int verify_failed(struct rfb_tls *t, char *problem) {
        unsigned status = sym.gnutls_session_get_verify_cert_status(t->session);
        gnutls_datum_t out = {};
        size_t n;

        if (sym.gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) < 0 || !out.data)
                return fail(problem, -EKEYREJECTED, "the server's certificate does not verify");
        n = out.size;
        while (n > 0 && (out.data[n - 1] == ' ' || out.data[n - 1] == '.' || out.data[n - 1] == '\n'))
                n--;
        snprintf(problem, RFB_TLS_PROBLEM_MAX, "the server's certificate does not verify: %.*s", (int) n,
                 (const char *) out.data);
        (*sym.gnutls_free)(out.data);
        return -EKEYREJECTED;
}

static int setup(struct rfb_tls *t, bool x509, const void *ca_pem, size_t ca_len, const struct sockaddr *address,
                 char *problem) {
        int r;

        r = sym.gnutls_init(&t->session, GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL);
        if (r < 0) {
                t->session = NULL;
                return fail(problem, -ENOMEM, "cannot start TLS (out of memory)");
        }
        if (!x509) {
                if (sym.gnutls_anon_allocate_client_credentials(&t->anon) < 0 ||
                    sym.gnutls_priority_set_direct(t->session, ANON_PRIORITY, NULL) < 0 ||
                    sym.gnutls_credentials_set(t->session, GNUTLS_CRD_ANON, t->anon) < 0)
                        return fail(problem, -ENOMEM, "cannot set up anonymous TLS");
        } else {
                gnutls_datum_t ca = { .data = (unsigned char *) (uintptr_t) ca_pem, .size = (unsigned) ca_len };

                if (sym.gnutls_certificate_allocate_credentials(&t->cert) < 0 || sym.gnutls_set_default_priority(t->session) < 0 ||
                    sym.gnutls_credentials_set(t->session, GNUTLS_CRD_CERTIFICATE, t->cert) < 0)
                        return fail(problem, -ENOMEM, "cannot set up TLS");
                if (!ca_pem || ca_len > UINT32_MAX || sym.gnutls_certificate_set_x509_trust_mem(t->cert, &ca, GNUTLS_X509_FMT_PEM) <= 0)
                        return fail(problem, -EINVAL, "remote_ca_file holds no PEM certificate");
                if (address && address->sa_family == AF_INET) {
                        memcpy(t->ip, &((const struct sockaddr_in *) (const void *) address)->sin_addr, 4);
                        t->ip_len = 4;
                } else if (address && address->sa_family == AF_INET6) {
                        memcpy(t->ip, &((const struct sockaddr_in6 *) (const void *) address)->sin6_addr, 16);
                        t->ip_len = 16;
                }
                /* Verified in the handshake, before the client says a word of its own inside TLS. */
                if (t->ip_len > 0) {
                        t->want = (gnutls_typed_vdata_st) { .type = GNUTLS_DT_IP_ADDRESS, .data = t->ip,
                                                            .size = (unsigned) t->ip_len };
                        sym.gnutls_session_set_verify_cert2(t->session, &t->want, 1, 0);
                } else
                        /* exec: the command chose the peer, and its address is not ours to know: the chain alone. */
                        sym.gnutls_session_set_verify_cert(t->session, NULL, 0);
        }
        sym.gnutls_transport_set_int2(t->session, t->fd, t->fd);
        return 0;
}

int rfb_tls_start(int fd, bool x509, const void *ca_pem, size_t ca_len, const struct sockaddr *address,
                  unsigned long long deadline, struct rfb_tls **ret, char problem[static RFB_TLS_PROBLEM_MAX]) {
        _cleanup_(rfb_tls_freep) struct rfb_tls *t = calloc(1, sizeof *t);
        int r;

        problem[0] = '\0';
        if (!t)
                return fail(problem, -ENOMEM, "out of memory");
        if (gnutls_load() < 0)
                return fail(problem, -ELIBACC, "cannot load GnuTLS (" GNUTLS_SONAME ")");
        t->fd = fd;
        r = setup(t, x509, ca_pem, ca_len, address, problem);
        if (r < 0)
                return r;
        for (;;) {
                r = sym.gnutls_handshake(t->session);
                if (r == 0)
                        break;
                if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
                        r = wait_fd(t, deadline);
                        if (r == -ETIMEDOUT)
                                return fail(problem, r, "the server did not finish the TLS handshake in time");
                        if (r < 0)
                                return fail(problem, r, "cannot wait for the server");
                        continue;
                }
                if (r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR)
                        return verify_failed(t, problem);
                if (!sym.gnutls_error_is_fatal(r))
                        continue;
                if (r == GNUTLS_E_PREMATURE_TERMINATION || r == GNUTLS_E_PULL_ERROR || r == GNUTLS_E_PUSH_ERROR)
                        return fail(problem, -ECONNRESET, "the server closed the connection during the TLS handshake");
                /* GnuTLS's words for what failed: the library's, not the server's. */
                snprintf(problem, RFB_TLS_PROBLEM_MAX, "the TLS handshake failed: %s", sym.gnutls_strerror(r));
                return -EPROTO;
        }
        *ret = TAKE_PTR(t);
        return 0;
}

ssize_t rfb_tls_read(struct rfb_tls *t, void *buf, size_t size, unsigned long long deadline) {
        for (;;) {
                ssize_t n = sym.gnutls_record_recv(t->session, buf, size);
                int r;

                if (n >= 0)
                        return n;
                if (n == GNUTLS_E_AGAIN) {
                        r = wait_fd(t, deadline);
                        if (r < 0)
                                return r;
                        continue;
                }
                /* Interrupted, or a warning (a renegotiation asked for, which is ignored). */
                if (n == GNUTLS_E_INTERRUPTED || !sym.gnutls_error_is_fatal((int) n))
                        continue;
                return n == GNUTLS_E_PREMATURE_TERMINATION || n == GNUTLS_E_PULL_ERROR ? -ECONNRESET : -EPROTO;
        }
}

int rfb_tls_write(struct rfb_tls *t, const void *data, size_t size, unsigned long long deadline) {
        const uint8_t *p = data;

        while (size > 0) {
                /* After GNUTLS_E_AGAIN the same call again: the record is already GnuTLS's to flush. */
                ssize_t n = sym.gnutls_record_send(t->session, p, size);
                int r;

                if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
                        r = wait_fd(t, deadline);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (n < 0)
                        return -EPIPE;
                p += n;
                size -= (size_t) n;
        }
        return 0;
}

void rfb_tls_pump(struct rfb_tls *t, int plain) {
        /* The pump's own process: static, not on its stack. */
        static uint8_t down_data[PUMP_BUF_SIZE], up_data[PUMP_BUF_SIZE];
        struct buffer down = BUFFER_FIXED(down_data), up = BUFFER_FIXED(up_data);     /* server -> plain, plain -> server */
        bool tls_eof = false, plain_eof = false;
        size_t blocked = 0;                     /* a record GnuTLS holds to send: the size it was asked */

        for (;;) {
                struct pollfd pfd[2] = { { .fd = plain }, { .fd = t->fd } };
                int timeout = -1;

                /* Everything TLS decrypts, what GnuTLS already holds first, until the buffer is full or the socket dry. */
                while (!tls_eof && buffer_room(&down) > 0) {
                        size_t room = buffer_reserve(&down, 1);
                        ssize_t n = sym.gnutls_record_recv(t->session, buffer_tail(&down), room);

                        if (n > 0)
                                buffer_advance(&down, (size_t) n);
                        else if (n == GNUTLS_E_AGAIN)
                                break;
                        else if (n == 0 || sym.gnutls_error_is_fatal((int) n))
                                tls_eof = true;
                }
                if (buffer_len(&down) > 0 && buffer_send(plain, &down) < 0)
                        return;
                if (!plain_eof && buffer_room(&up) > 0) {
                        ssize_t n = buffer_recv(plain, &up);

                        if (n == 0 || (n < 0 && n != -EAGAIN))
                                plain_eof = true;
                }
                while (buffer_len(&up) > 0) {
                        /* After GNUTLS_E_AGAIN, the same size again: GnuTLS flushes the record it made. */
                        size_t want = blocked > 0 ? blocked : buffer_len(&up);
                        ssize_t n = sym.gnutls_record_send(t->session, buffer_data(&up), want);

                        if (n == GNUTLS_E_AGAIN) {
                                blocked = want;
                                break;
                        }
                        if (n == GNUTLS_E_INTERRUPTED)
                                continue;
                        if (n < 0)
                                return;
                        blocked = 0;
                        buffer_consume(&up, (size_t) n);
                }
                if (plain_eof && buffer_len(&up) == 0)
                        return;
                if (tls_eof && buffer_len(&down) == 0)
                        return;

                if (!plain_eof && buffer_room(&up) > 0)
                        pfd[0].events |= POLLIN;
                if (buffer_len(&down) > 0)
                        pfd[0].events |= POLLOUT;
                if (!tls_eof && buffer_room(&down) > 0)
                        pfd[1].events |= POLLIN;
                if (blocked > 0)
                        pfd[1].events |= POLLOUT;
                /* A side with nothing to wait for is left out: its hang-up alone would wake the loop for nothing. */
                for (size_t i = 0; i < 2; i++)
                        if (pfd[i].events == 0)
                                pfd[i].fd = -1;
                if (!tls_eof && buffer_room(&down) > 0 && sym.gnutls_record_check_pending(t->session) > 0)
                        timeout = 0;
                if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
                        return;
        }
}
