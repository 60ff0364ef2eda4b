/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <unistd.h>

#include "placement-kind.h"
#include "util.h"

bool placement_elsewhere(const struct bd_config *c) {
        return c->placement == PLACEMENT_EXEC || placement_engine(c->placement);
}

const char *placement_engine(enum placement_kind k) {
        return k == PLACEMENT_PODMAN ? "podman" : k == PLACEMENT_DOCKER ? "docker" : NULL;
}

char *placement_container_name(const char *profile) {
        /* The uid too: root's engine (and docker's daemon) has one namespace of names for every user. */
        return strdup_printf("botdesk-%u-%s", (unsigned) getuid(), profile);
}

const char *placement_kind_name(const struct bd_config *c) {
        if (c->remote)
                return "remote";
        switch (c->placement) {
        case PLACEMENT_EXEC:
                return "exec";
        case PLACEMENT_PODMAN:
                return "container:podman";
        case PLACEMENT_DOCKER:
                return "container:docker";
        case PLACEMENT_REFUSE:
                return "refused";
        default:
                return "host";
        }
}
