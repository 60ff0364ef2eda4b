/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* botdesk's logind sessions, as sd-login sees them: the one home of the
 * look-up that the PAM module, `botdesk lookup` and `status` share. */

#define LOGIN_SERVICE "botdesk"

/* Is logind session id a botdesk session (its PAM service is botdesk)? */
bool login_session_is_botdesk(const char *id);

/* The first botdesk session on display :n, of uid only, or of anyone when
 * uid is (uid_t) -1. 1 (id and uid set where asked), 0 none or no logind,
 * -errno. */
int login_session_by_display(uid_t uid, int n, char **ret_id, uid_t *ret_uid);
