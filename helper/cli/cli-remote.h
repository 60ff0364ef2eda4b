/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/*
 * Placement by exec prefix: for a profile whose desktop lives elsewhere
 * (an owner record, else placement = exec), the verb runs there as
 * `PREFIX... botdesk VERB ARGS...`, with this process's stdin and stdout
 * (so `rfb` is a byte stream end to end) and its exit code. A prefix that
 * cannot run (its program missing, the sandbox gone, botdesk missing there)
 * is exit 1 with what failed; nothing is ever started on this host instead.
 */

struct bd_config;
struct cli_args;
struct verb;

/*
 * Verb v as main.c's parser read it into a: its words go there as
 * a->far_words, its options are read from a. Returns the exit code,
 * or -1 when the verb runs on this host; then, when the profile's
 * configuration was read to decide, it is moved into *ret_config and
 * *ret_read is true, for the verb to use rather than read it again.
 * *ret_far: the code is the far side's botdesk's (which said its own
 * errors), not a failure here to run the prefix.
 */
int remote_dispatch(const struct verb *v, const struct cli_args *a, struct bd_config *ret_config, bool *ret_read,
                    bool *ret_far);

/*
 * For `status` of every profile, and `status P --json`: when profile is
 * placed elsewhere, 1 and in *ret its status from there (one JSON object
 * with json, else a line of text; a "not running" one with the reason when
 * the far side cannot be reached), without a final newline. 0 when it runs
 * on this host. timeout_s: the far side's deadline; 0 for status's own.
 */
int remote_status_text(const char *profile, const struct bd_config *c, bool json, unsigned timeout_s, char **ret);

