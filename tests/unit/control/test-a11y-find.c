/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The accessibility tree's pure parts: --find expressions (what parses,
 * what is refused and why, what a query matches), element ids (an id gives
 * back the bus name and path it was made of; what is not an id is
 * refused), state names, and the password role whose text is never read.
 */
#undef NDEBUG
#include <string.h>

#include "a11y-find.h"
#include "a11y.h"
#include "tap.h"
#include "util.h"

static struct a11y_node node(const char *role, const char *name, uint64_t states) {
        return (struct a11y_node) { .role = (char *) role, .name = (char *) name, .description = (char *) "",
                                    .states = states };
}

static bool matches(const char *expr, const struct a11y_node *n) {
        _cleanup_(a11y_query_done) struct a11y_query q = {};
        _cleanup_free_ char *error = NULL;

        return a11y_query_parse(expr, &q, &error) == 0 && a11y_query_match(&q, n);
}

static void refused(const char *expr, const char *why, const char *desc) {
        _cleanup_(a11y_query_done) struct a11y_query q = {};
        _cleanup_free_ char *error = NULL;
        int r = a11y_query_parse(expr, &q, &error);

        tap_ok(r == -EINVAL && error && strstr(error, why), "%s (\"%s\": %s)", desc, expr, strnull(error));
}

int main(void) {
        uint64_t enabled = UINT64_C(1) << A11Y_STATE_ENABLED, checked = UINT64_C(1) << A11Y_STATE_CHECKED;
        struct a11y_node save = node("push button", "Save", enabled);
        struct a11y_node box = node("check box", "Remember me", enabled | checked);
        char *bus = NULL, *path = NULL;

        tap_ok(matches("role=push button,name==Save", &save), "role and exact name find the button");
        tap_ok(matches("role=PUSH BUTTON", &save), "a role matches whatever its case");
        tap_ok(!matches("role=push", &save), "... but whole: role=push is not push button");
        tap_ok(matches("name=sav", &save), "name= is a substring, whatever its case");
        tap_ok(!matches("name==Sav", &save), "name== is the exact name");
        tap_ok(!matches("name==save", &save), "... case included");
        tap_ok(matches("state=checked", &box) && !matches("state=checked", &save), "state= needs the state");
        tap_ok(matches("state=!checked", &save) && !matches("state=!checked", &box), "state=! needs its absence");
        tap_ok(matches("state=enabled,state=checked", &box), "several states, all needed");
        tap_ok(!matches("role=check box,name=Save", &box), "every term must hold");

        refused("", "at least one term", "an empty expression is refused");
        refused("colour=red", "keys are", "an unknown key is refused, naming the keys");
        refused("name", "not KEY=VALUE", "a term without = is refused");
        refused("name=", "an empty value", "an empty value is refused");
        refused("role=a,,name=b", "an empty term", "an empty term is refused");
        refused("role=a,", "an empty term", "a trailing comma is refused");
        refused("state=sleepy", "no such state", "an unknown state is refused");
        refused("role=a,role=b", "given twice", "a key given twice is refused");
        refused("role==a", "keys are", "== is for names only");

        TAP_EQ_INT(a11y_id_parse("1.42:17", &bus, &path), 0, "an id parses");
        tap_ok(streq_ptr(bus, ":1.42") && streq_ptr(path, "/org/a11y/atspi/accessible/17"),
               "... into its unique name and AT-SPI's path (%s %s)", strnull(bus), strnull(path));
        free(bus), free(path), bus = path = NULL;
        TAP_EQ_INT(a11y_id_parse("1.42:/org/qt/accessible/7", &bus, &path), 0, "an id with a path of its own parses");
        tap_ok(streq_ptr(path, "/org/qt/accessible/7"), "... into that path");
        free(bus), free(path), bus = path = NULL;
        TAP_EQ_INT(a11y_id_parse("not-an-id", &bus, &path), -EINVAL, "a word without a colon is no id");
        TAP_EQ_INT(a11y_id_parse("x.1:17", &bus, &path), -EINVAL, "a bus name that is not a unique name's is refused");
        TAP_EQ_INT(a11y_id_parse("1.42:", &bus, &path), -EINVAL, "an id without a path is refused");
        TAP_EQ_INT(a11y_id_parse("1.42:a/../b", &bus, &path), -EINVAL, "a path that is not an object path is refused");

        TAP_EQ_INT(a11y_state_from_name("focused"), 12, "focused is AT-SPI's state 12");
        tap_ok(streq_ptr(a11y_state_name(A11Y_STATE_CHECKED), "checked"), "state 4 is checked");
        tap_ok(a11y_role_is_password("password text") && !a11y_role_is_password("text"),
               "password text is the password role, text is not");
        tap_ok(a11y_action_valid("click") && a11y_action_valid("set-text") && !a11y_action_valid("") &&
               !a11y_action_valid("a\nb"), "an action is a short printable word");
        return tap_done();
}
