/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The helper's exit status of a failed set-up (helper/supervisor/exit-status.c):
 * its kind decides, never its errno. 2 is never restarted (RestartPreventExitStatus=),
 * so a runtime -EINVAL must not come out as 2.
 */
#include <errno.h>

#include "exit-status.h"
#include "tap.h"

int main(void) {
        TAP_EQ_INT(helper_setup_exit_status(-EINVAL, HELPER_FAILURE_RUNTIME), HELPER_EXIT_FAILED,
                   "a runtime -EINVAL exits 1, which Restart=on-failure retries");
        TAP_EQ_INT(helper_setup_exit_status(-ENOMEM, HELPER_FAILURE_RUNTIME), HELPER_EXIT_FAILED,
                   "any other runtime error exits 1");
        TAP_EQ_INT(helper_setup_exit_status(-EINVAL, HELPER_FAILURE_CONFIG), HELPER_EXIT_CONFIG,
                   "an invalid configuration exits 2, which is not restarted");
        TAP_EQ_INT(helper_setup_exit_status(-ENOENT, HELPER_FAILURE_CONFIG), HELPER_EXIT_CONFIG,
                   "whatever errno the configuration's failure carries");
        TAP_EQ_INT(HELPER_EXIT_CONFIG, 2, "the configuration's status is the 2 the unit's RestartPreventExitStatus= lists");
        TAP_EQ_INT(HELPER_EXIT_REFUSED, 3, "the refusal's status is the 3 it lists");
        return tap_done();
}
