/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk config check|show [--profile P]. */
#include "cli.h"
#include "config.h"
#include "util.h"
#include "verbs.h"

int verb_config(const struct cli_args *a) {
        const char *what = a->operand;
        _cleanup_(config_done) struct bd_config c = {};
        struct config_errors errs = {};
        const struct config_sources src = {};
        int r;

        if (!what || (!streq(what, "check") && !streq(what, "show")))
                return cli_usage(stderr, EXIT_USAGE);
        if (a->profile_opt && cli_check_profile(a->profile_opt) < 0)
                return EXIT_USAGE;
        r = config_load(&c, a->profile_opt, &src, &errs);
        if (r < 0) {
                config_errors_print(&errs, stderr);
                fprintf(stderr, "botdesk: %zu error%s in the configuration.\n", errs.n, errs.n == 1 ? "" : "s");
                config_errors_done(&errs);
                return EXIT_USAGE;
        }
        config_errors_done(&errs);
        if (streq(what, "show"))
                config_dump(&c, stdout);
        else if (!a->quiet)
                puts("Configuration is valid.");
        return EXIT_OK;
}
