/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Acting on one element of the accessibility tree (a11y.h): its own actions, or EditableText. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "a11y.h"
#include "bus-cleanup.h"
#include "util.h"

#define ATSPI_ACCESSIBLE "org.a11y.atspi.Accessible"

static int call_sync(sd_bus *bus, const char *b, const char *p, const char *iface, const char *member,
                     uint64_t timeout, sd_bus_message **ret, const char *types, ...) {
        _cleanup_(bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        va_list ap;
        int r;

        va_start(ap, types);
        r = a11y_method_call_newv(bus, &m, b, p, iface, member, types, ap);
        va_end(ap);
        if (r < 0)
                return r;
        r = sd_bus_call(bus, m, timeout, &e, ret);
        return r < 0 ? a11y_error_errno(&e, r) : 0;
}

static const char *const press_like[] = { "click", "press", "activate" };

static bool is_press_like(const char *a) {
        for (size_t i = 0; i < ELEMENTSOF(press_like); i++)
                if (strcasecmp(a, press_like[i]) == 0)
                        return true;
        return false;
}

bool a11y_action_valid(const char *action) {
        if (!action || !*action || strlen(action) > 64)
                return false;
        for (const char *p = action; *p; p++)
                if ((unsigned char) *p < 0x20)
                        return false;
        return true;
}

/* The index of action among the node's (a(sss)), with the stand-ins; -EOPNOTSUPP when none. */
static int action_index(sd_bus_message *m, const char *action) {
        _cleanup_strv_free_ char **names = NULL;
        const char *name, *desc, *keys;
        size_t n = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(sss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(sss)", &name, &desc, &keys)) > 0) {
                if (strcasecmp(name, action) == 0)
                        return (int) n;
                r = strv_push(&names, strdup(name));
                if (r < 0)
                        return r;
                n++;
        }
        if (r < 0)
                return r;
        if (!is_press_like(action))
                return -EOPNOTSUPP;
        for (size_t k = 0; k < ELEMENTSOF(press_like); k++)
                for (size_t i = 0; i < n; i++)
                        if (strcasecmp(names[i], press_like[k]) == 0)
                                return (int) i;
        return -EOPNOTSUPP;
}

int a11y_do(sd_bus *bus, const char *id, const char *action, const char *text, uint64_t timeout_usec) {
        _cleanup_(bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *b = NULL, *p = NULL;
        _cleanup_strv_free_ char **ifaces = NULL;
        bool has_action = false, editable = false;
        int done = 0, r;

        r = a11y_id_parse(id, &b, &p);
        if (r < 0)
                return -ENOENT;
        /* Whether it exists at all, and what it offers. */
        r = call_sync(bus, b, p, ATSPI_ACCESSIBLE, "GetInterfaces", timeout_usec, &reply, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_read_strv(reply, &ifaces);
        if (r < 0)
                return r;
        reply = sd_bus_message_unref(reply);
        for (char **s = ifaces; s && *s; s++) {
                has_action = has_action || streq(*s, "org.a11y.atspi.Action");
                editable = editable || streq(*s, "org.a11y.atspi.EditableText");
        }
        if (streq(action, "set-text")) {
                if (!editable)
                        return -EOPNOTSUPP;
                r = call_sync(bus, b, p, "org.a11y.atspi.EditableText", "SetTextContents", timeout_usec, &reply,
                              "s", text ?: "");
        } else {
                int index;

                if (!has_action)
                        return -EOPNOTSUPP;
                r = call_sync(bus, b, p, "org.a11y.atspi.Action", "GetActions", timeout_usec, &reply, NULL);
                if (r < 0)
                        return r;
                index = action_index(reply, action);
                if (index < 0)
                        return index;
                reply = sd_bus_message_unref(reply);
                r = call_sync(bus, b, p, "org.a11y.atspi.Action", "DoAction", timeout_usec, &reply, "i",
                              (int32_t) index);
        }
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "b", &done);
        if (r < 0)
                return r;
        return done ? 0 : -EIO;
}
