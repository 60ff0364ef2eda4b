/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "keys.h"

/* A parsed value: numbers and enums in a (and b for band and geometry),
 * text in s (NULL when empty). */
struct config_value {
        unsigned a, b;
        char *s;
};

void config_value_done(struct config_value *v);

/*
 * Parses value as key k allows. Returns 0 with *ret filled (ret->s owned by
 * the caller); -EINVAL with *ret_problem set to what is wrong and what is
 * allowed ("out of range (allowed: 24..960)"), owned by the caller; -ENOMEM.
 */
int config_value_parse(const struct config_key_def *k, const char *value, struct config_value *ret,
                       char **ret_problem);

/* Stores a value into the field of k in c: a (and b) for numbers and enums,
 * a copy of s (NULL: unset) for text. */
int config_value_apply(const struct config_key_def *k, unsigned a, unsigned b, const char *s, struct bd_config *c);
