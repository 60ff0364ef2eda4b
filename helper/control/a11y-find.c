/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "a11y-find.h"
#include "util.h"

void a11y_query_done(struct a11y_query *q) {
        free(q->role);
        free(q->name);
        free(q->description);
        *q = (struct a11y_query) {};
}

static int fail(char **ret_error, const char *term, const char *why) {
        *ret_error = strdup_printf("--find term \"%s\": %s", term, why);
        return -EINVAL;
}

static int set_once(char **field, const char *value, const char *term, char **ret_error) {
        if (*field)
                return fail(ret_error, term, "given twice");
        *field = strdup(value);
        return *field ? 0 : -ENOMEM;
}

static int term_apply(struct a11y_query *q, const char *term, char **ret_error) {
        const char *eq = strchr(term, '=');
        _cleanup_free_ char *key = NULL;
        const char *value;
        bool exact = false;

        if (!eq || eq == term)
                return fail(ret_error, term, "not KEY=VALUE (keys: role, name, description, state)");
        key = strndup(term, (size_t) (eq - term));
        if (!key)
                return -ENOMEM;
        value = eq + 1;
        if (*value == '=') {
                exact = true;
                value++;
        }
        if (!*value)
                return fail(ret_error, term, "an empty value");
        if (streq(key, "role") && !exact)
                return set_once(&q->role, value, term, ret_error);
        if (streq(key, "name")) {
                q->name_exact = exact;
                return set_once(&q->name, value, term, ret_error);
        }
        if (streq(key, "description") && !exact)
                return set_once(&q->description, value, term, ret_error);
        if (streq(key, "state") && !exact) {
                bool negated = *value == '!';
                int s = a11y_state_from_name(value + negated);

                if (s < 0)
                        return fail(ret_error, term, "no such state (focused, checked, enabled, editable, "
                                                     "sensitive, showing, visible, selected, ...)");
                if (negated)
                        q->states_off |= UINT64_C(1) << s;
                else
                        q->states_on |= UINT64_C(1) << s;
                return 0;
        }
        return fail(ret_error, term, "keys are role=, name= (name== for the exact name), description= and state=");
}

int a11y_query_parse(const char *expr, struct a11y_query *ret, char **ret_error) {
        _cleanup_free_ char *copy = NULL;
        struct a11y_query q = {};
        char *save = NULL;
        int r = 0;

        *ret_error = NULL;
        if (!expr || !*expr) {
                *ret_error = strdup("--find needs at least one term, e.g. role=push button,name=Save");
                return -EINVAL;
        }
        copy = strdup(expr);
        if (!copy)
                return -ENOMEM;
        if (copy[strlen(copy) - 1] == ',' || copy[0] == ',' || strstr(copy, ",,")) {
                *ret_error = strdup_printf("--find \"%s\": an empty term", expr);
                return -EINVAL;
        }
        for (char *term = strtok_r(copy, ",", &save); term && r >= 0; term = strtok_r(NULL, ",", &save))
                r = term_apply(&q, term, ret_error);
        if (r < 0) {
                a11y_query_done(&q);
                return r;
        }
        *ret = q;
        return 0;
}

bool a11y_query_match(const struct a11y_query *q, const struct a11y_node *n) {
        if (q->role && !(n->role && strcasecmp(n->role, q->role) == 0))
                return false;
        if (q->name) {
                if (!n->name)
                        return false;
                if (q->name_exact ? !streq(n->name, q->name) : !strcasestr(n->name, q->name))
                        return false;
        }
        if (q->description && !(n->description && strcasestr(n->description, q->description)))
                return false;
        if ((n->states & q->states_on) != q->states_on || (n->states & q->states_off))
                return false;
        return true;
}
