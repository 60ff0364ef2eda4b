/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>
#include <xcb/xcb.h>

/*
 * CRIU cannot dump one end of a connection whose other end lives outside
 * the tree it dumps. A checkpointable desktop holds such ends for whatever
 * outside the desktop talks to it: its X server for RFB viewers on
 * rfb.sock (botdesk rfb, the web viewer's streams) and X clients (botdesk
 * mcp, botdesk act, the host's tools), botdesk-browser for DevTools clients
 * on cdp.sock. So before a dump botdesk ends them. It marks the dump
 * (RUNTIME/dumping, which clients read to know they may connect again),
 * then looks through the tree's processes for connected sockets whose peer
 * is outside the tree's PID namespace (pidfd_getfd, SO_PEERCRED):
 *
 *   - the X server's RFB viewers and botdesk's own X clients (botdesk
 *     mcp and act, which open the desktop again) it shuts down; the X
 *     server reads their end and closes them as it closes any client that
 *     left, and round trips on the caller's own connection to it tell when
 *     it has. Other programs' X connections (botdesk exec's) are left:
 *     they would die with them;
 *   - botdesk-browser closes its DevTools clients itself when it sees the
 *     mark, and says so in RUNTIME/dumping.devtools, which we wait for;
 *   - anyone else's (a program of the host on the desktop's bus, say) are
 *     left: the dump fails on them, saying so.
 *
 * The caller's own connections are its to close; it removes both files
 * after the dump (outside_clients_unmark).
 */

struct outside_clients {
        unsigned dropped;       /* ended, and closed by their holder in the tree */
        unsigned left;          /* still open: the dump will fail on them */
};

/* server: the X server's pid; tree_init: the pid 1 of the tree's namespaces (both as we see them); c: our
 * connection to that server; runtime_fd: the desktop's runtime dir. 0, or -errno (then nothing was ended). */
int outside_clients_drop(pid_t server, pid_t tree_init, xcb_connection_t *c, int runtime_fd,
                         struct outside_clients *ret);
void outside_clients_unmark(int runtime_fd);
