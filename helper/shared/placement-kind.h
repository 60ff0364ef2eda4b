/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "config.h"

/*
 * Where a profile's desktop runs ([profile.P] placement, [placement]
 * default): here, through an exec prefix, in a podman or docker container
 * botdesk makes from [placement] image (and reaches as `ENGINE exec -i
 * NAME`, the exec machinery's prefix), or nowhere (refuse).
 */

/* Not on this host: exec, podman, docker. */
bool placement_elsewhere(const struct bd_config *c);
/* "podman" or "docker" for the container placements, else NULL. */
const char *placement_engine(enum placement_kind k);
/* The container botdesk makes for profile of this uid: "botdesk-UID-PROFILE" (NULL: out of memory). */
char *placement_container_name(const char *profile);
/*
 * status --json's placement_kind: "host", "exec", "container:podman",
 * "container:docker", "refused", or "remote" for a VNC server botdesk did
 * not start.
 */
const char *placement_kind_name(const struct bd_config *c);
