/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "config.h"
#include "fleet.h"
#include "json.h"

/*
 * botdesk doctor's inotify lines: the per-user limit against the desktops
 * running now and against the ones this host could hold (the band, and
 * memory at about FLEET_DESKTOP_MB each). j NULL: text on stdout; else
 * keys of the doctor's JSON object.
 */
void doctor_inotify(struct json *j, const struct bd_config *c, uint64_t memory_limit_mb);
