/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "config.h"
#include "profile.h"

/*
 * What every verb of the `botdesk` CLI shares: the exit codes of the
 * design, the activity stamp, and the lease gate for agent-side actions.
 */

enum {
        EXIT_OK = 0,
        EXIT_FAILED = 1,          /* the operation failed; the message says why */
        EXIT_USAGE = 2,           /* usage or configuration error */
        EXIT_REFUSED = 3,         /* refused by policy: lease, memory, placement */
        EXIT_NOT_RUNNING = 4,     /* env, exec, thumbnail, rfb of a stopped desktop */
};


/* True (and says so, with what to do) when a human holds the lease, so that
 * the agent-side action `what` must be refused with EXIT_REFUSED. A lease
 * that cannot be read counts as a human's. */
bool human_has_control(int runtime_fd, const char *what);

struct lease;

/*
 * The lease gate of an agent action `what` (input, windows, cursor,
 * thumbnail, exec): EXIT_OK with the lease it was admitted under in *ret,
 * or EXIT_REFUSED (said, as human_has_control()) while a human holds it or
 * the file cannot be read.
 */
int cli_action_admit(int runtime_fd, const char *what, struct lease *ret);

/*
 * The same gate once the action is done: EXIT_OK when the lease is still
 * the one it was admitted under; otherwise the result is void: says so
 * (with --json, prints {"suppressed": "human_has_control", "action",
 * "profile", "epoch"} and nothing else) and returns EXIT_REFUSED.
 */
int cli_action_done(int runtime_fd, const char *profile, const char *what, const struct lease *admitted, bool json);

/* Whether the lease is still the one the action was admitted under (for checks while it runs). */
bool cli_action_still_valid(int runtime_fd, const struct lease *admitted);

/* The same as a callback of input_type(): userdata is a struct cli_admitted. */
struct cli_admitted {
        int runtime_fd;
        const struct lease *lease;
};
bool cli_still_admitted(void *userdata);

/* A valid profile name, else says why (NULL: missing) and returns -EINVAL. */
int cli_check_profile(const char *profile);

/* For the verbs built without what they need: whether the words after the
 * verb (argv[1..argc), up to "--") ask for its usage (-h, --help). */
bool cli_words_ask_help(int argc, char **argv);

/* Load the configuration (of profile, or the global one for NULL) from the
 * usual files; on errors print each with its file:line and a line saying
 * what to do, and return the negative errno. */
int cli_load_config(const char *profile, struct bd_config *c);

/* The profile's paths, its runtime dir created and verified private, opened
 * (O_DIRECTORY, O_CLOEXEC) into *ret_fd. Says what is wrong on failure. */
int cli_open_profile(const char *profile, struct bd_paths *p, int *ret_fd);
