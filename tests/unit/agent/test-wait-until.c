/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk wait's conditions (helper/agent/wait-until.c): each word parses to
 * its kind and value (a11y=ROLE:NAME to the query a11y-find.h matches,
 * quiet to its default or given time); what is malformed is refused with
 * a message that names the valid form, and nothing is kept.
 */
#include <stdlib.h>

#include "a11y-find.h"
#include "tap.h"
#include "util.h"
#include "cli.h"
#include "wait-until.h"

/* The module's one call into the CLI (x11-verbs-module.c), never made here. */
int cli_start_on_demand(const char *profile, bool flag) {
        abort();
}

static bool parses(const char *spec, enum wait_kind kind, const char *value) {
        struct wait_condition c;
        char *error = NULL;
        bool ok;

        if (wait_condition_parse(spec, &c, &error) < 0) {
                printf("#   %s: %s\n", spec, error);
                free(error);
                return false;
        }
        ok = c.kind == kind && streq_ptr(c.value, value) && streq(wait_kind_name(c.kind), wait_kind_name(kind));
        wait_condition_done(&c);
        return ok;
}

static bool refused(const char *spec, const char *said) {
        struct wait_condition c = { .kind = WAIT_CHANGED };
        char *error = NULL;
        int r = wait_condition_parse(spec, &c, &error);
        bool ok = r == -EINVAL && error && strstr(error, said);

        if (!ok)
                printf("#   %s: %d \"%s\"\n", spec, r, strnull(error));
        free(error);
        return ok;
}

/* A node of role and name, as the tree gives it. */
static bool a11y_matches(const char *spec, const char *role, const char *name) {
        struct wait_condition c;
        char *error = NULL;
        struct a11y_node n = { .role = (char *) role, .name = (char *) name, .parent = 0 };
        bool ok;

        if (wait_condition_parse(spec, &c, &error) < 0) {
                free(error);
                return false;
        }
        ok = c.kind == WAIT_A11Y && a11y_query_match(&c.query, &n);
        wait_condition_done(&c);
        return ok;
}

int main(void) {
        struct wait_condition c;
        char *error = NULL;

        tap_ok(parses("window=Save As", WAIT_WINDOW, "Save As"), "window=TITLE: a window, the title as given");
        tap_ok(parses("gone=Untitled", WAIT_GONE, "Untitled"), "gone=TITLE");
        tap_ok(parses("text=Hello, world", WAIT_TEXT, "Hello, world"), "text=STRING, commas and spaces included");
        tap_ok(parses("a11y=push button:Save", WAIT_A11Y, "push button:Save"), "a11y=ROLE:NAME");
        tap_ok(parses("changed", WAIT_CHANGED, NULL), "changed");

        tap_ok(wait_condition_parse("quiet", &c, &error) == 0 && c.kind == WAIT_QUIET &&
               c.quiet_ms == SETTLE_QUIET_MS_DEFAULT, "quiet: settle's default quiet time");
        tap_ok(wait_condition_parse("quiet=750", &c, &error) == 0 && c.kind == WAIT_QUIET && c.quiet_ms == 750,
               "quiet=MS: that time");

        tap_ok(a11y_matches("a11y=push button:Save", "push button", "Save as...") &&
               a11y_matches("a11y=PUSH BUTTON:save", "push button", "Save"),
               "a11y=: the role whole and the name contained, in any case");
        tap_ok(!a11y_matches("a11y=push button:Save", "toggle button", "Save") &&
               !a11y_matches("a11y=push button:Save", "push button", "Open"),
               "... another role or a name without it does not match");
        tap_ok(a11y_matches("a11y=:Save", "menu item", "Save") && a11y_matches("a11y=dialog:", "dialog", "Print"),
               "... an empty role is any role, an empty name any name");

        tap_ok(refused("title=x", "Unknown condition \"title=x\": give " WAIT_CONDITIONS),
               "an unknown condition names the valid ones");
        tap_ok(refused("window", "Unknown condition"), "a condition word without its value is unknown");
        tap_ok(refused("window=", "Empty title") && refused("gone=", "Empty title") &&
               refused("text=", "Empty STRING") && refused("a11y=", "Empty ROLE:NAME"),
               "an empty value is refused, naming what to give");
        tap_ok(refused("a11y=Save", "has no colon: give a11y=ROLE:NAME"), "a11y= without a colon");
        tap_ok(refused("a11y=:", "names nothing"), "a11y=: with neither role nor name");
        tap_ok(refused("a11y=push button:Save,Open", "holds a comma"), "a11y= with a comma, which no query term holds");
        tap_ok(refused("quiet=0", "MS 1-60000") && refused("quiet=60001", "MS 1-60000") &&
               refused("quiet=5s", "MS 1-60000") && refused("quiet=", "MS 1-60000"),
               "a quiet time outside 1-60000 ms or not a number");
        tap_ok(refused("changed=1", "Unknown condition"), "changed takes no value");
        return tap_done();
}
