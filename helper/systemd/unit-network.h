/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

#include "net-policy.h"

/*
 * A desktop's network policy as systemd's IP firewall of its unit:
 *   open       IPAddressDeny= the deny list (and the probe's address, so
 *              the helper can tell that the firewall is there)
 *   allowlist  IPAddressDeny=any, IPAddressAllow= the allow list's ranges
 *   offline    IPAddressDeny=any
 * systemd lets an allowed address through whatever the deny list says, and
 * attaches the programs to the unit's cgroup: every process of the desktop,
 * the ones started later included.
 */

/* Both properties as "(sv)" entries of an open "a(sv)" container, each reset before its ranges: what they
 * held before (an earlier run's, a live change's) is replaced, not added to. */
int unit_network_append(sd_bus_message *m, const struct net_policy *p);

/* Both properties set on unit for this run of the manager (SetUnitProperties,
 * runtime): before a start, or on a live desktop. */
int unit_network_set(sd_bus *bus, const char *unit, const struct net_policy *p, sd_bus_error *error);
