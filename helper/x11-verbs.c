/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CLI's side of botdesk-x11.so (x11-verbs.h): dlopen it only for the
 * verbs that need X, by its bare name, so that the dynamic loader finds it
 * through the CLI's own RUNPATH (the build tree, or the installed
 * libdir/botdesk) and nowhere a caller chose.
 */
#include <dlfcn.h>

#include "botdesk-config.h"
#include "cli.h"
#include "log.h"
#include "util.h"
#include "x11-verbs.h"

static bool is_x11_verb(const char *verb) {
        static const char *const names[] = { "thumbnail", "input", "windows", "cursor" };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(verb, names[i]))
                        return true;
        return false;
}

int x11_verb_run(const char *verb, int argc, char **argv) {
        const struct x11_verbs *m;
        x11_verb_fn run;
        void *h;

        if (!is_x11_verb(verb))
                return -ENOENT;
        /* Lazy, as the libraries were when the CLI linked them: binding
         * every symbol of xcb, libpng and libjpeg now costs 0.4 ms that
         * no verb uses (tests/unit/test-x11-verbs.c checks that the module
         * resolves whole). Never closed: the process ends with the verb. */
        h = dlopen(X11_VERBS_MODULE, RTLD_LAZY | RTLD_LOCAL);
        if (!h) {
                log_error("Cannot load %s for \"%s\": %s; reinstall botdesk.", X11_VERBS_MODULE, verb, dlerror());
                return EXIT_FAILED;
        }
        m = dlsym(h, X11_VERBS_SYMBOL);
        if (!m || m->abi != X11_VERBS_ABI || !streq_ptr(m->version, BOTDESK_VERSION)) {
                log_error("%s is not the one of botdesk " BOTDESK_VERSION "; reinstall botdesk.", X11_VERBS_MODULE);
                return EXIT_FAILED;
        }
        run = m->lookup(verb);
        if (!run)
                return -ENOENT;
        m->log_setup("botdesk");
        return run(argc, argv);
}
