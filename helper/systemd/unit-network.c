/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "bus-cleanup.h"
#include "unit-network.h"
#include "unit.h"
#include "util.h"

static const struct net_cidr any[] = {
        { .family = AF_INET, .prefix = 0 },
        { .family = AF_INET6, .prefix = 0 },
};

static int append_cidr(sd_bus_message *m, const struct net_cidr *c) {
        int r = sd_bus_message_open_container(m, 'r', "iayu");

        if (r >= 0)
                r = sd_bus_message_append(m, "i", (int32_t) c->family);
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'y', c->addr, c->family == AF_INET ? 4 : 16);
        if (r >= 0)
                r = sd_bus_message_append(m, "u", (uint32_t) c->prefix);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

/* name = the ranges of a and b: "(sv)" with v of a(iayu). systemd adds what a list names to the
 * property's ranges and resets them for an empty one: so first the empty list, then the ranges. */
static int append_one(sd_bus_message *m, const char *name, const struct net_cidr *a, size_t n_a,
                      const struct net_cidr *b, size_t n_b) {
        int r = sd_bus_message_open_container(m, 'r', "sv");

        if (r >= 0)
                r = sd_bus_message_append(m, "s", name);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "a(iayu)");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(iayu)");
        for (size_t i = 0; r >= 0 && i < n_a; i++)
                r = append_cidr(m, &a[i]);
        for (size_t i = 0; r >= 0 && i < n_b; i++)
                r = append_cidr(m, &b[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int append_ranges(sd_bus_message *m, const char *name, const struct net_cidr *a, size_t n_a,
                         const struct net_cidr *b, size_t n_b) {
        int r = append_one(m, name, NULL, 0, NULL, 0);

        if (r >= 0 && n_a + n_b > 0)
                r = append_one(m, name, a, n_a, b, n_b);
        return r;
}

int unit_network_append(sd_bus_message *m, const struct net_policy *p) {
        struct net_cidr probe = { .family = AF_INET, .prefix = 32 }, proxy = { .family = AF_INET, .prefix = 32 };
        int r;

        if (p->mode != NET_MODE_OPEN) {
                r = append_ranges(m, "IPAddressDeny", any, ELEMENTSOF(any), NULL, 0);
                if (p->proxy && p->mode == NET_MODE_ALLOWLIST)
                        memcpy(proxy.addr, p->proxy_address, 4);
                if (r >= 0)
                        r = append_ranges(m, "IPAddressAllow", p->mode == NET_MODE_ALLOWLIST ? p->allow.cidrs : NULL,
                                          p->mode == NET_MODE_ALLOWLIST ? p->allow.n_cidrs : 0, &proxy,
                                          p->proxy && p->mode == NET_MODE_ALLOWLIST ? 1 : 0);
                return r;
        }
        /* Open: allow nothing specially (an allow list would punch holes in deny). */
        if (p->deny.n_cidrs > 0 && net_policy_probe_address(NULL, probe.addr) < 0)
                return -EINVAL;
        r = append_ranges(m, "IPAddressDeny", p->deny.cidrs, p->deny.n_cidrs, &probe, p->deny.n_cidrs > 0 ? 1 : 0);
        if (r >= 0)
                r = append_ranges(m, "IPAddressAllow", NULL, 0, NULL, 0);
        return r;
}

int unit_network_set(sd_bus *bus, const char *unit, const struct net_policy *p, sd_bus_error *error) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "SetUnitProperties");
        if (r >= 0)
                r = sd_bus_message_append(m, "sb", unit, 1);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = unit_network_append(m, p);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        return sd_bus_call(bus, m, 0, error, &reply);
}
