/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `remote =` parsed (remote-target.h): inet_pton() judges the address, so
 * what is not a literal is refused rather than resolved.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "argv-split.h"
#include "remote-target.h"
#include "util.h"

static int problem(const char **ret_problem, const char *text) {
        *ret_problem = text;
        return -EINVAL;
}

static int parse_port(const char *s, uint16_t *ret) {
        unsigned long long v;

        if (parse_uint(s, 65535, &v) < 0 || v == 0)
                return -EINVAL;
        *ret = (uint16_t) v;
        return 0;
}

int remote_target_parse(const char *value, struct remote_target *ret, const char **ret_problem) {
        struct remote_target t = {};
        const char *command = startswith(value, "exec:"), *colon, *port;
        char host[INET6_ADDRSTRLEN + 1];
        uint16_t p;

        if (command) {
                _cleanup_strv_free_ char **words = NULL;
                int r = argv_split(command, &words);

                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return problem(ret_problem, "exec: needs a command whose standard input and output speak RFB "
                                                    "(e.g. exec:ssh HOST nc 127.0.0.1 5900), quoted as a shell would");
                t.kind = REMOTE_EXEC;
                t.command = command;
                *ret = t;
                return 0;
        }
        if (value[0] == '[') {
                const char *end = strchr(value, ']');

                if (!end || end[1] != ':' || (size_t) (end - value - 1) >= sizeof host)
                        return problem(ret_problem, "an IPv6 address is written [ADDRESS]:PORT");
                memcpy(host, value + 1, (size_t) (end - value - 1));
                host[end - value - 1] = '\0';
                port = end + 2;
        } else {
                colon = strrchr(value, ':');
                if (!colon || (size_t) (colon - value) >= sizeof host)
                        return problem(ret_problem, "not ADDRESS:PORT, [IPv6]:PORT or exec:COMMAND");
                memcpy(host, value, (size_t) (colon - value));
                host[colon - value] = '\0';
                port = colon + 1;
        }
        if (parse_port(port, &p) < 0)
                return problem(ret_problem, "the port must be 1-65535");
        if (value[0] == '[') {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) &t.address;

                if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
                        return problem(ret_problem, "not an IPv6 address between the brackets");
                a->sin6_family = AF_INET6;
                a->sin6_port = htons(p);
                t.address_len = sizeof *a;
                t.loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) ||
                             (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) && a->sin6_addr.s6_addr[12] == 127);
        } else {
                struct sockaddr_in *a = (struct sockaddr_in *) &t.address;

                if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
                        return problem(ret_problem, "not an IP address: botdesk resolves no names for a remote desktop "
                                                    "(no DNS, so no rebinding); give an IP literal, [IPv6]:PORT, or "
                                                    "exec:COMMAND");
                a->sin_family = AF_INET;
                a->sin_port = htons(p);
                t.address_len = sizeof *a;
                t.loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
        }
        t.kind = REMOTE_ADDRESS;
        *ret = t;
        return 0;
}

/* An IPv4 address (host order) in the ranges a VNC server of one's own usually sits in. */
static bool ipv4_private(uint32_t a) {
        return (a >> 24) == 10 || (a >> 24) == 127 || (a >> 20) == (172u << 4 | 1u) || (a >> 16) == (192u << 8 | 168u) ||
               (a >> 22) == (100u << 2 | 1u) /* 100.64.0.0/10 */ || (a >> 16) == (169u << 8 | 254u);
}

bool remote_target_public(const struct remote_target *t) {
        if (t->kind != REMOTE_ADDRESS)
                return false;
        if (t->address.ss_family == AF_INET)
                return !ipv4_private(ntohl(((const struct sockaddr_in *) &t->address)->sin_addr.s_addr));
        const struct in6_addr *a = &((const struct sockaddr_in6 *) &t->address)->sin6_addr;

        if (IN6_IS_ADDR_V4MAPPED(a))
                return !ipv4_private((uint32_t) a->s6_addr[12] << 24 | (uint32_t) a->s6_addr[13] << 16 |
                                     (uint32_t) a->s6_addr[14] << 8 | a->s6_addr[15]);
        /* fc00::/7 unique local, fe80::/10 link-local, ::1 */
        return !(IN6_IS_ADDR_LOOPBACK(a) || (a->s6_addr[0] & 0xfe) == 0xfc || IN6_IS_ADDR_LINKLOCAL(a));
}
