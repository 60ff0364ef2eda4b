/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * "Did you mean": the valid name nearest to a misspelt word, as systemd's
 * verbs say it. Near is within NEAREST_MAX edits (a letter added, dropped,
 * changed, or two neighbours swapped), else the one name the word begins
 * (a prefix of two names is a guess too many). Candidates are fed one by
 * one; the first of equally near ones wins, so a table's order decides.
 */

#include <stdbool.h>

#define NEAREST_MAX 2u

struct nearest {
        const char *word;
        const char *best;       /* within NEAREST_MAX edits */
        unsigned best_d;
        const char *prefix_of;  /* the name the word begins */
        unsigned n_prefix;      /* how many names it begins */
};

void nearest_init(struct nearest *n, const char *word);
void nearest_add(struct nearest *n, const char *name);
/* The guess, or NULL when nothing was near (or the word was a name itself). */
const char *nearest_result(const struct nearest *n);

/* The edit distance of a and b (optimal string alignment), or max + 1 when it is over max. */
unsigned edit_distance(const char *a, const char *b, unsigned max);
