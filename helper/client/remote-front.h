/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "rfb-client.h"

/*
 * A profile that fronts a VNC server botdesk did not start (remote =), made
 * to look like a local desktop's rfb.sock: botdesk connects to the server
 * (remote-connect.h), authenticates with the profile's password
 * (remote-password.h, rfb-grab.h), and a process of its own, the front,
 * greets whoever reads the other end of a socketpair with security None and
 * the server's ServerInit (rfb-front.h), then carries the bytes both ways
 * unchanged. Every verb that serves a remote profile speaks plain RFB to
 * that fd as it does to Xvnc's socket, and the password stays in this
 * process: no viewer, no argv, no log ever holds it.
 *
 * The front ends when the fd is closed (or the server closes): closing it is
 * all a caller that dies has to do; remote_front_close() also reaps the
 * front and ends the command of an exec: transport.
 */

#define REMOTE_FRONT_HANDSHAKE_SECONDS 10u

/*
 * botdesk's own session with the server, authenticated: where the front and
 * remote-screen.h start. With VeNCrypt (remote_ca_file, or a server that
 * offers only TLS) fd is still plain RFB: one end of a socketpair whose
 * other end a pump process (rfb_tls_pump()) carries through TLS.
 */
struct remote_session {
        int fd;                         /* non-blocking, O_CLOEXEC */
        pid_t transport;                /* exec: COMMAND's child, else 0 */
        pid_t pump;                     /* the TLS pump, else 0 */
        struct rfb_client client;       /* ready: ServerInit's size, pixel format and name */
        uint8_t *rest;                  /* what the server sent after ServerInit */
        size_t n_rest;
};

/*
 * Connect to profile's server (config c, remote = set) and authenticate
 * with the profile's password, within REMOTE_FRONT_HANDSHAKE_SECONDS; a
 * peer at a public address is warned about. A CLI exit code, said in the
 * project's words (never the server's): EXIT_FAILED for an unreadable
 * password, a server that cannot be reached or refuses, EXIT_USAGE for a
 * remote = that does not parse. The server's size is kept in the
 * profile's runtime dir (dirfd, or -1), for status.
 */
int remote_session_open(const char *profile, const struct bd_config *c, int dirfd, struct remote_session *ret);
void remote_session_close(struct remote_session *s);

struct remote_front {
        int fd;                         /* the plain RFB session, O_CLOEXEC, blocking */
        pid_t front;                    /* the front's process */
        pid_t transport;                /* exec: COMMAND's child, else 0 */
        pid_t pump;                     /* the TLS pump (remote_session), else 0 */
        uint16_t width, height;         /* ServerInit's */
};

/* A session (remote_session_open(), the same exit codes) handed to a front of its own. */
int remote_front_open(const char *profile, const struct bd_config *c, int dirfd, struct remote_front *ret);

/* The size the last session found ("WxH", new), or -errno (-ENOENT: none yet). */
#define REMOTE_GEOMETRY_FILE "remote-geometry"
int remote_geometry_read_at(int dirfd, char **ret);

/* Close the session, reap the front and the pump, end the transport's command. */
void remote_front_close(struct remote_front *f);
