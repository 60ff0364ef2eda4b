/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "supervisor.h"

/* Where the desktop runs (user unit, logind session, standalone), the
 * cgroup sub-tree it gets there (or process groups and a subreaper where
 * none may be had), and the record that tells others so. */
int placement_setup(struct supervisor *s);
int placement_write_record(struct supervisor *s);
