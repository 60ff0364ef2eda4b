/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Run botdesk web until SIGTERM or SIGINT. listen_spec: NULL for the socket
 * systemd passed (botdesk-web.socket), else the default 0600 Unix socket
 * RUNTIME_BASE/web.sock; "unix:PATH"; or "HOST:PORT" on a loopback address
 * (port 0 picks one; the URL is printed and written to RUNTIME_BASE/web.url).
 * novnc_dir: NULL to look in the usual places. ping: seconds of silence on
 * a stream before a ping (and as many again before it is closed).
 * Returns 0 or -errno (said).
 */
int web_server_run(const char *listen_spec, const char *novnc_dir, unsigned ping);
