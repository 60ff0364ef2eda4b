/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * "Did you mean" guesses only when a name is near: within two edits (a
 * swap of neighbours is one), or the one name a word begins; a word near
 * nothing, a prefix of two names, or a name itself gets no guess.
 */
#include "nearest.h"
#include "tap.h"

static const char *guess(const char *word, const char *const *names) {
        struct nearest n;

        nearest_init(&n, word);
        for (; *names; names++)
                nearest_add(&n, *names);
        return nearest_result(&n);
}

int main(void) {
        static const char *const verbs[] = { "start", "stop", "status", "list", "lease", "help", NULL };
        static const char *const options[] = { "--json", "--quiet", "--timeout", "--help", NULL };

        TAP_EQ_INT(edit_distance("status", "stauts", 2), 1, "a swap of neighbours is one edit");
        TAP_EQ_INT(edit_distance("list", "lsit", 2), 1, "... at the start too");
        TAP_EQ_INT(edit_distance("stop", "sotp", 2), 1, "... and in the middle");
        TAP_EQ_INT(edit_distance("--json", "--jsno", 2), 1, "... and at the end");
        TAP_EQ_INT(edit_distance("json", "jason", 2), 1, "a letter added is one edit");
        TAP_EQ_INT(edit_distance("status", "statsu", 2), 1, "a swapped last pair is one edit");
        TAP_EQ_INT(edit_distance("abc", "xyz", 2), 3, "a distance over max is max + 1");
        TAP_EQ_INT(edit_distance("a", "abcdefgh", 2), 3, "... also when the lengths alone say so");

        TAP_EQ_STR(guess("stauts", verbs), "status", "a misspelt verb is named");
        TAP_EQ_STR(guess("hlep", verbs), "help", "help is guessed too");
        TAP_EQ_STR(guess("stat", verbs), "start", "the nearer of two names wins over a prefix");
        TAP_EQ_STR(guess("--qu", options), "--quiet", "the one name a word begins is named");
        TAP_EQ_STR(guess("--ti", options), "--timeout", "... however far by edits");
        TAP_EQ_STR(guess("l", verbs), NULL, "a prefix of two names gets no guess");
        TAP_EQ_STR(guess("--", options), NULL, "dashes alone begin every option: no guess");
        TAP_EQ_STR(guess("frobnicate", verbs), NULL, "a word near nothing gets no guess");
        TAP_EQ_STR(guess("--json", options), NULL, "a name itself gets no guess (its value or place was wrong)");
        TAP_EQ_STR(guess(NULL, verbs), NULL, "no word, no guess");

        return tap_done();
}
