/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "nearest.h"
#include "util.h"

/* Names are short: a longer word is no one's typo, and the rows stay on the stack. */
#define NAME_MAX_LEN 64

unsigned edit_distance(const char *a, const char *b, unsigned max) {
        size_t la = strlen(a), lb = strlen(b);
        /* Three rows: the swap of two neighbours looks two rows back. */
        unsigned d[3][NAME_MAX_LEN + 1];

        if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN || (la > lb ? la - lb : lb - la) > max)
                return max + 1;
        for (size_t j = 0; j <= lb; j++)
                d[0][j] = (unsigned) j;
        for (size_t i = 1; i <= la; i++) {
                unsigned *row = d[i % 3], *prev = d[(i - 1) % 3], *prev2 = d[(i + 1) % 3];

                row[0] = (unsigned) i;
                for (size_t j = 1; j <= lb; j++) {
                        unsigned cost = a[i - 1] != b[j - 1], v = prev[j - 1] + cost;

                        if (prev[j] + 1 < v)
                                v = prev[j] + 1;
                        if (row[j - 1] + 1 < v)
                                v = row[j - 1] + 1;
                        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
                                v = prev2[j - 2] + 1;
                        row[j] = v;
                }
        }
        return d[la % 3][lb] > max ? max + 1 : d[la % 3][lb];
}

void nearest_init(struct nearest *n, const char *word) {
        *n = (struct nearest) { .word = word, .best_d = NEAREST_MAX + 1 };
}

void nearest_add(struct nearest *n, const char *name) {
        unsigned d;

        if (!n->word || !name)
                return;
        /* The name itself is no guess: there the value or the place was wrong. */
        if (streq(n->word, name)) {
                n->word = NULL;
                return;
        }
        d = edit_distance(n->word, name, NEAREST_MAX);
        if (d < n->best_d) {
                n->best = name;
                n->best_d = d;
        }
        /* "--" or "-" alone begins every option: no prefix worth a guess. */
        if (n->word[strspn(n->word, "-")] && startswith(name, n->word)) {
                n->prefix_of = name;
                n->n_prefix++;
        }
}

const char *nearest_result(const struct nearest *n) {
        if (!n->word)
                return NULL;
        if (n->best)
                return n->best;
        return n->n_prefix == 1 ? n->prefix_of : NULL;
}
