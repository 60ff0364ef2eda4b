/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/profiles: every profile's values come from one reading of the
 * files (config_set_load), in the order of application, and are the same
 * values config_load() gives that profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tap.h"
#include "util.h"

static char tmpdir[] = "/tmp/test-config-profiles.XXXXXX";
static char system_path[sizeof(tmpdir) + 32], user_path[sizeof(tmpdir) + 32];

static void write_text(const char *path, const char *text) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd < 0 || write_all(fd, text, strlen(text)) < 0) {
                printf("Bail out! cannot write %s: %m\n", path);
                exit(1);
        }
}

static char *joined(char **l) {
        char *s = strdup("");

        for (; s && l && *l; l++) {
                char *n = strdup_printf("%s%s%s", s, s[0] ? " " : "", *l);

                free(s);
                s = n;
        }
        return s;
}

static const char system_text[] =
        "[session]\n"
        "start_timeout = 20\n"
        "[profile.work]\n"
        "user = agent\n"
        "dpi = 120\n"
        "[profile.bad name]\n"   /* an invalid name: reported, never listed */
        "dpi = 100\n"
        "[profile.empty]\n"      /* no entries: not listed */
        "[profile.only-bad]\n"   /* only invalid entries: not listed */
        "nosuch = 1\n"
        "[profile.ci]\n"
        "placement = exec\n"
        "exec = podman exec -i ci\n"
        "[profile.work]\n"       /* a second section of the same profile: listed once */
        "frame_rate = 10\n";

static const char user_text[] =
        "[session]\n"
        "start_timeout = 40\n"
        "idle_stop_minutes = 5\n"
        "[display]\n"
        "dpi = 144\n"
        "[profile.mine]\n"
        "idle_stop_minutes = 7\n";

static void test_names(const struct config_set *set) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *s = NULL;
        int r;

        r = config_set_profiles(set, &names);
        s = joined(names);
        if (!tap_ok(r == 0 && s && streq(s, "work ci mine"),
                    "the profile names are the sections with a valid entry, in the order of application, each once"))
                printf("#   r=%d names: %s\n", r, strnull(s));
}

static void test_layers(const struct config_set *set) {
        struct bd_config c = {};
        int r;

        r = config_set_build(set, "work", &c);
        TAP_EQ_INT(r, 0, "a profile builds from the set");
        TAP_EQ_INT(c.dpi, 120, "a profile section of the system file beats the user file's globals");
        TAP_EQ_INT(c.start_timeout, 40, "the user file's globals beat the system file's");
        TAP_EQ_INT(c.frame_rate, 10, "both sections of one profile apply");
        TAP_EQ_STR(c.user, "agent", "the profile's user comes from its section");
        config_done(&c);

        r = config_set_build(set, NULL, &c);
        TAP_EQ_INT(r, 0, "the globals build from the set");
        TAP_EQ_INT(c.dpi, 144, "no profile: no profile section applies");
        tap_ok(!c.user, "no profile: no user");
        config_done(&c);

        r = config_set_build(set, "mine", &c);
        TAP_EQ_INT(c.idle_stop_minutes, 7, "a profile section of the user file applies to its profile");
        config_done(&c);

        r = config_set_build(set, "ci", &c);
        tap_ok(r == 0 && c.placement == PLACEMENT_EXEC && c.exec && streq(c.exec, "podman exec -i ci"),
               "placement and exec come from the profile's section");
        config_done(&c);

        r = config_set_build(set, "unknown", &c);
        TAP_EQ_INT(c.dpi, 144, "a profile without a section gets the globals");
        config_done(&c);
}

/* Every profile's values from the set are config_load()'s for that profile. */
static void test_same_as_load(const struct config_set *set, const struct config_sources *src) {
        static const char *const profiles[] = { NULL, "work", "ci", "mine", "unknown" };

        for (size_t i = 0; i < ELEMENTSOF(profiles); i++) {
                struct bd_config a = {}, b = {};
                _cleanup_free_ char *ta = NULL, *tb = NULL;

                (void) config_set_build(set, profiles[i], &a);
                (void) config_load(&b, profiles[i], src, NULL);
                ta = config_dump_text(&a);
                tb = config_dump_text(&b);
                tap_ok(ta && tb && streq(ta, tb), "profile %s: the set's values are config_load()'s",
                       profiles[i] ?: "(none)");
                config_done(&a);
                config_done(&b);
        }
}

static void test_errors_once(const struct config_errors *errs, int r) {
        size_t bad_name = 0, unknown = 0;

        for (size_t i = 0; i < errs->n; i++) {
                if (strstr(errs->items[i].message, "invalid profile name in [profile.bad name]"))
                        bad_name++;
                if (strstr(errs->items[i].message, "unknown key 'nosuch' in [profile.only-bad]"))
                        unknown++;
        }
        TAP_EQ_INT(r, -EINVAL, "a set with errors is returned with -EINVAL");
        tap_ok(errs->n == 2 && bad_name == 1 && unknown == 1,
               "every error of the files is recorded once by the one pass (%zu errors)", errs->n);
}

int main(void) {
        _cleanup_(config_set_freep) struct config_set *set = NULL;
        struct config_errors errs = {};
        struct config_sources src;
        struct bd_config c = {};
        int r;

        if (!mkdtemp(tmpdir)) {
                printf("Bail out! mkdtemp: %m\n");
                return 1;
        }
        snprintf(system_path, sizeof(system_path), "%s/botdesk.ini", tmpdir);
        snprintf(user_path, sizeof(user_path), "%s/user.ini", tmpdir);
        write_text(system_path, system_text);
        write_text(user_path, user_text);
        src = (struct config_sources) { .system_path = system_path, .user_path = user_path };

        r = config_set_load(&src, &set, &errs);
        tap_ok(set != NULL, "config_set_load returns a set even when the files have errors");
        if (!set)
                return tap_done();
        test_errors_once(&errs, r);
        config_errors_done(&errs);
        test_names(set);
        test_layers(set);
        test_same_as_load(set, &src);

        /* The set holds what was read: the files are not read again. */
        write_text(system_path, "[profile.work]\ndpi = 200\n");
        r = config_set_build(set, "work", &c);
        tap_ok(r == 0 && c.dpi == 120, "building a profile does not read the files again");
        config_done(&c);
        set = config_set_free(set);

        /* No file at all: an empty set, and the defaults. */
        src = (struct config_sources) { .system_path = "/nonexistent/botdesk.ini", .user_path = "" };
        r = config_set_load(&src, &set, &errs);
        {
                _cleanup_strv_free_ char **names = NULL;
                struct bd_config d = {};

                tap_ok(r == 0 && set && errs.n == 0, "a missing file is an empty set without errors");
                tap_ok(set && config_set_profiles(set, &names) == 0 && !names, "an empty set names no profile");
                config_defaults(&d);
                if (set)
                        (void) config_set_build(set, "work", &c);
                {
                        _cleanup_free_ char *a = config_dump_text(&c), *b = config_dump_text(&d);

                        tap_ok(a && b && streq(a, b), "an empty set builds the defaults");
                }
                config_done(&c);
                config_done(&d);
        }
        config_errors_done(&errs);

        (void) unlink(system_path);
        (void) unlink(user_path);
        (void) rmdir(tmpdir);
        return tap_done();
}
