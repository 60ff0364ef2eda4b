/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/*
 * Start argv with stdin and stdout stdio_fd (when < 0: stdin /dev/null,
 * stdout out_fd), stderr err_fd, the caller's environment, every other fd
 * closed and a parent-death signal: 0 and the pid, or -errno.
 */
typedef int (*web_spawn_fn)(char *const *argv, int stdio_fd, int out_fd, int err_fd, pid_t *ret_pid);

/*
 * Run botdesk web until SIGTERM or SIGINT. listen_spec: NULL for the socket
 * systemd passed (botdesk-web.socket), else the default 0600 Unix socket
 * RUNTIME_BASE/web.sock; "unix:PATH"; or "HOST:PORT" on a loopback address
 * (port 0 picks one; the URL is printed and written to RUNTIME_BASE/web.url).
 * novnc_dir: NULL to look in the usual places. ping: seconds of silence on
 * a stream before a ping (and as many again before it is closed).
 * spawn: how a child of botdesk's own CLI starts for a profile placed
 * through an exec prefix (web-placed.c).
 * Returns 0 or -errno (said).
 */
int web_server_run(const char *listen_spec, const char *novnc_dir, unsigned ping, web_spawn_fn spawn);
