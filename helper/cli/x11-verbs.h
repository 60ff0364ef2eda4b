/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The verbs that speak X (thumbnail, input, windows, cursor) live in a
 * module, botdesk-x11.so, that the CLI loads only when one of them runs: a
 * fresh `botdesk status` then maps none of xcb, libpng, libjpeg,
 * xkbcommon and their dependencies (about half the startup of the process
 * went to the dynamic loader relocating them).
 *
 * The module exports one symbol, X11_VERBS_SYMBOL, a struct x11_verbs. A
 * module built from other sources than the CLI is refused by abi.
 */
#define X11_VERBS_MODULE "botdesk-x11.so"
#define X11_VERBS_SYMBOL "botdesk_x11_verbs"
/* Bumped whenever the struct below, or struct cli_args (verbs.h) it hands over, changes. */
#define X11_VERBS_ABI 11u

#include <stdbool.h>
#include <stdio.h>

struct cli_args;
struct verb;

/* A verb of the module: its words as main.c's parser read them (verb-table.c: its row). */
typedef int (*x11_args_fn)(const struct cli_args *a);

/* The module's verbs, one row each, the list ended by a row without a name: every row of the table
 * (verb-table.c) whose module is botdesk-x11.so, where the build has its feature. */
struct x11_verb_row {
        const char *name;
        x11_args_fn run;
};

/* What the module's verbs take from the CLI that loaded them. */
struct x11_host {
        const char *program;            /* for the module's own copy of the logging state */
        int (*start_on_demand)(const char *profile, bool flag);    /* verbs.h */
        void (*verb_usage_to)(FILE *f, const char *verb);          /* verbs.h: cli_verb_usage_to */
        unsigned long long epoch_pin;   /* the action's --epoch, taken by main.c (cli.h: cli_epoch_pin) */
};

struct x11_verbs {
        unsigned abi;
        const char *version;            /* BOTDESK_VERSION of the module's build */
        void (*setup)(const struct x11_host *host);
        const struct x11_verb_row *rows;
        /* The module's own copies of the logging and JSON state, for the CLI's --json error object
         * (cli/main.c): the first error it said, and whether it answered in JSON on stdout. */
        const char *(*first_error)(void);
        bool (*json_stdout_used)(void);
};

/* The module's verbs (x11-verbs-rows.c; thumbnail alone in a build without XTEST: x11-verbs-rows-fallback.c). */
extern const struct x11_verb_row x11_module_rows[];

/* The row called name in rows, or NULL. */
const struct x11_verb_row *x11_verb_row_find(const struct x11_verb_row *rows, const char *name);

/*
 * Run verb v (a row of the module) with a. Returns the verb's CLI exit
 * code, or EXIT_FAILED (said) when the module cannot be loaded, or the
 * build lacks the feature the verb needs (x11_verb_missing()). A build
 * without thumbnails has no module (x11-verbs-fallback.c).
 */
int x11_verb_run_args(const struct verb *v, const struct cli_args *a);

/* What a build without v's feature says for it (x11-verbs-missing.c): EXIT_FAILED. */
int x11_verb_missing(const struct verb *v);

/* What the module that ran a verb said (NULL, false when none ran, or the verbs are linked in). */
const char *x11_verb_first_error(void);
bool x11_verb_json_stdout_used(void);
