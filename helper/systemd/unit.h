/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

struct net_policy;

/*
 * The user manager over D-Bus: start and stop botdesk@PROFILE.service (the
 * installed template, or a transient unit of the same name and properties
 * when no template is installed: the `systemd-run --user` path), wait for
 * our own job, and attach processes to a running desktop's cgroup.
 */

#define UNIT_TEMPLATE "botdesk@.service"

/* The manager's name, object and interface on its bus. */
#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

/* The user manager's bus, or -ENOMEDIUM when no systemd user manager answers
 * (a session bus without systemd, e.g. inside a desktop, does not count). */
int unit_bus_open(sd_bus **ret);

char *unit_name_for(const char *profile);

/* 1 when the template unit file is known to the manager, 0 when not. */
int unit_template_installed(sd_bus *bus);

struct unit_start_opts {
        const char *helper_path;    /* ExecStart of a transient unit */
        char *const *environment;   /* KEY=VALUE passed to a transient unit */
        bool transient;
        unsigned long long timeout_usec;    /* 0: until systemd ends the job */
        const struct net_policy *network;   /* IPAddressDeny=/IPAddressAllow= of a transient unit (unit-network.h) */
        int *queued_lock;           /* closed (set to -EBADF) once the job is queued: a start
                                     * after ours then finds the unit activating and joins
                                     * the job, bounded by its own timeout, instead of
                                     * waiting for this lock */
};

/*
 * The properties of the transient unit `unit` (botdesk@PROFILE.service), those
 * of unit-properties.c and o's environment, appended to m as "(sv)" entries:
 * the caller has opened the "a(sv)" container.
 */
int unit_append_transient_properties(sd_bus_message *m, const char *unit, const struct unit_start_opts *o);

/*
 * Start (or, with stop, stop) the unit and wait until systemd removes our
 * job. *ret_result gets the job result ("done", "failed", "timeout", ...).
 */
int unit_start(sd_bus *bus, const char *unit, const struct unit_start_opts *o, char **ret_result);
int unit_stop(sd_bus *bus, const char *unit, char **ret_result);

/* A transient service of the user manager that runs argv (argv[0] a path), bound to bound_to
 * (BindsTo= and After=: stopped with it) unless NULL; waited for as unit_start() waits. */
int unit_start_command(sd_bus *bus, const char *unit, char *const *argv, const char *bound_to, char **ret_result);

/* ActiveState of unit ("active", "inactive", "failed", ...). */
int unit_active_state(sd_bus *bus, const char *unit, char **ret);

/* The exit status of the unit's main process when it last ended (ExecMainStatus); an error when the unit is
 * gone (a transient unit that failed may be collected at once). */
int unit_exec_main_status(sd_bus *bus, const char *unit, int *ret);

/* Move pid into the unit's sub-cgroup (e.g. "/apps"): AttachProcessesToUnit. */
int unit_attach(sd_bus *bus, const char *unit, const char *subcgroup, pid_t pid);
