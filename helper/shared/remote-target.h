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
