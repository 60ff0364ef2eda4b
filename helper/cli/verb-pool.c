/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk pool [list|fill|drain]: the warm spares of [pool] spares. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "json.h"
#include "log.h"
#include "pool.h"
#include "util.h"
#include "verbs.h"

static int pool_print(bool json) {
        _cleanup_(config_done) struct bd_config c = {};
        _cleanup_free_ struct pool_spare *list = NULL;
        _cleanup_free_ char *settings = NULL;
        size_t n;
        int r;

        if (cli_load_config(NULL, &c) < 0)
                return EXIT_USAGE;
        settings = config_dump_text(&c);
        r = pool_list(settings, &list, &n);

        if (r < 0)
                return log_error_errno(r, "Cannot list the spares: %m"), EXIT_FAILED;
        if (json) {
                struct json j;

                json_init(&j, stdout);
                json_array_begin(&j);
                for (size_t i = 0; i < n; i++) {
                        json_object_begin(&j);
                        json_kv_string(&j, "name", list[i].name);
                        json_kv_string(&j, "state", list[i].phase == HELPER_READY ? "ready" : "starting");
                        json_kv_bool(&j, "stale", list[i].stale);
                        json_kv_int(&j, "display", list[i].display);
                        json_kv_int(&j, "pid", (long long) list[i].pid);
                        json_object_end(&j);
                }
                json_array_end(&j);
                putchar('\n');
                return EXIT_OK;
        }
        for (size_t i = 0; i < n; i++)
                printf("%s %s%s :%d pid %d\n", list[i].name, list[i].phase == HELPER_READY ? "ready" : "starting",
                       list[i].stale ? " (stale: the settings changed since)" : "", list[i].display, (int) list[i].pid);
        return EXIT_OK;
}

int verb_pool(const struct cli_args *a) {
        const char *what = a->operand ?: "list";
        _cleanup_(config_done) struct bd_config c = {};
        int r;

        if (streq(what, "list"))
                return pool_print(a->json);
        if (streq(what, "drain")) {
                r = pool_drain(a->quiet);
                if (r < 0)
                        return log_error_errno(r, "Cannot stop every spare: %m"), EXIT_FAILED;
                return EXIT_OK;
        }
        if (!streq(what, "fill")) {
                log_error("Unknown pool action \"%s\": use list, fill or drain.", what);
                return EXIT_USAGE;
        }
        if (cli_load_config(NULL, &c) < 0)
                return EXIT_USAGE;
        if (c.spares == 0) {
                if (!a->quiet)
                        fprintf(stderr, "[pool] spares = 0: no spare to start.\n");
                return EXIT_OK;
        }
        r = pool_fill(&c, !a->quiet && isatty(STDERR_FILENO), a->quiet);
        return r < 0 ? EXIT_FAILED : EXIT_OK;
}
