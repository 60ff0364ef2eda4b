/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include <limits.h>
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
        EXIT_NOT_RUNNING = 4,     /* env, thumbnail, rfb of a stopped desktop */
        /* exec exits with its command's status, so its own failures (1-4 above)
         * are this one, out of the command's usual range, as env(1) and
         * podman-run(1) reserve 125; 126 and 127 keep the shell's meaning. */
        EXIT_EXEC_FAILED = 125,
        EXIT_CANNOT_EXECUTE = 126,
        EXIT_NOT_FOUND = 127,
};


/* True (and says so, with what to do) when a human holds the lease, so that
 * the agent-side action `what` must be refused with EXIT_REFUSED. A lease
 * that cannot be read counts as a human's. */
bool human_has_control(int runtime_fd, const char *what);

struct lease;

/* No --epoch: an action runs under whatever epoch it finds. */
#define CLI_EPOCH_ANY ULLONG_MAX

/*
 * The one parser of an agent action's --epoch N (every verb's, and the MCP
 * tools' epoch): a lease epoch, 0-2^53-1, in decimal. 0, or -EINVAL when
 * value is not one (said: the caller exits EXIT_USAGE).
 */
int cli_epoch_parse(const char *value, unsigned long long *ret);

/* The epoch this process's agent actions are pinned to: main.c's --epoch,
 * handed on to botdesk-x11.so (x11-verbs.h). CLI_EPOCH_ANY when none. */
void cli_epoch_pin_set(unsigned long long epoch);
unsigned long long cli_epoch_pin(void);

/*
 * The gate's rule, silent: NULL when an action pinned to pin (CLI_EPOCH_ANY:
 * not pinned) may run under lease l; else why not, as "suppressed" says it:
 * "human_has_control" while a human holds control or the lease cannot be
 * read; "epoch_moved" when the lease is no longer at the pinned epoch, even
 * if the agent holds control again (a gateway approved the action at that
 * epoch and never saw what happened since).
 */
const char *cli_action_veto(const struct lease *l, unsigned long long pin);

/*
 * The lease gate of an agent action `what` (input, windows, cursor,
 * thumbnail, exec, clipboard, the MCP tools), pinned to pin: reads the
 * lease into *ret (the one read that decides; its epoch is what the checks
 * after the action compare) and returns NULL to go on, or the veto, said on
 * stderr with what to do.
 */
const char *cli_action_admit_pinned(int runtime_fd, const char *what, unsigned long long pin, struct lease *ret);

/*
 * The same for a verb of the CLI, pinned to cli_epoch_pin(): EXIT_OK, or
 * EXIT_REFUSED, said (with --json also {"suppressed": "human_has_control"
 * or "epoch_moved", "action", "profile", "epoch"} on stdout, and nothing
 * else).
 */
int cli_action_admit(int runtime_fd, const char *profile, const char *what, bool json, struct lease *ret);
/* The same, judged on a lease read elsewhere (a placed desktop's, as its status said it). */
int cli_action_admit_lease(const struct lease *l, const char *profile, const char *what, bool json);

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
/* A snapshot's NAME (snapshot.h) given to verb: 0, or -EINVAL, said (a usage error). */
int cli_check_snapshot_name(const char *verb, const char *profile, const char *name);

/* Load the configuration (of profile, or the global one for NULL) from the
 * usual files; on errors print each with its file:line and a line saying
 * what to do, and return the negative errno. */
int cli_load_config(const char *profile, struct bd_config *c);
/* The profile's configuration: given when set (main's, read to decide where
 * the verb runs: struct cli_args.config), else read now into *storage as
 * cli_load_config() does. NULL when it has errors. */
const struct bd_config *cli_config(const struct bd_config *given, const char *profile, struct bd_config *storage);

/* Where the profile's desktop is, by its configuration (given, else read): a configuration with errors
 * reads as here, for the verb to say them. */
enum cli_desktop_place {
        CLI_PLACE_HERE,
        CLI_PLACE_EXEC,         /* placement = exec: through its prefix */
        CLI_PLACE_REMOTE,       /* remote =: a VNC server botdesk did not start */
};
enum cli_desktop_place cli_desktop_place(const struct bd_config *given, const char *profile);

/* The profile's paths, its runtime dir created and verified private, opened
 * (O_DIRECTORY, O_CLOEXEC) into *ret_fd. Says what is wrong on failure. */
int cli_open_profile(const char *profile, struct bd_paths *p, int *ret_fd);

/* [agent] toolset_disabled's words as a mask of the computer toolset's members (action.h). A CLI exit code,
 * said: an unknown name is EXIT_USAGE. */
int cli_members_off(const char *words, uint32_t *ret);

/* verb_start_on_demand() (verbs.h) for the verbs of botdesk-x11.so and the
 * agent, which have no struct cli_args of start's to hand on: the CLI's own,
 * or in the module the host's (x11-verbs.h hands it over). */
int cli_start_on_demand(const char *profile, bool flag);
