/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "config.h"
#include "json.h"
#include "memory.h"

/*
 * botdesk doctor's fleet lines: how many more desktops this host can hold
 * before each limit (memory, inotify, the band, tasks) and which one binds
 * first, from the per-desktop figures in fleet.h. mem NULL: memory unknown.
 * j NULL: text on stdout; else a "fleet" key of the doctor's JSON object.
 */
void doctor_fleet(struct json *j, const struct bd_config *c, const struct memory_info *mem);
