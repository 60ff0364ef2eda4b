/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk doctor [--json]: what this host has and lacks. */
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "config.h"
#include "doctor-fleet.h"
#include "doctor-remote.h"
#include "doctor-inotify.h"
#include "find-executable.h"
#include "json.h"
#include "memory.h"
#include "packages.h"
#include "unit.h"
#include "util.h"
#include "verbs.h"

static const char *cgroup_mode(void) {
        _cleanup_free_ char *mount = NULL;

        if (cgroup_v2_mount(&mount) < 0)
                return "v1";
        return streq(mount, "/sys/fs/cgroup") ? "unified" : "hybrid";
}

int verb_doctor(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_strv_free_ char **missing = NULL, **everything = NULL;
        _cleanup_free_ char *install = NULL, *msg = NULL, *mount = NULL, *self = NULL, *cg = NULL;
        struct memory_info mem = {};
        const struct memory_env menv = {};
        enum pkg_manager m = pkg_manager_detect(NULL);
        bool mem_ok, cg_writable = false, have_user_bus, booted, logind;
        const char *guarantee;
        struct json j;
        int r;

        if (cli_load_config(NULL, &c) < 0)
                return EXIT_USAGE;
        r = packages_missing(NULL, &missing);
        if (r < 0)
                return EXIT_FAILED;
        /* What install would run: the everyday programs come with what is needed. */
        if (strv_length(missing) > 0 && packages_missing_all(NULL, &everything) >= 0)
                msg = packages_install_message(m, geteuid() == 0, find_executable("sudo", NULL, NULL) >= 0, everything,
                                               &install);
        mem_ok = memory_read(&menv, &mem) >= 0;
        if (cgroup_v2_mount(&mount) >= 0 && cgroup_path_of(0, &self) >= 0) {
                cg = strdup_printf("%s%s", mount, streq(self, "/") ? "" : self);
                /* Can we create a sub-group here and move ourselves? That is what the helper needs. */
                if (cg && access(cg, W_OK) == 0) {
                        _cleanup_free_ char *procs = strdup_printf("%s/cgroup.procs", cg);
                        cg_writable = procs && access(procs, W_OK) == 0;
                }
        }
        {
                sd_bus *bus = NULL;
                have_user_bus = unit_bus_open(&bus) >= 0;
                sd_bus_flush_close_unref(bus);
        }
        booted = sd_booted() > 0;
        /* logind only counts where systemd is PID 1: its runtime dirs can linger elsewhere. */
        logind = booted && access("/run/systemd/seats", F_OK) == 0;
        guarantee = cg_writable ? "cgroup: every process of a desktop is killed through its cgroup"
                                : "process groups + subreaper + token scan: weaker, processes that leave their "
                                  "group and drop the token can escape";

        if (a->json) {
                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_bool(&j, "installed", strv_length(missing) == 0);
                json_key(&j, "missing");
                json_array_begin(&j);
                for (char **i = missing; i && *i; i++)
                        json_string(&j, *i);
                json_array_end(&j);
                json_kv_string(&j, "package_manager", pkg_manager_name(m));
                json_kv_string(&j, "install_command", install);
                json_kv_string(&j, "install_message", msg);
                if (mem_ok) {
                        json_kv_int(&j, "memory_available_mb", (long long) mem.available_mb);
                        json_kv_int(&j, "memory_limit_mb", (long long) mem.limit_mb);
                } else {
                        json_kv_null(&j, "memory_available_mb");
                        json_kv_null(&j, "memory_limit_mb");
                }
                json_kv_int(&j, "min_free_memory_mb", c.min_free_memory_mb);
                json_kv_bool(&j, "user_manager", have_user_bus);
                json_kv_bool(&j, "systemd", booted);
                json_kv_string(&j, "cgroup_mode", cgroup_mode());
                json_kv_string(&j, "cgroup", cg);
                json_kv_bool(&j, "cgroup_writable", cg_writable);
                json_kv_string(&j, "placement", have_user_bus ? "user-unit" : "standalone");
                json_kv_string(&j, "reaping", cg_writable ? "cgroup" : "process-group");
                json_kv_bool(&j, "logind", logind);
                json_kv_bool(&j, "selinux", access("/sys/fs/selinux/enforce", F_OK) == 0);
                doctor_inotify(&j, &c, mem_ok ? mem.limit_mb : 0);
                doctor_fleet(&j, &c, mem_ok ? &mem : NULL);
                doctor_remote(&j);
                json_object_end(&j);
                putchar('\n');
                return EXIT_OK;
        }
        printf("programs:     %s\n", strv_length(missing) > 0 ? "missing some" : "all present");
        for (char **i = missing; i && *i; i++)
                printf("  missing:    %s\n", *i);
        if (msg)
                printf("  %s\n", msg);
        printf("package mgr:  %s\n", pkg_manager_name(m));
        if (mem_ok)
                printf("memory:       %llu MB available of %llu MB (floor %u MB)\n",
                       (unsigned long long) mem.available_mb, (unsigned long long) mem.limit_mb, c.min_free_memory_mb);
        printf("systemd:      %s\n", booted ? "running" : "not running");
        printf("user manager: %s\n", have_user_bus ? "reachable (desktops run as botdesk@P.service)" : "none (desktops run standalone)");
        printf("cgroups:      %s, %s %s\n", cgroup_mode(), cg ?: "no v2 hierarchy", cg_writable ? "(writable)" : "(not writable)");
        printf("reaping:      %s\n", guarantee);
        printf("logind:       %s\n", logind ? "running" : "not running");
        printf("SELinux:      %s\n", access("/sys/fs/selinux/enforce", F_OK) == 0 ? "enabled" : "disabled");
        doctor_inotify(NULL, &c, mem_ok ? mem.limit_mb : 0);
        doctor_fleet(NULL, &c, mem_ok ? &mem : NULL);
        doctor_remote(NULL);
        return EXIT_OK;
}
