/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "json.h"
#include "lease.h"
#include "resources.h"

/*
 * The desktop's resources read (mcp/resources.h), for resources/read of
 * `botdesk mcp`: the lease as it is, the windows and the screen behind the
 * lease gate of every agent action (a refusal is the contents, in JSON).
 */

/* struct mcp_backend's read_resource; userdata the struct agent. */
int mcp_desktop_read_resource(void *userdata, unsigned one, struct mcp_resource_contents *ret);

/* The lease as the resource and its notifications say it: {"holder", "epoch"}. */
void mcp_lease_write(struct json *j, const struct lease *l);
