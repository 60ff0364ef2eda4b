/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The password of a profile that fronts a VNC server botdesk did not start
 * (remote-target.h): the systemd credential botdesk-remote-PROFILE
 * ($CREDENTIALS_DIRECTORY, LoadCredential= of its unit) when there is
 * one, else [profile.P] remote_password_file. Never an argument, never in
 * a log: the caller wipes it (remote_password_free()).
 *
 * The file must be a regular file of the caller's uid that neither its
 * group nor others may read (a credential is systemd's, and trusted as
 * it is); its first line is the password, at most REMOTE_PASSWORD_MAX
 * bytes.
 */

#define REMOTE_PASSWORD_MAX 256u
#define REMOTE_CREDENTIAL_PREFIX "botdesk-remote-"

/*
 * 0 with the password in *ret (NULL: neither a credential nor a file is
 * configured), or -errno with the rule it breaks in *ret_problem: -EPERM
 * readable by group or others, -EACCES owned by another uid, -EINVAL not a
 * regular file or empty, -EFBIG longer than REMOTE_PASSWORD_MAX, or the
 * error of opening or reading it.
 */
int remote_password_read(const char *profile, const char *file, char **ret, const char **ret_problem);

/* Wipe and free. */
void remote_password_free(char *p);
static inline void remote_password_freep(char **p) {
        remote_password_free(*p);
}
