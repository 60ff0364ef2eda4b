/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

/*
 * What `remote =` names for a profile whose desktop is a VNC server botdesk
 * did not start: an IP literal and a port (IPv4 A.B.C.D:PORT, IPv6
 * [ADDR]:PORT) or a command whose stdio speaks RFB (exec:COMMAND, such as
 * ssh HOST nc 127.0.0.1 5900). Never a name: botdesk resolves none for a
 * remote desktop, so what the configuration says is what it connects to
 * (no DNS, no rebinding).
 */

enum remote_kind {
        REMOTE_ADDRESS,
        REMOTE_EXEC,
};

struct remote_target {
        enum remote_kind kind;
        struct sockaddr_storage address;        /* REMOTE_ADDRESS, the port in it */
        socklen_t address_len;
        bool loopback;                          /* 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104 */
        const char *command;                    /* REMOTE_EXEC: the text after "exec:", in the parsed string */
};

/* Parses value: 0, or -EINVAL with *ret_problem the rule it breaks (for a FILE:LINE error). */
int remote_target_parse(const char *value, struct remote_target *ret, const char **ret_problem);

/*
 * Whether t is an address outside the private ranges (10/8, 172.16/12,
 * 192.168/16, 100.64/10, link-local, loopback; fc00::/7, fe80::/10, ::1):
 * RFB crosses the network in clear, so such a peer is warned about
 * (exec: carries it through the command's own transport: never).
 */
bool remote_target_public(const struct remote_target *t);

#define REMOTE_PUBLIC_WARNING "the VNC server is at a public address and RFB crosses the network unencrypted; " \
                              "prefer remote = exec:ssh HOST nc 127.0.0.1 PORT"
