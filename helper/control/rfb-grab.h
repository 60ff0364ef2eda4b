/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rfb-client.h"
#include "rfb-client-update.h"

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

/*
 * The handshake alone, as rfb_grab() does it: 0 with *c ready (the
 * caller's to rfb_client_done()) and what the server sent after ServerInit
 * in rest (*ret_rest bytes); else as rfb_grab(), *c done.
 */
int rfb_handshake(int fd, const char *password, unsigned long long deadline, struct rfb_client *c,
                  uint8_t rest[static RFB_HANDSHAKE_READ], size_t *ret_rest, const char **ret_problem);
