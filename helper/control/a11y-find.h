/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "a11y.h"

/*
 * `botdesk a11y --find EXPR`: terms separated by commas, all of which a
 * node must meet:
 *   role=ROLE          the role, whole (case does not matter): role=push button
 *   name=TEXT          the name contains TEXT (case does not matter)
 *   name==TEXT         the name is TEXT, exactly
 *   description=TEXT   the description contains TEXT
 *   state=STATE        the node has STATE (focused, checked, enabled, ...)
 *   state=!STATE       the node has not
 * A value cannot hold a comma. Pure: no bus, no I/O.
 */
struct a11y_query {
        char *role;
        char *name;
        bool name_exact;
        char *description;
        uint64_t states_on, states_off;
};

void a11y_query_done(struct a11y_query *q);

/* 0, or -EINVAL with what is wrong in *ret_error (new). */
int a11y_query_parse(const char *expr, struct a11y_query *ret, char **ret_error);

bool a11y_query_match(const struct a11y_query *q, const struct a11y_node *n);
