/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What /proc says about a process. */

#include <stdbool.h>
#include <sys/types.h>

/* Is pid alive (exists and is not a zombie) according to proc_root (NULL: /proc)? */
bool pid_alive(const char *proc_root, pid_t pid);
