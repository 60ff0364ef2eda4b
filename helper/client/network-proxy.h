/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <systemd/sd-bus.h>

#include "net-policy.h"

/*
 * The filtering proxy through which a desktop reaches allow's domain names:
 * tinyproxy (Debian's tinyproxy-bin), as the user manager's transient
 * botdesk-proxy@PROFILE.service, outside the desktop's cgroup and bound to
 * its unit (stopped with it). It listens on the desktop's own loopback
 * address (net_proxy_address()), the only one the desktop's firewall lets
 * it reach; its filter lets through the names allow lists and nothing else,
 * IP literals included; the desktop's environment (http_proxy, https_proxy)
 * points at it. A proxy that died leaves the desktop reaching nothing by
 * name: it fails closed. Its files are in the desktop's runtime dir:
 * proxy.conf, proxy.filter, proxy.pid, and proxy.log, where each refusal is
 * a line ("Proxying refused on filtered domain").
 */

#define NETWORK_PROXY_CONF "proxy.conf"
#define NETWORK_PROXY_PID "proxy.pid"
#define NETWORK_PROXY_LOG "proxy.log"

/* Starts (or starts again, with p's filter) the proxy of profile's running unit; returns once it listens.
 * p->proxy and p->proxy_address must be set. Said on stderr. */
int network_proxy_start(sd_bus *bus, const char *profile, int runtime_fd, const char *runtime_dir,
                        const struct net_policy *p);
/* An earlier run's proxy files removed (the next run has a proxy of its own, or none). */
void network_proxy_forget(int runtime_fd);

/* Whether its pid file names a live tinyproxy (the file is the desktop user's: its word, checked against /proc). */
bool network_proxy_running(int runtime_fd);

/* Stops it (offline: nothing to reach by name). */
int network_proxy_stop(sd_bus *bus, const char *profile);

/* What the proxy refused, from its log: the count and the last name (NULL when none). */
int network_proxy_refused(int runtime_fd, unsigned *ret_count, char **ret_last);
