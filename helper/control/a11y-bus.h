/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

/*
 * The accessibility reader's connections, each to an address it did not
 * choose (the session bus's from the runtime dir's env file, the
 * accessibility bus's from org.a11y.Bus, an application's from the
 * application): each address through bus_address_sanitize() (one Unix
 * socket, nothing sd-bus could exec or reach over the network), and each
 * peer checked on the socket itself (SO_PEERCRED), before sd-bus gets the
 * fd and writes a byte: our uid and a process of the desktop (one whose
 * environment holds the desktop's BOTDESK_TOKEN, as the helper's record
 * names it) always, and for an application's own socket the pid the
 * accessibility bus knows it by.
 * a11y_bus_open() (a11y.h) opens the first two.
 */

/* The errno by which a11y_app_connect() says the peer is not the application, or not the desktop's. */
#define A11Y_PEER_REFUSED EPERM

/*
 * Connect to an application's own socket at address, and check that the
 * process at its other end has our uid, is pid (the application's, as
 * the accessibility bus reports it) and carries the desktop's token. 0 and *ret; -EINVAL or
 * -EPROTONOSUPPORT for an address refused (bus_address_sanitize()),
 * -A11Y_PEER_REFUSED for a peer that is someone else (or pid 0: unknown);
 * -ENOTCONN when the socket, its address accepted, could not be reached or
 * spoke no D-Bus (the application is then read through the bus); -ENOMEM.
 */
int a11y_app_connect(const char *address, pid_t pid, const char *token, uint64_t timeout_usec, sd_bus **ret);
