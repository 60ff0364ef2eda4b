/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote-password.h"
#include "util.h"

void remote_password_free(char *p) {
        if (!p)
                return;
        explicit_bzero(p, strlen(p));
        free(p);
}

static int fail(const char **ret_problem, const char *problem, int r) {
        *ret_problem = problem;
        return r;
}

/* Read dirfd/path (AT_FDCWD: path as it is); owner_rules: the file must be ours and private. */
static int read_password(int dirfd, const char *path, bool owner_rules, char **ret, const char **ret_problem) {
        _cleanup_close_ int fd = -EBADF;
        char *text = NULL;
        size_t size = 0;
        struct stat st;
        int r;

        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return fail(ret_problem, errno == ELOOP ? "it is a symbolic link" : "it cannot be opened",
                            errno == ELOOP ? -EINVAL : negative_errno());
        if (fstat(fd, &st) < 0)
                return fail(ret_problem, "it cannot be read", negative_errno());
        if (!S_ISREG(st.st_mode))
                return fail(ret_problem, "it is not a regular file", -EINVAL);
        if (owner_rules && st.st_uid != geteuid())
                return fail(ret_problem, "it belongs to another user", -EACCES);
        if (owner_rules && (st.st_mode & 0077))
                return fail(ret_problem, "its group or others may read it (chmod 600 it)", -EPERM);
        r = read_full_fd(fd, &text, &size, REMOTE_PASSWORD_MAX + 2);
        if (r == -EFBIG || (r >= 0 && size > REMOTE_PASSWORD_MAX + 1)) {
                remote_password_free(text);
                return fail(ret_problem, "it is longer than 256 bytes", -EFBIG);
        }
        if (r < 0)
                return fail(ret_problem, "it cannot be read", r);
        /* The first line; a file written by echo ends in a newline that is no part of it. */
        text[strcspn(text, "\r\n")] = 0;
        if (!text[0]) {
                remote_password_free(text);
                return fail(ret_problem, "it is empty", -EINVAL);
        }
        if (strlen(text) > REMOTE_PASSWORD_MAX) {
                remote_password_free(text);
                return fail(ret_problem, "it is longer than 256 bytes", -EFBIG);
        }
        *ret = text;
        return 0;
}

int remote_password_read(const char *profile, const char *file, char **ret, const char **ret_problem) {
        const char *creds = getenv("CREDENTIALS_DIRECTORY");

        *ret = NULL;
        *ret_problem = NULL;
        if (creds && creds[0] == '/') {
                _cleanup_close_ int dirfd = open(creds, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                _cleanup_free_ char *name = strdup_printf(REMOTE_CREDENTIAL_PREFIX "%s", profile);

                if (!name)
                        return fail(ret_problem, "out of memory", -ENOMEM);
                if (dirfd >= 0 && faccessat(dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                        return read_password(dirfd, name, false, ret, ret_problem);
        }
        if (!file || !*file)
                return 0;
        return read_password(AT_FDCWD, file, true, ret, ret_problem);
}
