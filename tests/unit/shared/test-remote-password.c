/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The password of a remote profile (helper/shared/remote-password.c): the
 * credential botdesk-remote-PROFILE wins over the file; the file's first
 * line is the password; a file others may read, one that is not regular
 * (a symlink, a directory), an empty one and one over 256 bytes are
 * refused with the rule they break; no credential and no file is no
 * password.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote-password.h"
#include "tap.h"
#include "util.h"

static char dir[] = "/tmp/botdesk-test-remote-password.XXXXXX";

/* dir/name holding text, with mode. */
static void put(const char *name, const char *text, mode_t mode) {
        _cleanup_free_ char *path = strdup_printf("%s/%s", dir, name);

        _cleanup_close_ int fd = -EBADF;

        (void) unlink(path);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write_all(fd, text, strlen(text)) < 0 || fchmod(fd, mode) < 0)
                printf("#   cannot make %s\n", path);
}

static bool reads(const char *name, const char *want) {
        _cleanup_free_ char *path = strdup_printf("%s/%s", dir, name);
        char *got = NULL;
        const char *problem = NULL;
        int r = remote_password_read("vm", path, &got, &problem);
        bool ok = r == 0 && streq_ptr(got, want);

        if (!ok)
                printf("#   %s: %d %s \"%s\"\n", name, r, strnull(problem), strnull(got));
        remote_password_free(got);
        return ok;
}

static bool refused(const char *name, int want, const char *said) {
        _cleanup_free_ char *path = strdup_printf("%s/%s", dir, name);
        char *got = NULL;
        const char *problem = NULL;
        int r = remote_password_read("vm", path, &got, &problem);
        bool ok = r == want && !got && problem && strstr(problem, said);

        if (!ok)
                printf("#   %s: %d %s\n", name, r, strnull(problem));
        remote_password_free(got);
        return ok;
}

int main(void) {
        static const char *const names[] = { "pw", "open", "empty", "long", "link", "creds/botdesk-remote-vm" };
        char *got = NULL, longer[300];
        const char *problem = NULL;
        _cleanup_free_ char *creds = NULL, *link_path = NULL, *target = NULL;

        if (!mkdtemp(dir))
                return 1;
        (void) unsetenv("CREDENTIALS_DIRECTORY");
        TAP_EQ_INT(remote_password_read("vm", NULL, &got, &problem), 0, "no credential and no file: no password");
        tap_ok(!got, "... none");

        put("pw", "s3cret\nsecond line\n", 0600);
        tap_ok(reads("pw", "s3cret"), "a private file: its first line is the password");
        put("open", "s3cret\n", 0644);
        tap_ok(refused("open", -EPERM, "group or others may read it"), "a file others may read is refused");
        put("empty", "\n", 0600);
        tap_ok(refused("empty", -EINVAL, "empty"), "an empty password is refused");
        memset(longer, 'x', sizeof longer - 1);
        longer[sizeof longer - 1] = 0;
        put("long", longer, 0600);
        tap_ok(refused("long", -EFBIG, "longer than 256"), "a password over 256 bytes is refused");
        link_path = strdup_printf("%s/link", dir);
        target = strdup_printf("%s/pw", dir);
        tap_ok(symlink(target, link_path) == 0 && refused("link", -EINVAL, "symbolic link"),
               "a symbolic link to a good file is refused: the file must be the one named");
        tap_ok(refused("nonexistent", -ENOENT, "cannot be opened"), "a file that does not exist is an error, not no password");

        /* The credential first, as systemd's LoadCredential= hands it to the unit. */
        creds = strdup_printf("%s/creds", dir);
        tap_ok(mkdir(creds, 0700) == 0, "a credentials directory");
        put("creds/botdesk-remote-vm", "from-credential\n", 0400);
        setenv("CREDENTIALS_DIRECTORY", creds, 1);
        tap_ok(reads("pw", "from-credential"), "$CREDENTIALS_DIRECTORY/botdesk-remote-PROFILE wins over the file");
        tap_ok(remote_password_read("other", NULL, &got, &problem) == 0 && !got,
               "another profile's credential is not this one's: no password without its file");
        (void) unsetenv("CREDENTIALS_DIRECTORY");

        /* Only what this test made, by name. */
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *p = strdup_printf("%s/%s", dir, names[i]);

                (void) unlink(p);
        }
        tap_ok(rmdir(creds) == 0 && rmdir(dir) == 0, "the scratch dir is left empty and removed");
        return tap_done();
}
