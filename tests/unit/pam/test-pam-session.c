/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What pam_botdesk's close accepts as its session, from what sd-login says
 * about the id in XDG_SESSION_ID (which the PAM application controls):
 * only botdesk's session of the opening user on the reserved display.
 */
#include "tap.h"
#include "pam-botdesk.h"

int main(void) {
        tap_ok(session_is_ours("botdesk", ":23", 1000, 1000, 23), "the botdesk session of uid 1000 on :23 is ours");
        tap_ok(!session_is_ours("sshd", ":23", 1000, 1000, 23), "a session of another service (sshd) is not");
        tap_ok(!session_is_ours("login", NULL, 1000, 1000, 23), "a login session without a display is not");
        tap_ok(!session_is_ours(NULL, ":23", 1000, 1000, 23), "a session without a service is not");
        tap_ok(!session_is_ours("botdesk", ":23", 1001, 1000, 23), "a botdesk session of another uid is not");
        tap_ok(!session_is_ours("botdesk", ":23", 0, 1000, 23), "a botdesk session of root is not, for uid 1000");
        tap_ok(!session_is_ours("botdesk", ":24", 1000, 1000, 23), "a botdesk session of ours on another display is not");
        tap_ok(!session_is_ours("botdesk", ":230", 1000, 1000, 23), "\":230\" is not \":23\"");
        tap_ok(!session_is_ours("botdesk", ":23.0", 1000, 1000, 23), "\":23.0\" is not \":23\" either");
        tap_ok(!session_is_ours("botdesk", NULL, 1000, 1000, 23), "a botdesk session without a display is not");
        tap_ok(!session_is_ours("botdesk-x", ":23", 1000, 1000, 23), "a service merely starting with botdesk is not");
        tap_ok(!session_id_valid("../1") && !session_id_valid("") && !session_id_valid(NULL),
               "malformed session ids are refused before any look-up");
        tap_ok(session_id_valid("c12"), "a logind id like c12 is well-formed");
        return tap_done();
}
