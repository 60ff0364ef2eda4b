/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

/*
 * The last-resort way to find a desktop's processes where no cgroup holds
 * them: every process of the desktop carries BOTDESK_TOKEN=token in its
 * environment (see record.h), so a walk of /proc finds them.
 */

/* Kill every process of uid whose environment holds BOTDESK_TOKEN=token (never ourselves). */
int kill_by_token(const char *token, uid_t uid);
