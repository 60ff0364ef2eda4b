/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * The TLS of VeNCrypt (rfb-client.h's RFB_CLIENT_START_TLS), the client's
 * side, with GnuTLS (rfb-tls.c; rfb-tls-fallback.c in a build without it
 * refuses). Two kinds: X509, where the server's certificate must chain to
 * a CA the user named and carry the IP address botdesk connected to; and
 * anonymous Diffie-Hellman, which encrypts but authenticates nobody (TLS
 * 1.2: TLS 1.3 has no anonymous key exchange).
 *
 * After the handshake the RFB session goes on inside TLS: rfb-grab.c reads
 * the rest of the handshake through it, and a pump process
 * (rfb_tls_pump()) gives everyone else a plain socket of it.
 */

/* Room for a problem made at run time (the certificate's, in GnuTLS's words: never the server's). */
#define RFB_TLS_PROBLEM_MAX 512u

struct rfb_tls;

/* Whether this build speaks TLS at all. */
bool rfb_tls_supported(void);

/*
 * A TLS client on fd (connected, non-blocking, the caller's still), its
 * handshake done before deadline (CLOCK_MONOTONIC usec). x509: verified
 * against the PEM CAs in ca_pem (ca_len bytes) and, unless address is
 * NULL (exec:, whose command chose the peer), that address as an IP
 * subjectAltName; else anonymous. 0 with *ret (new); else -errno and the
 * problem in words in problem: -EKEYREJECTED the certificate does not
 * verify, -EINVAL ca_pem holds no certificate, -ETIMEDOUT, -ECONNRESET,
 * -EPROTO the handshake failed, -EPROTONOSUPPORT no TLS in this build,
 * -ENOMEM.
 */
int rfb_tls_start(int fd, bool x509, const void *ca_pem, size_t ca_len, const struct sockaddr *address,
                  unsigned long long deadline, struct rfb_tls **ret, char problem[static RFB_TLS_PROBLEM_MAX]);

/* What the server sent, decrypted: its size, 0 at its end, or -errno (-ETIMEDOUT past deadline). */
ssize_t rfb_tls_read(struct rfb_tls *t, void *buf, size_t size, unsigned long long deadline);
/* All of data, encrypted, before deadline: 0 or -errno. */
int rfb_tls_write(struct rfb_tls *t, const void *data, size_t size, unsigned long long deadline);

/*
 * The pump's loop, in a process of its own: bytes between t (what TLS
 * holds decrypted first) and plain, a non-blocking socket, both ways,
 * until either side ends or fails. Returns then.
 */
void rfb_tls_pump(struct rfb_tls *t, int plain);

/*
 * Frees t, without a word to the server (the session may go on in a
 * pump's copy of it); the fd stays the caller's. NULL.
 */
struct rfb_tls *rfb_tls_free(struct rfb_tls *t);
static inline void rfb_tls_freep(struct rfb_tls **t) {
        *t = rfb_tls_free(*t);
}
