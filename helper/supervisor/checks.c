/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "checks.h"
#include "exit-status.h"
#include "find-executable.h"
#include "log.h"
#include "memory.h"
#include "net-policy.h"
#include "packages.h"
#include "util.h"
#include "xserver.h"

static int check_binaries(struct supervisor *s) {
        _cleanup_strv_free_ char **missing = NULL;
        _cleanup_strv_free_ char **needed = NULL;
        _cleanup_free_ char *rejected = NULL, *msg = NULL;
        int r;

        r = xserver_find(NULL, &s->xserver_path, &rejected);
        if (r == -EPROTONOSUPPORT) {
                supervisor_fail(s, HELPER_EXIT_FAILED,
                             "%s is not TigerVNC's X server (no -rfbunixpath); install tigervnc-standalone-server.",
                             rejected);
                return r;
        }
        r = packages_missing(NULL, &missing);
        if (r < 0)
                return r;
        for (char **m = missing; m && *m; m++) {
                /* `desktop = command` needs only the X server and the bus. */
                if (s->cfg.desktop == DESKTOP_COMMAND && !streq(*m, "Xtigervnc") && !streq(*m, "Xvnc") &&
                    !streq(*m, "dbus-daemon"))
                        continue;
                r = strv_push(&needed, strdup(*m));
                if (r < 0)
                        return r;
        }
        if (!needed)
                return 0;
        msg = packages_install_message(pkg_manager_detect(NULL), geteuid() == 0,
                                       find_executable("sudo", NULL, NULL) >= 0, needed, NULL);
        supervisor_fail(s, HELPER_EXIT_FAILED, "%s", msg ?: "Required programs are missing.");
        return -ENOENT;
}

static int check_memory(struct supervisor *s) {
        struct memory_info m;
        const struct memory_env env = {};
        int r;

        if (s->cfg.min_free_memory_mb == 0)
                return 0;
        r = memory_read(&env, &m);
        if (r < 0) {
                log_warning_errno(r, "Cannot read available memory (%m), not gating the start.");
                return 0;
        }
        switch (memory_judge(m.available_mb, s->cfg.min_free_memory_mb)) {
        case MEMORY_BLOCKED: {
                _cleanup_free_ char *msg = memory_blocker_message(&m, s->cfg.min_free_memory_mb);
                supervisor_fail(s, HELPER_EXIT_REFUSED, "%s", msg ?: "Not enough free memory for a desktop.");
                return -ENOMEM;
        }
        case MEMORY_LOW:
                log_warning("Memory is low: %llu MB available, %u MB is the floor; starting anyway.",
                            (unsigned long long) m.available_mb, s->cfg.min_free_memory_mb);
                return 0;
        default:
                return 0;
        }
}

/* A profile that names a VNC server botdesk did not start gets no local desktop, however the helper was started. */
static int check_remote(struct supervisor *s) {
        if (!s->cfg.remote)
                return 0;
        supervisor_fail(s, HELPER_EXIT_REFUSED,
                        "Profile %s fronts a VNC server botdesk did not start (remote = %s); no desktop is started for it.",
                        s->profile, s->cfg.remote);
        return -EPERM;
}

/* The datagram's answer: EPERM where the unit's IP firewall holds. */
static int probe_firewall(const uint8_t addr[static 4]) {
        struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
        _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return negative_errno();
        memcpy(&to.sin_addr, addr, 4);
        if (sendto(fd, "", 1, MSG_DONTWAIT, (const struct sockaddr *) &to, sizeof to) < 0)
                return negative_errno();
        return 0;
}

/* A network policy is in force before anything of the desktop runs, or the desktop does not start (net-policy.h). */
static int check_network(struct supervisor *s) {
        _cleanup_(net_policy_done) struct net_policy p = {};
        _cleanup_free_ char *problem = NULL;
        uint8_t probe[4];
        int r;

        r = net_policy_parse(s->cfg.network_mode, s->cfg.network_allow, s->cfg.network_deny, &p, &problem);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                supervisor_fail(s, HELPER_EXIT_CONFIG, "[network]: %s.", problem);
                return r;
        }
        if (!net_policy_restricts(&p))
                return 0;
        /* Names are reached through the desktop's proxy, which `botdesk start` starts beside the unit
         * (network-proxy.h); the logind tier's unit is started by systemctl, with no proxy. */
        if (net_policy_wants_proxy(&p) && s->reserved_display >= 0) {
                supervisor_fail(s, HELPER_EXIT_REFUSED,
                                "[network] allow names domains, which need botdesk's filtering proxy, and the logind "
                                "tier runs none: list address ranges only for profile %s, or run it with "
                                "`botdesk start`.", s->profile);
                return -EPERM;
        }
        if (net_policy_wants_proxy(&p)) {
                uint8_t a[4];

                net_proxy_address((unsigned) getuid(), s->profile, a);
                free(s->proxy_url);
                s->proxy_url = strdup_printf("http://%u.%u.%u.%u:%d", a[0], a[1], a[2], a[3], NET_PROXY_PORT);
                if (!s->proxy_url)
                        return -ENOMEM;
        }
        if (net_policy_probe_address(p.mode == NET_MODE_ALLOWLIST ? &p.allow : NULL, probe) < 0) {
                supervisor_fail(s, HELPER_EXIT_REFUSED,
                                "[network] allow covers the whole of 127.0.0.0/8, where botdesk proves that the "
                                "firewall holds; allow narrower loopback ranges.");
                return -EPERM;
        }
        r = probe_firewall(probe);
        if (r == -EPERM) {
                log_info("Network policy in force (mode %s): the kernel refuses what it does not allow.",
                         net_mode_to_string(p.mode));
                return 0;
        }
        if (s->reserved_display >= 0)
                supervisor_fail(s, HELPER_EXIT_REFUSED,
                                "[network] mode = %s is not enforced on this desktop (a datagram to %u.%u.%u.%u went "
                                "out: %s): its session's scope has no IP firewall; the PAM stack sets it with "
                                "\"session optional pam_botdesk.so network\" after pam_systemd.so (see the journal "
                                "for what it said).",
                                net_mode_to_string(p.mode), probe[0], probe[1], probe[2], probe[3],
                                r < 0 ? strerror(-r) : "sent");
        else
                supervisor_fail(s, HELPER_EXIT_REFUSED,
                                "[network] mode = %s is not enforced on this desktop (a datagram to %u.%u.%u.%u went "
                                "out: %s): its unit has no IPAddressDeny= of botdesk's (start it with `botdesk start "
                                "%s`), or its manager cannot attach systemd's IP firewall (a user manager without "
                                "CAP_NET_ADMIN and CAP_BPF cannot, so use the logind tier; standalone nothing can).",
                                net_mode_to_string(p.mode), probe[0], probe[1], probe[2], probe[3],
                                r < 0 ? strerror(-r) : "sent", s->profile);
        return -EPERM;
}

int checks_run(struct supervisor *s) {
        int r = check_remote(s);

        if (r < 0)
                return r;
        r = check_network(s);
        if (r < 0)
                return r;
        r = check_binaries(s);

        /* A check that could not be made fails the start too, and says so. */
        if (r < 0 && s->state == DESKTOP_CHECKING)
                supervisor_fail(s, HELPER_EXIT_FAILED, "Cannot check for the required programs: %s", strerror(-r));
        if (r >= 0)
                r = check_memory(s);
        return r;
}
