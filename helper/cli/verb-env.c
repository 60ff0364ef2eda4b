/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk env PROFILE [--start] [--json]: the desktop's published environment.
 * Only --start starts a desktop: [session] auto_start makes the verbs that
 * act start one, never env, which a gateway asks to learn whether a desktop
 * runs and where.
 */
#include "cli.h"
#include "envfile.h"
#include "record.h"
#include "json.h"
#include "profile.h"
#include "running.h"
#include "util.h"
#include "verbs.h"

int verb_env(const struct cli_args *a) {
        const char *profile = a->operand;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_strv_free_ char **env = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_(helper_record_done) struct helper_record rec = {};
        int r;

        r = a->start ? verb_start_published(a, profile, &p, &dirfd, &env, &rec)
                     : running_desktop_published(profile, &p, &dirfd, &env, &rec);
        if (r != EXIT_OK)
                return r;
        activity_stamp(dirfd);
        if (a->json) {
                struct json j;
                json_init(&j, stdout);
                json_object_begin(&j);
                for (char **e = env; *e; e++) {
                        _cleanup_free_ char *key = strndup(*e, strcspn(*e, "="));
                        if (!key)
                                return EXIT_FAILED;
                        json_kv_string(&j, key, strchr(*e, '=') + 1);
                }
                json_object_end(&j);
                putchar('\n');
                return EXIT_OK;
        }
        /* The desktop is X: a caller's Wayland display would send toolkits (GTK, Qt, Chromium) there instead. */
        puts("unset WAYLAND_DISPLAY");
        for (char **e = env; *e; e++) {
                _cleanup_free_ char *key = strndup(*e, strcspn(*e, "="));
                _cleanup_free_ char *q = shell_quote(strchr(*e, '=') + 1);
                if (!key || !q)
                        return EXIT_FAILED;
                printf("export %s=%s\n", key, q);
        }
        return EXIT_OK;
}
