/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "exit-status.h"

int helper_setup_exit_status(int r, enum helper_failure kind) {
        if (r >= 0)
                return HELPER_EXIT_STOPPED;
        return kind == HELPER_FAILURE_CONFIG ? HELPER_EXIT_CONFIG : HELPER_EXIT_FAILED;
}
