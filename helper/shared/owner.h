/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "config.h"

/*
 * Who owns a profile's desktop when it runs somewhere else (placement =
 * exec): RUNTIME/owner records the exec prefix the first start used, and the
 * container's id when the prefix names a podman or docker container. Until
 * the desktop is stopped, the record says that the desktop runs elsewhere,
 * so that changing the configuration never mistakes another place's
 * desktop for this one.
 *
 * The record is only a witness, never a command: it sits in the runtime
 * dir, which the desktop's own programs can write, so its argv runs only
 * when it is the configured [profile.P] exec prefix, word for word. A
 * record that names anything else (another prefix, or any prefix while
 * the setting says placement = host) is refused and nothing is run: the
 * setting the desktop was started with must be put back to reach it, or
 * stop --force forgets the record.
 *
 * The file is 0600, written atomically: "botdesk-owner 1", the number of
 * words, the words, then the container id (maybe empty), each NUL-terminated.
 */

#define OWNER_FILE "owner"

struct owner {
        char **argv;          /* the exec prefix, at least one word */
        char *container_id;   /* NULL when unknown or not a container */
};

void owner_done(struct owner *o);

/* 0 and *ret filled, -ENOENT when there is no record, -EBADMSG for a torn or foreign file. */
int owner_read_at(int dirfd, struct owner *ret);
int owner_write_at(int dirfd, const struct owner *o);
int owner_remove_at(int dirfd);

/* Encoding and decoding alone, for tests. */
int owner_encode(const struct owner *o, char **ret, size_t *ret_size);
int owner_decode(const char *data, size_t size, struct owner *ret);

enum owner_source {
        OWNER_HOST,      /* run the verb here */
        OWNER_RECORD,    /* through the recorded prefix */
        OWNER_SETTING,   /* through the configured prefix (no record yet) */
};

/* The errno by which owner_decide() refuses a record that is not the setting's prefix. */
#define OWNER_MISMATCH EPERM

/*
 * Which place a verb goes to: a record is followed when its argv is the
 * configured exec prefix, word for word (OWNER_RECORD; for placement =
 * podman or docker the prefix is ENGINE exec -i CONTAINER, the container
 * botdesk makes for profile); a record that is
 * not, whatever the setting says now (placement = host included), is
 * -OWNER_MISMATCH and nothing is to be run. Without a record, the setting
 * decides. On OWNER_RECORD and OWNER_SETTING, *ret_argv is the prefix, the
 * setting's words (owned by the caller). record may be NULL. Returns the
 * source or -errno.
 */
int owner_decide(const struct owner *record, const struct bd_config *c, const char *profile, char ***ret_argv);
