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
 * turn. So an address from there reaches sd-bus only through
 * bus_address_sanitize(), which accepts exactly one Unix socket and hands
 * back an address of its own making.
 */

/*
 * Accept address when it is exactly one entry "unix:path=/ABSOLUTE" or
 * "unix:abstract=NAME", with at most one more key, "guid=" and 32 hex
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
