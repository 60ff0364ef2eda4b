/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "config.h"

/*
 * The status of profile placed elsewhere when its desktop cannot be asked
 * (not running there, or not reachable), with why: a line, or with json the
 * status object with every key the far side would give, null, and this
 * side's placement_kind and image. prefix: the exec prefix, or NULL.
 */
void remote_status_unreachable(FILE *f, const char *profile, const struct bd_config *c, char *const *prefix,
                               const char *reason, bool json);
