/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk config check|show [--profile P] [--origin]. */
#include "cli.h"
#include "config.h"
#include "log.h"
#include "util.h"
#include "verbs.h"

/* check: the files read, in the order of application, then the verdict. */
static void print_files(const struct config_set *set) {
        const char *name;

        if (!config_set_file(set, 0))
                puts("No configuration file found: the built-in defaults apply.");
        for (size_t i = 0; (name = config_set_file(set, i)); i++)
                printf("Read %s\n", name);
}

int verb_config(const struct cli_args *a) {
        const char *what = a->operand;
        _cleanup_(config_set_freep) struct config_set *set = NULL;
        _cleanup_(config_done) struct bd_config c = {};
        struct config_errors errs = {};
        const struct config_sources src = {};
        int r;

        if (!what || (!streq(what, "check") && !streq(what, "show")))
                return cli_usage(stderr, EXIT_USAGE);
        /* The set, not config_load(): show --origin asks it where each value was set. */
        r = config_set_load(&src, &set, &errs);
        if (r < 0) {
                config_errors_print(&errs, stderr);
                if (errs.n == 0)
                        log_error_errno(r, "Cannot load the configuration: %m");
                else
                        fprintf(stderr, "botdesk: %zu error%s in the configuration.\n", errs.n,
                                errs.n == 1 ? "" : "s");
                config_errors_done(&errs);
                return EXIT_USAGE;
        }
        config_errors_done(&errs);
        r = config_set_build(set, a->profile_opt, &c);
        if (r < 0) {
                log_oom();
                return EXIT_FAILED;
        }
        if (streq(what, "show")) {
                if (a->origin)
                        config_dump_origin(&c, set, a->profile_opt, stdout);
                else
                        config_dump(&c, stdout);
        } else if (!a->quiet) {
                print_files(set);
                puts("Configuration is valid.");
        }
        return EXIT_OK;
}
