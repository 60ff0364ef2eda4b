/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-x11.so: the table of the verbs that speak X, its only export
 * (x11-verbs.map). See x11-verbs.h.
 */
#include "botdesk-config.h"
#include "cli.h"
#include "verbs.h"
#include "json.h"
#include "log.h"
#include "util.h"
#include "x11-verbs.h"

static int (*host_start_on_demand)(const char *profile, bool flag);
static void (*host_verb_usage_to)(FILE *f, const char *verb);

/* input --start starts the desktop the way the CLI's own verbs do: through it. */
int cli_start_on_demand(const char *profile, bool flag) {
        if (!host_start_on_demand)
                return EXIT_FAILED;
        return host_start_on_demand(profile, flag);
}

/* The CLI's table holds every verb's lines of the usage: a verb without
 * its own (a fallback) prints those. */
void cli_verb_usage_to(FILE *f, const char *verb) {
        if (host_verb_usage_to)
                host_verb_usage_to(f, verb);
}

int cli_verb_usage(const char *verb) {
        if (!host_verb_usage_to)
                return EXIT_FAILED;
        host_verb_usage_to(stdout, verb);
        return EXIT_OK;
}

static void setup(const struct x11_host *host) {
        log_setup(host->program);
        log_keep_first_error();
        host_start_on_demand = host->start_on_demand;
        host_verb_usage_to = host->verb_usage_to;
        cli_epoch_pin_set(host->epoch_pin);
}

const struct x11_verbs botdesk_x11_verbs = {
        .abi = X11_VERBS_ABI,
        .version = BOTDESK_VERSION,
        .setup = setup,
        .rows = x11_module_rows,
        .first_error = log_first_error,
        .json_stdout_used = json_stdout_used,
};
