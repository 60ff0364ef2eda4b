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
#define X11_VERBS_ABI 9u

#include <stdbool.h>
#include <stdio.h>

struct cli_args;

/* A verb of the module: its words as main.c's parser read them (verb-table.c: its row). */
typedef int (*x11_args_fn)(const struct cli_args *a);

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
        /* The verb called name, or NULL. */
        x11_args_fn (*lookup_args)(const char *name);
        /* The module's own copies of the logging and JSON state, for the CLI's --json error object
         * (cli/main.c): the first error it said, and whether it answered in JSON on stdout. */
        const char *(*first_error)(void);
        bool (*json_stdout_used)(void);
};

/* The input verbs by name (x11-verbs-input.c): the real ones, or the
 * fallbacks that say what a build without XTEST lacks. */
x11_args_fn x11_input_args_verb(const char *name);

/*
 * Run a->verb when it is one of the module's. Returns the verb's CLI exit
 * code, EXIT_FAILED (said) when the module cannot be loaded, or -ENOENT
 * when a->verb is none of them, so that the caller goes on. A build
 * without thumbnails has no module: its fallback verbs say so
 * (x11-verbs-fallback.c).
 */
int x11_verb_run_args(const struct cli_args *a);

/* What the module that ran a verb said (NULL, false when none ran, or the verbs are linked in). */
const char *x11_verb_first_error(void);
bool x11_verb_json_stdout_used(void);
