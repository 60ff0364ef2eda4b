/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "doctor-remote.h"
#include "log.h"
#include "remote-front.h"
#include "util.h"

void doctor_remote(struct json *j) {
        _cleanup_(config_set_freep) struct config_set *set = NULL;
        _cleanup_strv_free_ char **profiles = NULL;
        struct config_errors errs = {};
        const struct config_sources src = {};
        bool any = false;

        /* The configuration's own errors are `config check`'s to say: a profile that has one is left out. */
        (void) config_set_load(&src, &set, &errs);
        config_errors_done(&errs);
        if (!set || config_set_profiles(set, &profiles) < 0)
                return;
        for (char **p = profiles; p && *p; p++) {
                _cleanup_(config_done) struct bd_config c = {};
                _cleanup_(remote_session_close) struct remote_session s = { .fd = -EBADF };
                int r;

                if (config_set_build(set, *p, &c) < 0 || !c.remote)
                        continue;
                if (!any) {
                        if (j) {
                                json_key(j, "remote");
                                json_array_begin(j);
                        }
                        any = true;
                }
                /* The session's own words go to stderr as any verb's; the verdict comes here. */
                r = remote_session_open(*p, &c, -EBADF, &s);
                if (j) {
                        json_object_begin(j);
                        json_kv_string(j, "profile", *p);
                        json_kv_string(j, "remote", c.remote);
                        json_kv_bool(j, "reachable", r == EXIT_OK);
                        if (r == EXIT_OK) {
                                json_key(j, "geometry");
                                json_array_begin(j);
                                json_int(j, s.client.width);
                                json_int(j, s.client.height);
                                json_array_end(j);
                        }
                        json_object_end(j);
                } else if (r == EXIT_OK)
                        printf("remote %s: %s answers, %ux%u\n", *p, c.remote, s.client.width, s.client.height);
                else
                        printf("remote %s: %s does not answer as configured (above)\n", *p, c.remote);
        }
        if (any && j)
                json_array_end(j);
}
