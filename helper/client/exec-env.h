/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The environment of a command that `botdesk exec` runs on a desktop. It is
 * built the way the desktop's own is (env_build_clean: a short allow-list of
 * the caller's harmless variables; the X11 session's variables and a LANG,
 * as the session's programs get: spawn.h), then the variables the caller
 * names on purpose (--env NAME, [session] exec_pass_env), then the desktop's
 * published env on top, so DISPLAY and XAUTHORITY are always the desktop's.
 * Nothing else of the caller passes: its tokens, keys and passwords stay
 * with the caller.
 */

/* pass: NULL-terminated names; a name the caller does not have is skipped.
 * -EINVAL for a name that is not a variable name. */
int exec_env_build(char *const *caller, char *const *published, char *const *pass, char ***ret);

/* Split "A B  C" (spaces or tabs) into a strv of names, appended to *names. */
int exec_env_names_split(const char *list, char ***names);
