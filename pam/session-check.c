/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a logind session is the one a close may empty. The id comes from
 * the PAM environment (XDG_SESSION_ID), which the application can set to
 * anything before pam_close_session; killing whatever it names would let
 * any PAM application of this service end any session on the host. So the
 * session must be botdesk's, of the user the open was for, on the display
 * the open reserved.
 */
#include <stdio.h>

#include "pam-botdesk.h"
#include "util.h"

bool session_is_ours(const char *service, const char *display, uid_t session_uid, uid_t uid, unsigned n) {
        char want[16];

        snprintf(want, sizeof want, ":%u", n);
        return streq_ptr(service, SESSION_SERVICE) && streq_ptr(display, want) && session_uid == uid;
}
