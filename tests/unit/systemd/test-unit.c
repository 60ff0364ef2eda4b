/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The transient unit gets what the installed unit file says: the properties
 * unit_append_transient_properties() puts into a StartTransientUnit call,
 * read back from the message and written as unit-file lines, are the
 * generated conf/botdesk@.service's [Unit] and [Service] lines, one by one.
 */
#include <inttypes.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>

#include "botdesk-config.h"
#include "bus-cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util.h"

#define PROFILE "work"
#define LINES_MAX 64

struct lines {
        char *line[LINES_MAX];
        size_t n;
        char *environment_file; /* the unit file's alone: the caller's browser */
};

static void lines_add(struct lines *l, char *line) {
        if (line && l->n < LINES_MAX)
                l->line[l->n++] = line;
        else
                free(line);
}

static void lines_free(struct lines *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->line[i]);
        l->n = 0;
        free(l->environment_file);
        l->environment_file = NULL;
}

/* Words joined by spaces; -EINVAL when the message holds something else. */
static int read_strv_joined(sd_bus_message *m, char **ret) {
        _cleanup_strv_free_ char **l = NULL;
        _cleanup_free_ char *out = strdup("");
        int r;

        r = sd_bus_message_read_strv(m, &l);
        if (r < 0)
                return r;
        for (char **s = l; s && *s && out; s++) {
                char *next = strdup_printf("%s%s%s", out, s == l ? "" : " ", *s);
                free(out);
                out = next;
        }
        if (!out)
                return -ENOMEM;
        *ret = TAKE_PTR(out);
        return 0;
}

/* "(aiai)": the exit statuses, and no signals. */
static int read_exit_status(sd_bus_message *m, char **ret) {
        _cleanup_free_ char *out = strdup("");
        int32_t status;
        int r;

        r = sd_bus_message_enter_container(m, 'r', "aiai");
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "i");
        while (r >= 0 && out && (r = sd_bus_message_read(m, "i", &status)) > 0) {
                char *next = strdup_printf("%s%s%" PRId32, out, *out ? " " : "", status);
                free(out);
                out = next;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "i");
        if (r >= 0 && sd_bus_message_read(m, "i", &status) > 0)
                r = -EINVAL;
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        if (!out)
                return -ENOMEM;
        *ret = TAKE_PTR(out);
        return 0;
}

/* "a(sasb)" of one command that must succeed: "PATH ARG...", as ExecStart= says it. */
static int read_exec(sd_bus_message *m, char **ret) {
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *out = NULL;
        const char *path;
        int ignore_failure = 1, r;

        r = sd_bus_message_enter_container(m, 'a', "(sasb)");
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'r', "sasb");
        if (r >= 0)
                r = sd_bus_message_read(m, "s", &path);
        if (r >= 0)
                r = sd_bus_message_read_strv(m, &argv);
        if (r >= 0)
                r = sd_bus_message_read(m, "b", &ignore_failure);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r >= 0 && sd_bus_message_at_end(m, false) == 0)
                r = -EINVAL; /* one command only */
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        if (ignore_failure || !argv || !argv[0] || !streq(argv[0], path))
                return -EINVAL;
        out = strdup(path);
        for (char **a = argv + 1; *a && out; a++) {
                char *next = strdup_printf("%s %s", out, *a);
                free(out);
                out = next;
        }
        if (!out)
                return -ENOMEM;
        *ret = TAKE_PTR(out);
        return 0;
}

/* The unit-file key of a D-Bus property: systemd's "FooUSec" is the file's "FooSec". */
static char *file_key_of(const char *name) {
        size_t len = strlen(name);

        if (len > 4 && streq(name + len - 4, "USec"))
                return strdup_printf("%.*sSec", (int) (len - 4), name);
        return strdup(name);
}

/* One "(sv)" as the unit-file line systemd reads into it: a D-Bus
 * "FooUSec" is the file's "FooSec", a time span in whole seconds here. */
static int read_property_line(sd_bus_message *m, char **ret_name, char **ret_line) {
        _cleanup_free_ char *key = NULL, *value = NULL;
        const char *name, *contents, *s;
        uint64_t usec;
        char type;
        int b, r;

        r = sd_bus_message_enter_container(m, 'r', "sv");
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        *ret_name = strdup(name);
        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        if (streq(contents, "s")) {
                r = sd_bus_message_read(m, "s", &s);
                value = r >= 0 ? strdup(s) : NULL;
        } else if (streq(contents, "b")) {
                r = sd_bus_message_read(m, "b", &b);
                value = r >= 0 ? strdup(b ? "yes" : "no") : NULL;
        } else if (streq(contents, "t")) {
                r = sd_bus_message_read(m, "t", &usec);
                if (r >= 0 && usec % 1000000 != 0)
                        r = -EINVAL;
                value = r >= 0 ? strdup_printf("%" PRIu64 "s", usec / 1000000) : NULL;
        } else if (streq(contents, "as"))
                r = read_strv_joined(m, &value);
        else if (streq(contents, "(aiai)"))
                r = read_exit_status(m, &value);
        else if (streq(contents, "a(sasb)"))
                r = read_exec(m, &value);
        else
                r = -EINVAL;
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        key = file_key_of(name);
        if (!key || !value)
                return -ENOMEM;
        *ret_line = strdup_printf("%s=%s", key, value);
        return *ret_line ? 1 : -ENOMEM;
}

/* The StartTransientUnit call of botdesk@PROFILE.service, sealed and rewound
 * to its properties, as the user manager would read it. */
static int build_call(sd_bus *bus, char *const *environment, sd_bus_message **ret) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL;
        struct unit_start_opts o = {
                .helper_path = BOTDESK_HELPER_PATH,
                .environment = environment,
                .transient = true,
        };
        const char *unit, *mode;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                           "org.freedesktop.systemd1.Manager", "StartTransientUnit");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", "botdesk@" PROFILE ".service", "replace");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = unit_append_transient_properties(m, "botdesk@" PROFILE ".service", &o);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a(sa(sv))", 0);
        if (r >= 0)
                r = sd_bus_message_seal(m, 1, 0);
        if (r >= 0)
                r = sd_bus_message_rewind(m, true);
        if (r >= 0)
                r = sd_bus_message_read(m, "ss", &unit, &mode);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "(sv)");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

/* The transient unit's properties as unit-file lines: those the file
 * should have into file_lines, those only a transient unit has into extra. */
static int transient_lines(sd_bus *bus, char *const *environment, struct lines *file_lines, struct lines *extra) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = build_call(bus, environment, &m);
        if (r < 0)
                return r;
        for (;;) {
                _cleanup_free_ char *name = NULL;
                char *line = NULL;

                r = read_property_line(m, &name, &line);
                if (r <= 0)
                        return r;
                /* The two a transient unit has alone (helper/systemd/unit-properties.h says why). */
                if (streq_ptr(name, "CollectMode") || streq_ptr(name, "Environment"))
                        lines_add(extra, line);
                else
                        lines_add(file_lines, line);
        }
}

/* The [Unit] and [Service] lines of the generated unit file, %i expanded. */
static int unit_file_lines(const char *path, struct lines *l) {
        _cleanup_free_ char *text = NULL;
        bool in_scope = false;
        size_t size;
        int r;

        r = read_full_file(path, &text, &size, 1 << 16);
        if (r < 0)
                return r;
        for (char *line = text; *line;) {
                size_t len = strcspn(line, "\n");
                char *at;

                line[len] = 0;
                if (line[0] == '[')
                        in_scope = streq(line, "[Unit]") || streq(line, "[Service]");
                else if (in_scope && startswith(line, "EnvironmentFile="))
                        l->environment_file = strdup(line);
                else if (in_scope && line[0] && line[0] != '#') {
                        at = strstr(line, "%i");
                        lines_add(l, at ? strdup_printf("%.*s" PROFILE "%s", (int) (at - line), line, at + 2)
                                        : strdup(line));
                }
                line += len + (text + size > line + len);
        }
        return 0;
}

static bool lines_have(const struct lines *l, const char *line) {
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->line[i], line))
                        return true;
        return false;
}

int main(void) {
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *path = NULL;
        struct lines file = {}, transient = {}, extra = {};
        char *environment[] = { (char *) "BOTDESK_CONFIG=/tmp/x.ini", (char *) "LANG=C.UTF-8", NULL };
        const char *build = getenv("BOTDESK_BUILD_DIR");
        int fds[2] = { -1, -1 }, r;

        /* A bus over a socketpair nobody answers: enough to build and seal messages. */
        r = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
        if (r >= 0)
                r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_fd(bus, fds[0], fds[0]);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (!tap_ok(r >= 0, "a bus to build messages on (%s)", strerror(r < 0 ? -r : 0)))
                return tap_done();

        path = strdup_printf("%s/conf/botdesk@.service", build ?: ".");
        r = unit_file_lines(path, &file);
        tap_ok(r >= 0 && file.n > 10, "the generated unit file %s has its [Unit] and [Service] lines (%zu)",
               path, file.n);

        TAP_EQ_STR(file.environment_file, "EnvironmentFile=-%t/botdesk/%i/start.env",
                   "the unit file reads the browser its caller names from the profile's start.env");

        r = transient_lines(bus, environment, &transient, &extra);
        tap_ok(r >= 0, "the transient unit's properties read back as unit-file lines (%s)",
               strerror(r < 0 ? -r : 0));
        TAP_EQ_INT(transient.n, file.n, "the transient unit has as many of the file's properties as the file has lines");
        for (size_t i = 0; i < file.n && i < transient.n; i++)
                TAP_EQ_STR(transient.line[i], file.line[i], "line %zu of the unit file is the transient unit's", i + 1);

        /* The four the transient unit once lacked, by name. */
        tap_ok(lines_have(&transient, "RestrictSUIDSGID=yes"), "the transient unit has RestrictSUIDSGID=yes");
        tap_ok(lines_have(&transient, "RestrictRealtime=yes"), "the transient unit has RestrictRealtime=yes");
        tap_ok(lines_have(&transient, "LockPersonality=yes"), "the transient unit has LockPersonality=yes");
        tap_ok(lines_have(&transient, "SystemCallArchitectures=native"),
               "the transient unit has SystemCallArchitectures=native");
        tap_ok(lines_have(&transient, "ExecStart=" BOTDESK_HELPER_PATH " " PROFILE),
               "the transient unit runs the helper for its profile");
        tap_ok(lines_have(&transient, "Description=botdesk desktop " PROFILE),
               "the transient unit's description names its profile");

        TAP_EQ_INT(extra.n, 2, "the transient unit has two properties the file lacks");
        tap_ok(lines_have(&extra, "CollectMode=inactive-or-failed"),
               "a failed transient unit is collected, so its name can start again");
        tap_ok(lines_have(&extra, "Environment=BOTDESK_CONFIG=/tmp/x.ini LANG=C.UTF-8"),
               "the caller's environment is passed to the transient unit");
        lines_free(&transient);
        lines_free(&extra);

        r = transient_lines(bus, NULL, &transient, &extra);
        tap_ok(r >= 0 && !lines_have(&extra, "Environment=") && extra.n == 1,
               "without an environment the transient unit gets no Environment property");

        lines_free(&file);
        lines_free(&transient);
        lines_free(&extra);
        safe_close(fds[1]);
        return tap_done();
}
