/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rfb-client.h"
#include "rfb-client-update.h"
#include "rfb-tls.h"

/*
 * One picture of a VNC server's screen, on a connected socket or a
 * command's stdio (fd, blocking or not): the handshake (rfb-client.h) with
 * password (NULL for none), then 32-bit true colour, ZRLE, CopyRect and Raw, one
 * full FramebufferUpdate painted into *fb (rfb-client-update.h), all
 * before deadline (CLOCK_MONOTONIC usec). 0 with *fb and, unless NULL, the
 * server's name in *ret_name (new); else a negative errno with the problem
 * in words (never the server's) in *ret_problem: rfb_client_feed()'s
 * errors, -ETIMEDOUT, -ECONNRESET (the server closed), -EPIPE, -EPROTO (an
 * update botdesk cannot read), -ENOMEM.
 */
int rfb_grab(int fd, const char *password, unsigned long long deadline, struct rfb_framebuffer *fb, char **ret_name,
             const char **ret_problem);

/* What one read of the handshake takes: the rest of it after ServerInit is the session's. */
#define RFB_HANDSHAKE_READ (64u * 1024u)

/* VeNCrypt for rfb_handshake(): what the caller knows, and what it gets back. */
struct rfb_handshake_tls {
        const void *ca_pem;             /* remote_ca_file's PEM, or NULL (rfb_client_use_tls()'s rule) */
        size_t ca_len;
        const struct sockaddr *address; /* the IP the certificate must name; NULL for exec: */
        struct rfb_tls *tls;            /* out: the TLS the session goes on in, or NULL (plain RFB) */
        char problem[RFB_TLS_PROBLEM_MAX]; /* out: room for a problem made at run time */
};

/*
 * The handshake alone, as rfb_grab() does it: 0 with *c ready (the
 * caller's to rfb_client_done()) and what the server sent after ServerInit
 * in rest (*ret_rest bytes); else as rfb_grab(), *c done. With tls (NULL:
 * no VeNCrypt) and a build with TLS, VeNCrypt by its rule: then the rest
 * of the handshake runs inside TLS, tls->tls is the session to go on in
 * (the caller's to rfb_tls_free()) and rest is decrypted; *ret_problem may
 * point into tls->problem. Its errors add -EKEYREJECTED (the server's
 * certificate does not verify) and -EINVAL (ca_pem has no certificate).
 */
int rfb_handshake(int fd, const char *password, struct rfb_handshake_tls *tls, unsigned long long deadline,
                  struct rfb_client *c, uint8_t rest[static RFB_HANDSHAKE_READ], size_t *ret_rest,
                  const char **ret_problem);
