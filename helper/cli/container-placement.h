/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "config.h"

struct cli_args;

/*
 * placement = podman | docker: the container botdesk makes for a profile
 * (shared/placement-kind.h names it), from [placement] image, labelled with the
 * profile and the image it was made from. It is kept while the desktop
 * stops and starts again; a start of a stopped desktop, or a restart,
 * remakes it when the configured image changed, and `botdesk stop P
 * --remove` removes it. The
 * desktop inside is reached through the exec machinery, as `ENGINE exec -i
 * NAME botdesk VERB ...`.
 *
 * The container gets no capability (--cap-drop=ALL), no new privileges,
 * an init as PID 1, the engine's default network (never the host's), and
 * nothing of the host's file system: the viewers reach its screen through
 * `botdesk rfb` over the prefix.
 */

#define CONTAINER_LABEL_PROFILE "io.botdesk.profile"
#define CONTAINER_LABEL_IMAGE "io.botdesk.image"

struct container_info {
        char *name;           /* botdesk-UID-PROFILE, whether it exists or not */
        bool exists;
        char *id;
        char *state;          /* the engine's word: running, exited, created, paused... */
        char *profile;        /* its CONTAINER_LABEL_PROFILE, NULL when it has none */
        char *image;          /* its CONTAINER_LABEL_IMAGE, NULL when it has none */
};

void container_info_done(struct container_info *i);

/* What the engine says of the profile's container. Returns 0, or an exit code (said) when it cannot be asked. */
int container_look(const struct bd_config *c, const char *profile, struct container_info *ret);

/*
 * Before a start: the container exists, runs and is of the configured
 * image. made_for_desktop: a desktop is recorded as running in it (the
 * image is then not switched under it). On a start that replaces or
 * starts the container, the desktop of an earlier one is gone: *ret_fresh
 * says so. Returns 0 or an exit code (said); on failure nothing is left.
 */
int container_ready(const struct bd_config *c, const char *profile, bool desktop_recorded, bool *ret_fresh);

/* The container runs a desktop of another image than the configured one (status: image_switch), which a restart
 * applies: stop, make again, start. */
bool container_switch_pending(const struct bd_config *c, const char *profile);

/* stop --remove: the container goes. Returns 0 or an exit code (said). */
int container_remove(const struct bd_config *c, const char *profile);

/*
 * placement = podman | docker, before verb a (as main.c's parser read it)
 * goes through the prefix (cli-remote.c): -1 to go on, or the verb's exit code. *have_rec:
 * whether the runtime dir (dirfd) holds an owner record; a stale one is
 * removed and this set false.
 */
int container_before_verb(const struct bd_config *c, const struct cli_args *a, int dirfd, bool *have_rec);

struct json;
/*
 * status --json's placement_kind (shared/placement-kind.h), image (the
 * configured one, for a container placement; else null) and image_switch
 * ({"running", "wanted", "restart_pending"} when the container was made from
 * another image than the configured one, which a restart or the next start
 * after a stop applies; else null). i: what container_look() found, or NULL.
 */
void placement_json(struct json *j, const struct bd_config *c, const struct container_info *i);
