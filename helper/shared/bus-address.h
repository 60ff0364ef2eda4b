/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The D-Bus addresses botdesk connects to without having chosen them: the
 * session bus's, read from a desktop's runtime dir (which the desktop's
 * own programs can write), the accessibility bus's as org.a11y.Bus says it,
 * and each application's as the application says it. sd-bus connects to
 * whatever an address names, and some of its transports run code or leave
 * the machine: "unixexec:path=/bin/sh,argv1=-c,argv2=..." forks and execs
 * in the caller, "tcp:" connects anywhere, and a list ("a;b") tries each in
 * turn. So an address from there is read only here: one Unix socket, or
 * refused. bus_address_socket() gives the socket to connect to (the peer is
 * then checked on the fd, before sd-bus gets it and writes a byte);
 * bus_address_sanitize() an address of its own making, for sd-bus.
 */

/*
 * Accept address when it is exactly one entry "unix:path=/ABSOLUTE" or
 * "unix:abstract=NAME" (both at most 107 bytes: what sun_path holds), with at most one more key, "guid=" and 32 hex
 * digits, each key once; values in D-Bus's escaping (%XX; a raw byte must
 * be printable ASCII other than , ; = and %), never a NUL, a path or name
 * that fits a sockaddr_un. On success *ret (when not NULL) is the same
 * address written afresh (every byte outside D-Bus's plain set escaped),
 * so that what sd-bus parses is what was checked.
 *
 * Returns 0; -EPROTONOSUPPORT for any transport other than unix: (tcp:,
 * unixexec:, nonce-tcp:, launchd:, autolaunch:, systemd: ...); -EINVAL for
 * anything else refused: a list (';'), an empty value, another key (dir=,
 * tmpdir=, runtime=, ...), a key twice, both or neither of path and
 * abstract, a relative path, a bad escape or guid; -ENOMEM.
 */
int bus_address_sanitize(const char *address, char **ret);

/*
 * The socket that address names, as socket_connect_at() (socket-util.h)
 * takes it: the path, or "@NAME" for an abstract one; a new string in
 * *ret. The same refusals as bus_address_sanitize().
 */
int bus_address_socket(const char *address, char **ret);

/*
 * address with its socket old_socket ("unix:path=OLD_SOCKET[,guid=...]")
 * named new_socket instead: a spare's bus adopted by a profile, a fork's
 * bus as its processes know it and as the host does. Any other address
 * comes back the same. A new string, or NULL.
 */
char *bus_address_moved(const char *address, const char *old_socket, const char *new_socket);
