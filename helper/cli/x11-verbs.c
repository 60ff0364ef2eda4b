/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CLI's side of botdesk-x11.so (x11-verbs.h): dlopen it only for the
 * verbs that need X, by path: next to the CLI's own executable (a build
 * tree), else the installed libdir/botdesk. Never through the loader's
 * search path (LD_LIBRARY_PATH), nor any path a caller chose.
 */
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include "botdesk-config.h"
#include "cli.h"
#include "verbs.h"
#include "log.h"
#include "util.h"
#include "verb-table.h"
#include "x11-verbs.h"

/* The module next to /proc/self/exe when there is one, else the installed one. */
static void *open_module(void) {
        char exe[PATH_MAX], *slash;
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe);

        if (n > 0 && (size_t) n < sizeof exe) {
                exe[n] = 0;
                slash = strrchr(exe, '/');
                if (slash && strscpy(slash + 1, sizeof exe - (size_t) (slash + 1 - exe), X11_VERBS_MODULE) >= 0) {
                        void *h;

                        /* Lazy, as the libraries were when the CLI linked
                         * them: binding every symbol of xcb, libpng and
                         * libjpeg now costs 0.4 ms that no verb uses
                         * (tests/unit/test-x11-verbs.c checks that the
                         * module resolves whole). */
                        if (access(exe, F_OK) >= 0 && (h = dlopen(exe, RTLD_LAZY | RTLD_LOCAL)))
                                return h;
                }
        }
        return dlopen(BOTDESK_X11_MODULE_PATH, RTLD_LAZY | RTLD_LOCAL);
}

/* The module, loaded and checked for verb (only the table's rows of the module's verbs call here), or NULL (said). */
static const struct x11_verbs *module_load(const char *verb) {
        const struct x11_verbs *m;
        /* Never closed: the process ends with the verb. */
        void *h = open_module();

        if (!h) {
                log_error("Cannot load %s for \"%s\": %s; reinstall botdesk.", BOTDESK_X11_MODULE_PATH, verb,
                          dlerror());
                return NULL;
        }
        m = dlsym(h, X11_VERBS_SYMBOL);
        if (!m || m->abi != X11_VERBS_ABI || !streq_ptr(m->version, BOTDESK_VERSION)) {
                log_error("%s is not the one of botdesk " BOTDESK_VERSION "; reinstall botdesk.", X11_VERBS_MODULE);
                return NULL;
        }
        return m;
}

static void module_setup(const struct x11_verbs *m) {
        m->setup(&(const struct x11_host) {
                .program = "botdesk",
                .start_on_demand = cli_start_on_demand,
                .verb_usage_to = cli_verb_usage_to,
                .epoch_pin = cli_epoch_pin(),
        });
}

/* The module whose verb ran: asked afterwards what it said. */
static const struct x11_verbs *ran;

int x11_verb_run_args(const struct verb *v, const struct cli_args *a) {
        const struct x11_verbs *m = module_load(v->name);
        const struct x11_verb_row *row;

        if (!m)
                return EXIT_FAILED;
        row = x11_verb_row_find(m->rows, v->name);
        if (!row)
                return x11_verb_missing(v);
        module_setup(m);
        ran = m;
        return row->run(a);
}

const char *x11_verb_first_error(void) {
        return ran ? ran->first_error() : NULL;
}

bool x11_verb_json_stdout_used(void) {
        return ran && ran->json_stdout_used();
}
