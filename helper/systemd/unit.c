/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <systemd/sd-bus.h>

#include "bus-cleanup.h"
#include "unit.h"
#include "unit-network.h"
#include "unit-properties.h"
#include "util.h"

static void slot_unrefp(sd_bus_slot **s) {
        sd_bus_slot_unref(*s);
}

int unit_bus_open(sd_bus **ret) {
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *address = NULL;
        const char *rt = getenv("XDG_RUNTIME_DIR");
        int r;

        /* The manager's own socket, as systemctl --user uses: it answers as
         * soon as the manager runs, while the user bus is socket-activated
         * and the manager may not have joined it yet. Inside a desktop the
         * session bus is botdesk's own, which this also sidesteps. */
        if (!rt || rt[0] != '/')
                return -ENOMEDIUM;
        address = strdup_printf("unix:path=%s/systemd/private", rt);
        if (!address)
                return -ENOMEM;
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return -ENOMEDIUM;
        *ret = TAKE_PTR(bus);
        return 0;
}

char *unit_name_for(const char *profile) {
        return strdup_printf("botdesk@%s.service", profile);
}

int unit_template_installed(sd_bus *bus) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnitFileState", &error, &reply, "s",
                               UNIT_TEMPLATE);
        sd_bus_message_unref(reply);
        if (r < 0) {
                bool not_found = sd_bus_error_has_name(&error, "org.freedesktop.systemd1.NoSuchUnit") ||
                                 sd_bus_error_has_name(&error, SD_BUS_ERROR_FILE_NOT_FOUND);
                sd_bus_error_free(&error);
                return not_found ? 0 : r;
        }
        return 1;
}

struct job_wait {
        const char *job;
        char *result;
        bool done;
};

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct job_wait *w = userdata;
        const char *path, *unit, *result;
        uint32_t id;

        if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
                return 0;
        if (w->job && streq(path, w->job)) {
                w->result = strdup(result);
                w->done = true;
        }
        return 0;
}

/* Subscribe first, then call: a job that finishes before we listen is never missed. */
static int run_job(sd_bus *bus, sd_bus_message *call, unsigned long long timeout_usec, int *queued_lock,
                   char **ret_result) {
        __attribute__((cleanup(slot_unrefp))) sd_bus_slot *slot = NULL;
        _cleanup_(bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        struct job_wait w = {};
        unsigned long long deadline;
        const char *job;
        int r;

        r = sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, &w);
        if (r < 0)
                return r;
        /* Managers send job signals only to subscribers; already subscribed is fine. */
        (void) sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", NULL, NULL, NULL);
        r = sd_bus_call(bus, call, 0, &error, &reply);
        if (r < 0) {
                r = sd_bus_error_get_errno(&error) ? -sd_bus_error_get_errno(&error) : r;
                if (ret_result)
                        *ret_result = strdup(error.message ?: "the call failed");
                sd_bus_error_free(&error);
                return r;
        }
        r = sd_bus_message_read(reply, "o", &job);
        if (r < 0)
                return r;
        w.job = job;
        if (queued_lock)
                *queued_lock = safe_close(*queued_lock);
        deadline = timeout_usec ? now_usec() + timeout_usec : 0;
        while (!w.done) {
                unsigned long long now;

                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                now = now_usec();
                if (deadline && now >= deadline) {
                        *ret_result = strdup("timeout");
                        return -ETIMEDOUT;
                }
                r = sd_bus_wait(bus, deadline ? deadline - now : UINT64_MAX);
                if (r < 0 && r != -EINTR)
                        return r;
        }
        *ret_result = w.result;
        return streq(w.result, "done") ? 0 : -EIO;
}

/* s with each "%i" replaced by the instance, as systemd expands the specifier. */
static char *expand_instance(const char *s, const char *instance) {
        _cleanup_free_ char *out = strdup("");

        while (out && *s) {
                const char *at = strstr(s, "%i");
                size_t len = at ? (size_t) (at - s) : strlen(s);
                char *next = strdup_printf("%s%.*s%s", out, (int) len, s, at ? instance : "");

                free(out);
                out = next;
                s += len + (at ? 2 : 0);
        }
        return TAKE_PTR(out);
}

static int append_strv_property(sd_bus_message *m, const char *name, const char *const *strv) {
        int r;

        r = sd_bus_message_open_container(m, 'r', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", name);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "as");
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char **) strv);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int append_property(sd_bus_message *m, const struct unit_property *p, const char *instance,
                           const char *helper_path) {
        _cleanup_free_ char *expanded = NULL;
        int r;

        switch (p->type) {
        case UNIT_VALUE_STRING:
                expanded = expand_instance(p->string, instance);
                if (!expanded)
                        return -ENOMEM;
                return sd_bus_message_append(m, "(sv)", p->bus_name, "s", expanded);
        case UNIT_VALUE_STRV:
                return append_strv_property(m, p->bus_name, p->strv);
        case UNIT_VALUE_BOOL:
                return sd_bus_message_append(m, "(sv)", p->bus_name, "b", (int) p->boolean);
        case UNIT_VALUE_USEC:
                return sd_bus_message_append(m, "(sv)", p->bus_name, "t", p->usec);
        case UNIT_VALUE_EXIT_STATUS:
                r = sd_bus_message_open_container(m, 'r', "sv");
                if (r >= 0)
                        r = sd_bus_message_append(m, "s", p->bus_name);
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'v', "(aiai)");
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'r', "aiai");
                if (r >= 0)
                        r = sd_bus_message_open_container(m, 'a', "i");
                for (size_t i = 0; r >= 0 && i < UNIT_EXIT_STATUS_MAX && p->exit_status[i]; i++)
                        r = sd_bus_message_append(m, "i", p->exit_status[i]);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                /* No signals. */
                if (r >= 0)
                        r = sd_bus_message_append(m, "ai", 0);
                for (int level = 0; r >= 0 && level < 3; level++)
                        r = sd_bus_message_close_container(m);
                return r;
        case UNIT_VALUE_EXEC:
                return sd_bus_message_append(m, "(sv)", p->bus_name, "a(sasb)", 1, helper_path, 2, helper_path,
                                             instance, 0);
        }
        return -EINVAL;
}

int unit_append_transient_properties(sd_bus_message *m, const char *unit, const struct unit_start_opts *o) {
        const char *profile = strchr(unit, '@');
        _cleanup_free_ char *name = NULL;
        size_t l;
        int r;

        if (!profile)
                return -EINVAL;
        /* Up to the unit's suffix: a profile scoped by a gateway's home has a dot of its own (profile.h). */
        l = strlen(profile + 1);
        if (l > strlen(".service") && streq(profile + 1 + l - strlen(".service"), ".service"))
                l -= strlen(".service");
        name = strndup(profile + 1, l);
        if (!name)
                return -ENOMEM;
        /* Every property of the unit file, from the same table. */
        for (size_t i = 0; i < unit_properties_count; i++) {
                r = append_property(m, &unit_properties[i], name, o->helper_path);
                if (r < 0)
                        return r;
        }
        if (o->network) {
                r = unit_network_append(m, o->network);
                if (r < 0)
                        return r;
        }
        if (!o->environment || !o->environment[0])
                return 0;
        /* The caller's variables, as systemd-run --user passes them (an
         * installed unit gets the user manager's environment instead). */
        return append_strv_property(m, "Environment", (const char *const *) o->environment);
}

int unit_start(sd_bus *bus, const char *unit, const struct unit_start_opts *o, char **ret_result) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER,
                                           o->transient ? "StartTransientUnit" : "StartUnit");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "ss", unit, "replace");
        if (r < 0 || !o->transient)
                goto call;
        r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = unit_append_transient_properties(m, unit, o);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                /* No auxiliary units. */
                r = sd_bus_message_append(m, "a(sa(sv))", 0);
call:
        if (r < 0)
                return r;
        return run_job(bus, m, o->timeout_usec, o->queued_lock, ret_result);
}

int unit_start_command(sd_bus *bus, const char *unit, char *const *argv, const char *bound_to, char **ret_result) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "StartTransientUnit");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", unit, "replace");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = sd_bus_message_append(m, "(sv)", "Type", "s", "exec");
        if (r >= 0)
                r = sd_bus_message_append(m, "(sv)", "CollectMode", "s", "inactive-or-failed");
        /* Gone with the unit it serves, whatever ends that one; started once that one runs. */
        if (r >= 0 && bound_to)
                r = sd_bus_message_append(m, "(sv)", "BindsTo", "as", 1, bound_to);
        if (r >= 0 && bound_to)
                r = sd_bus_message_append(m, "(sv)", "After", "as", 1, bound_to);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'r', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", "ExecStart");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "a(sasb)");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sasb)");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'r', "sasb");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", argv[0]);
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char **) argv);
        if (r >= 0)
                r = sd_bus_message_append(m, "b", 0);
        for (int i = 0; r >= 0 && i < 5; i++)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a(sa(sv))", 0);
        if (r < 0)
                return r;
        return run_job(bus, m, 0, NULL, ret_result);
}

int unit_stop(sd_bus *bus, const char *unit, char **ret_result) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "StopUnit");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", unit, "replace");
        if (r < 0)
                return r;
        r = run_job(bus, m, 0, NULL, ret_result);
        /* Stopping a unit that is not loaded is not an error. */
        return r == -ENOENT ? 0 : r;
}

int unit_active_state(sd_bus *bus, const char *unit, char **ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &path);
        if (r < 0)
                return r;
        r = sd_bus_get_property_string(bus, SD_DEST, path, "org.freedesktop.systemd1.Unit", "ActiveState", &error, ret);
        sd_bus_error_free(&error);
        return r;
}

int unit_exec_main_status(sd_bus *bus, const char *unit, int *ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        int32_t status = 0;
        int r;

        r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &path);
        if (r < 0)
                return r;
        r = sd_bus_get_property_trivial(bus, SD_DEST, path, "org.freedesktop.systemd1.Service", "ExecMainStatus",
                                        &error, 'i', &status);
        sd_bus_error_free(&error);
        if (r < 0)
                return r;
        *ret = status;
        return 0;
}

int unit_attach(sd_bus *bus, const char *unit, const char *subcgroup, pid_t pid) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "AttachProcessesToUnit", &error, NULL, "ssau",
                               unit, subcgroup, 1, (uint32_t) pid);
        sd_bus_error_free(&error);
        return r;
}
