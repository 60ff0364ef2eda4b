/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A desktop's network policy ([network] mode, allow, deny): what its
 * processes may reach over IP. The kernel enforces it through systemd's
 * IP firewall on the desktop's unit (IPAddressDeny=, IPAddressAllow=:
 * cgroup BPF), so nothing in the desktop can go around it; its Unix
 * sockets are not IP and stay open.
 *   open       everything but the deny list
 *   allowlist  nothing but the allow list
 *   offline    nothing
 */

enum net_mode {
        NET_MODE_OPEN,
        NET_MODE_ALLOWLIST,
        NET_MODE_OFFLINE,
        _NET_MODE_MAX,
};

struct net_cidr {
        int family;             /* AF_INET or AF_INET6 */
        uint8_t addr[16];       /* network byte order; the first 4 for AF_INET */
        unsigned prefix;        /* 0..32 or 0..128 */
};

/* allow's and deny's entries: address ranges, and (allow only) domain names. */
struct net_list {
        struct net_cidr *cidrs;
        size_t n_cidrs;
        char **domains;         /* strv: "example.org", "*.example.org"; NULL when none */
};

/* The modes' words by enum net_mode, NULL after the last. */
extern const char *const net_mode_words[_NET_MODE_MAX + 1];

const char *net_mode_to_string(enum net_mode m);
/* The mode a word names, or -EINVAL. */
int net_mode_from_string(const char *s);

/*
 * Parses a list of entries separated by spaces or commas: CIDRs
 * (192.0.2.0/24, 2001:db8::/32; an address alone is its /32 or /128) and,
 * with domains, domain names (example.org, or *.example.org for the names
 * one label below it). 0; -EINVAL with *ret_problem naming the entry and
 * the rule it breaks (a new string; NULL on ENOMEM); -ENOMEM. An empty
 * text is an empty list.
 */
int net_list_parse(const char *text, bool domains, struct net_list *ret, char **ret_problem);
void net_list_done(struct net_list *l);

/* Whether an address (AF_INET: 4 bytes, AF_INET6: 16) lies in one of l's ranges. */
bool net_list_covers(const struct net_list *l, int family, const uint8_t *addr);

/* c as text, "192.0.2.0/24"; buf of at least NET_CIDR_TEXT_MAX bytes: the longest address inet_ntop() writes
 * (INET6_ADDRSTRLEN, its NUL included), "/128". */
#define NET_CIDR_TEXT_MAX (46 + 4)
char *net_cidr_format(const struct net_cidr *c, char buf[static NET_CIDR_TEXT_MAX]);

/*
 * The address the desktop's helper sends one UDP datagram to at its start
 * to prove that the kernel enforces the policy (EPERM where it does): a
 * loopback address nobody serves, always on the deny side, never in allow.
 * -ENOENT when allow covers every candidate.
 */
int net_policy_probe_address(const struct net_list *allow, uint8_t ret[static 4]);

struct net_policy {
        enum net_mode mode;
        struct net_list allow, deny;
        /* The desktop's filtering proxy (network-proxy.h), the way to allow's domain names: its
         * address is allowed to the desktop unless the mode is offline. */
        bool proxy;
        uint8_t proxy_address[4];
};

/* The proxy's port on its address. */
#define NET_PROXY_PORT 3128

/* The loopback address of profile's proxy: one in 127.66.0.0/16 per uid and profile, so that no
 * desktop may reach another's proxy (nor the host's other loopback services). */
void net_proxy_address(unsigned uid, const char *profile, uint8_t ret[static 4]);

/* Whether a desktop started with policy p needs the proxy: allowlist with domain names. */
static inline bool net_policy_wants_proxy(const struct net_policy *p) {
        return p->mode == NET_MODE_ALLOWLIST && p->allow.domains;
}

/* The proxy's filter for p: one extended regular expression a line, anchored, matching the host
 * names allow lets through (nothing for offline; NULL for open, which filters nothing). */
int net_policy_proxy_filter(const struct net_policy *p, char **ret);

/* The policy of a mode and the texts of allow and deny, as net_list_parse() judges them. */
int net_policy_parse(unsigned mode, const char *allow, const char *deny, struct net_policy *ret, char **ret_problem);
void net_policy_done(struct net_policy *p);

/* Whether the kernel must refuse something: a mode other than open, or a deny list. */
static inline bool net_policy_restricts(const struct net_policy *p) {
        return p->mode != NET_MODE_OPEN || p->deny.n_cidrs > 0;
}
