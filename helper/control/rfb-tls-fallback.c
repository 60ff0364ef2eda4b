/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * VeNCrypt's TLS in a build without GnuTLS (rfb-tls.h): none. The
 * handshake never gets here (rfb_client_use_tls() is told TLS cannot be
 * run, and refuses VeNCrypt in words of its own); these say the same
 * should a caller ask anyway.
 */
#include <errno.h>
#include <stdio.h>

#include "rfb-tls.h"

bool rfb_tls_supported(void) {
        return false;
}

int rfb_tls_start(int fd, bool x509, const void *ca_pem, size_t ca_len, const struct sockaddr *address,
                  unsigned long long deadline, struct rfb_tls **ret, char problem[static RFB_TLS_PROBLEM_MAX]) {
        *ret = NULL;
        snprintf(problem, RFB_TLS_PROBLEM_MAX, "botdesk was built without GnuTLS and cannot speak VeNCrypt (TLS)");
        return -EPROTONOSUPPORT;
}

ssize_t rfb_tls_read(struct rfb_tls *t, void *buf, size_t size, unsigned long long deadline) {
        return -EPROTONOSUPPORT;
}

int rfb_tls_write(struct rfb_tls *t, const void *data, size_t size, unsigned long long deadline) {
        return -EPROTONOSUPPORT;
}

void rfb_tls_pump(struct rfb_tls *t, int plain) {
}

struct rfb_tls *rfb_tls_free(struct rfb_tls *t) {
        return NULL;
}
