/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <systemd/sd-login.h>

#include "login.h"
#include "util.h"

bool login_session_is_botdesk(const char *id) {
        _cleanup_free_ char *service = NULL;

        return sd_session_get_service(id, &service) >= 0 && streq(service, LOGIN_SERVICE);
}

int login_session_by_display(uid_t uid, int n, char **ret_id, uid_t *ret_uid) {
        _cleanup_strv_free_ char **ids = NULL;
        char want[16];
        int r;

        if (n < 0)
                return 0;
        snprintf(want, sizeof want, ":%d", n);
        r = uid == (uid_t) -1 ? sd_get_sessions(&ids) : sd_uid_get_sessions(uid, 0, &ids);
        if (r == -ENOENT || r == -ENXIO)
                return 0; /* no logind, or no session of that user */
        if (r < 0)
                return r;
        for (char **i = ids; i && *i; i++) {
                _cleanup_free_ char *display = NULL;
                uid_t owner;

                if (!login_session_is_botdesk(*i))
                        continue;
                if (sd_session_get_display(*i, &display) < 0 || !streq(display, want))
                        continue;
                if (sd_session_get_uid(*i, &owner) < 0)
                        continue;
                if (ret_id) {
                        *ret_id = strdup(*i);
                        if (!*ret_id)
                                return -ENOMEM;
                }
                if (ret_uid)
                        *ret_uid = owner;
                return 1;
        }
        return 0;
}
