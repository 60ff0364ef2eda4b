/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "supervisor.h"

/* The idle stop: every use stamps `activity` (its mtime); the timer fires
 * when idle_stop_minutes would be reached had nothing happened since, and
 * re-arms for the rest, or feeds IDLE when the desktop was really idle. */
int idle_arm(struct supervisor *s, uint64_t delay_usec);
