/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The built pam_botdesk.so loads the way libpam loads it (dlopen with
 * RTLD_NOW: every symbol resolved), and exports the PAM session entry points
 * and nothing else: the parts of libbotdesk linked into it stay internal, so
 * they can never clash with another module's or the application's symbols.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"

int main(void) {
        static const char *const exported[] = { "pam_sm_open_session", "pam_sm_close_session" };
        static const char *const internal[] = {
                "config_load", "display_pick", "alloc_lock_take", "profile_name_valid",
                "reservation_create", "cgroup_kill", "strdup_printf",
                "pam_sm_authenticate", "pam_sm_setcred", "pam_sm_acct_mgmt", "pam_sm_chauthtok",
        };
        const char *module = getenv("BOTDESK_PAM_MODULE");
        void *h;

        if (!module || module[0] != '/' || access(module, R_OK) < 0) {
                return tap_skip_all("BOTDESK_PAM_MODULE does not name the built pam_botdesk.so");
        }

        h = dlopen(module, RTLD_NOW | RTLD_LOCAL);
        if (!tap_ok(h != NULL, "dlopen(RTLD_NOW) of %s resolves every symbol", module)) {
                printf("#   %s\n", dlerror());
                return tap_done();
        }
        for (size_t i = 0; i < sizeof exported / sizeof exported[0]; i++)
                tap_ok(dlsym(h, exported[i]) != NULL, "%s is exported", exported[i]);
        for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++)
                tap_ok(dlsym(h, internal[i]) == NULL, "%s is not exported", internal[i]);
        tap_ok(dlclose(h) == 0, "dlclose succeeds");
        return tap_done();
}
