/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "verb-table.h"

/* The option of verb v that word names: its id, with a "--NAME=VALUE" word's value in *ret_inline; -1 for
 * none, -ENOMEM. */
int option_find(const struct verb *v, const char *word, const char **ret_inline);

/* Sets option id of a to value (NULL: none followed), word as typed: its value judged and converted.
 * Returns an exit code, said. */
int option_apply(struct cli_args *a, int id, const char *word, const char *value);
