/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "supervisor.h"

/* The checks before anything starts: the required programs (else the
 * install message) and the memory gate. Returns 0 when they pass; on a
 * failure the desktop has failed (with the reason) and a negative errno
 * comes back. */
int checks_run(struct supervisor *s);
