/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The one definition of botdesk@.service's properties. The installed unit
 * file's [Unit] and [Service] lines are written from this table at build time
 * (unit-file-gen.c), and a transient unit of the same name gets the same
 * properties over D-Bus (unit.c), so the two cannot drift apart. Every key
 * here is one the transient API accepts (systemd's TRANSIENT-SETTINGS.md).
 *
 * What only one of the two has:
 * - [Install] (WantedBy=) lives in conf/botdesk@.service.in alone: a
 *   transient unit cannot be enabled.
 * - Environment= is the transient unit's alone: it carries the caller's
 *   variables, as systemd-run --user does; an installed unit gets the user
 *   manager's environment instead, and the browser its caller names from
 *   EnvironmentFile= (in conf/botdesk@.service.in alone, written by
 *   launch-unit.c before each start).
 * - Entries with no key (CollectMode) are the transient unit's alone; each
 *   says why.
 */

enum unit_value_type {
        UNIT_VALUE_STRING,      /* "s"; "%i" stands for the instance (the profile) */
        UNIT_VALUE_STRV,        /* "as", words separated by spaces in the file */
        UNIT_VALUE_BOOL,        /* "b", yes/no in the file */
        UNIT_VALUE_USEC,        /* "t", a time span in the file */
        UNIT_VALUE_EXIT_STATUS, /* "(aiai)": exit statuses (no signals) */
        UNIT_VALUE_EXEC,        /* "a(sasb)": the helper, with the instance as its argument */
};

#define UNIT_EXIT_STATUS_MAX 4

/* TimeoutStartSec= of the unit file and the transient unit. The helper
 * extends it with EXTEND_TIMEOUT_USEC= when start_timeout asks for more
 * (supervisor/start-extension.h). */
#define UNIT_TIMEOUT_START_USEC (30 * 1000000ULL)

struct unit_property {
        const char *section;    /* "Unit" or "Service" */
        const char *key;        /* in the unit file; NULL: the transient unit's alone */
        const char *bus_name;   /* the D-Bus property systemd reads the key into */
        enum unit_value_type type;
        const char *string;                             /* STRING */
        const char *const *strv;                        /* STRV, NULL-terminated */
        bool boolean;                                   /* BOOL */
        uint64_t usec;                                  /* USEC */
        int exit_status[UNIT_EXIT_STATUS_MAX];          /* EXIT_STATUS, ended by 0 */
        const char *comment;    /* why the line is there: the lines above it in the file */
};

extern const struct unit_property unit_properties[];
extern const size_t unit_properties_count;
