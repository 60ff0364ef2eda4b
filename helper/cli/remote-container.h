/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Containers behind an exec prefix (`podman exec` / `docker exec`): which
 * one a prefix names, and what its engine says of it, so that a prefix
 * that cannot run is explained ("no such container", "not running").
 */

/* The container a `podman exec` / `docker exec` prefix names (a word of prefix), or NULL. */
const char *prefix_container(char *const *prefix);

/*
 * "ID STATUS" of container name, from engine (a path) `inspect`, malloc'ed;
 * *ret_status is the engine's exit code (its complaint is returned instead
 * when nonzero). NULL when it cannot be asked.
 */
char *container_inspect(const char *engine, const char *name, int *ret_status);
