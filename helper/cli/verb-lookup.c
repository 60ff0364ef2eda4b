/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk lookup: find a profile's logind session through sd-login, the way
 * doc/design.md ("The PAM module and the logind tier") says: among the caller's sessions, those whose
 * service is "botdesk", then the one on the profile's display (from the
 * helper's record, else the last display file). A session whose leader,
 * the helper, carries BOTDESK_PROFILE=PROFILE in its environment (the
 * unit's Environment=) is the one too: that also holds before the helper
 * has recorded its display.
 * Scope and leader come from logind's D-Bus Session object; sd-login does
 * not have them.
 */
#include <fcntl.h>
#include <limits.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>

#include "bus-cleanup.h"
#include "cli.h"
#include "login.h"
#include "verbs.h"
#include "published-env.h"
#include "record.h"
#include "json.h"
#include "log.h"
#include "profile.h"
#include "util.h"


struct found {
        char *id;
        char *display;
        char *state;
        char *scope;      /* NULL when logind's bus object could not be read */
        pid_t leader;     /* 0 likewise */
        uid_t uid;
};

static void found_done(struct found *f) {
        free(f->id);
        free(f->display);
        free(f->state);
        free(f->scope);
        *f = (struct found) {};
}


/* The display this profile holds or last held: -1 when unknown. */
static int profile_display(int dirfd) {
        _cleanup_(helper_record_done) struct helper_record rec = { .display = -1 };
        _cleanup_free_ char *text = NULL;
        unsigned long long v;

        if (dirfd < 0)
                return -1;
        if (helper_record_read_at(dirfd, &rec) >= 0 && rec.display >= 0)
                return rec.display;
        if (read_full_file_at(dirfd, "display", &text, NULL, 32) < 0)
                return -1;
        text[strcspn(text, "\n")] = '\0';
        if (parse_uint(text, 65535, &v) < 0)
                return -1;
        return (int) v;
}

/* Scope and leader of session id from logind's Session object. */
static int session_bus_properties(sd_bus *bus, const char *id, char **ret_scope, pid_t *ret_leader) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        const char *p;
        uint32_t leader = 0;
        int r;

        r = sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
                               "org.freedesktop.login1.Manager", "GetSession", &error, &reply, "s", id);
        if (r >= 0)
                r = sd_bus_message_read(reply, "o", &p);
        if (r >= 0) {
                path = strdup(p);
                if (!path)
                        r = -ENOMEM;
        }
        sd_bus_message_unref(reply);
        if (r >= 0)
                r = sd_bus_get_property_string(bus, "org.freedesktop.login1", path,
                                               "org.freedesktop.login1.Session", "Scope", &error, ret_scope);
        if (r >= 0)
                r = sd_bus_get_property_trivial(bus, "org.freedesktop.login1", path,
                                                "org.freedesktop.login1.Session", "Leader", &error, 'u', &leader);
        if (r < 0)
                log_debug("Cannot read session %s from logind: %s", id,
                          error.message ?: strerrordesc_np(-r) ?: "unknown error");
        else
                *ret_leader = (pid_t) leader;
        sd_bus_error_free(&error);
        return r;
}

/* Does pid (ours) carry BOTDESK_PROFILE=profile? */
static bool leader_is_profile(pid_t pid, const char *profile) {
        _cleanup_free_ char *text = NULL, *needle = NULL;
        char path[64];
        size_t size;

        if (pid <= 0)
                return false;
        needle = strdup_printf("BOTDESK_PROFILE=%s", profile);
        if (!needle)
                return false;
        snprintf(path, sizeof path, "/proc/%d/environ", (int) pid);
        if (read_full_file(path, &text, &size, 1 << 20) < 0)
                return false;
        for (size_t i = 0; i < size; i += strlen(text + i) + 1)
                if (streq(text + i, needle))
                        return true;
        return false;
}

/* 1 found (ret filled), 0 none, -errno. */
static int find_session(const char *profile, int display, sd_bus *bus, struct found *ret) {
        _cleanup_strv_free_ char **ids = NULL;
        char want[16];
        int r;

        r = sd_uid_get_sessions(getuid(), 0, &ids);
        if (r == -ENOENT || r == -ENXIO)
                return 0; /* no logind, or no session of ours */
        if (r < 0)
                return r;
        snprintf(want, sizeof want, ":%d", display);

        for (char **i = ids; i && *i; i++) {
                _cleanup_free_ char *disp = NULL, *scope = NULL;
                pid_t leader = 0;
                bool match;

                if (!login_session_is_botdesk(*i))
                        continue;
                (void) sd_session_get_display(*i, &disp);
                if (bus)
                        (void) session_bus_properties(bus, *i, &scope, &leader);

                match = (display >= 0 && streq_ptr(disp, want)) || leader_is_profile(leader, profile);
                if (!match)
                        continue;

                *ret = (struct found) {
                        .id = strdup(*i),
                        .display = TAKE_PTR(disp),
                        .scope = TAKE_PTR(scope),
                        .leader = leader,
                        .uid = getuid(),
                };
                if (!ret->id)
                        return -ENOMEM;
                (void) sd_session_get_state(*i, &ret->state);
                return 1;
        }
        return 0;
}

static void print_text(const char *profile, const struct found *f, char **env) {
        printf("    Profile: %s\n", profile);
        printf("    Session: %s\n", f->id);
        printf("    Display: %s\n", f->display ?: "-");
        printf("      State: %s\n", f->state ?: "-");
        printf("      Scope: %s\n", f->scope ?: "-");
        if (f->leader > 0)
                printf("     Leader: %d\n", (int) f->leader);
        else
                printf("     Leader: -\n");
        if (!env) {
                printf("Environment: - (not published yet)\n");
                return;
        }
        for (char **e = env; *e; e++)
                printf("%s%s\n", e == env ? "Environment: " : "             ", *e);
}

static int print_json(const char *profile, const struct found *f, char **env) {
        struct json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "profile", profile);
        json_kv_string(&j, "session", f->id);
        json_kv_string(&j, "display", f->display);
        json_kv_string(&j, "state", f->state);
        json_kv_string(&j, "scope", f->scope);
        if (f->leader > 0)
                json_kv_int(&j, "leader", f->leader);
        else
                json_kv_null(&j, "leader");
        json_kv_int(&j, "uid", (long long) f->uid);
        json_key(&j, "env");
        if (env) {
                json_object_begin(&j);
                for (char **e = env; *e; e++) {
                        _cleanup_free_ char *key = strndup(*e, strcspn(*e, "="));

                        if (!key)
                                return -ENOMEM;
                        json_kv_string(&j, key, strchr(*e, '=') + 1);
                }
                json_object_end(&j);
        } else
                json_null(&j);
        json_object_end(&j);
        putchar('\n');
        return 0;
}

int verb_lookup(const struct cli_args *a) {
        const char *profile = a->operand;
        bool json = a->json;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_(found_done) struct found f = {};
        _cleanup_strv_free_ char **env = NULL;
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        int display, r;


        r = paths_for_profile(profile, &p);
        if (r < 0 && r != -ENAMETOOLONG) {
                log_error_errno(r, "Cannot compute the paths of profile %s: %m", profile);
                return EXIT_FAILED;
        }
        /* Only a dir that is ours says anything: in someone else's, the
         * display and env would be theirs to choose. */
        dirfd = p.runtime ? paths_open_runtime(&p, NULL) : -EBADF;
        if (dirfd == -EPERM)
                log_warning("%s (or its base) is not a private directory of uid %u; nothing in it is used.",
                            p.runtime, (unsigned) getuid());
        display = profile_display(dirfd);

        /* Scope and leader are extras: without the bus they are null. */
        r = sd_bus_open_system(&bus);
        if (r < 0) {
                log_debug_errno(r, "Cannot connect to the system bus: %m");
                bus = NULL;
        }

        r = find_session(profile, display, bus, &f);
        if (r < 0) {
                log_error_errno(r, "Cannot list your logind sessions: %m");
                return EXIT_FAILED;
        }
        if (r == 0) {
                log_error("No logind session of profile %s for uid %u; start one with: systemctl start botdesk-session@%s.service",
                          profile, (unsigned) getuid(), profile);
                return EXIT_NOT_RUNNING;
        }

        if (dirfd >= 0) {
                r = published_env_read_at(dirfd, &env, NULL);
                if (r < 0 && r != -ENOENT)
                        log_warning_errno(r, "Cannot read %s: %m", p.env_file);
        }

        if (json)
                return print_json(profile, &f, env) < 0 ? EXIT_FAILED : EXIT_OK;
        print_text(profile, &f, env);
        return EXIT_OK;
}
