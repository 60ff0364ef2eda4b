/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Paths under an untrusted directory (beneath.h): a traversal corpus
 * against a real tree, each refused with its own error and nothing read,
 * written or removed outside it.
 */
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "beneath.h"
#include "util.h"

static int home = -1, scratch = -1;

static void put(int dirfd, const char *name, const char *content) {
        int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd < 0 || write_all(fd, content, strlen(content)) < 0) {
                printf("Bail out! cannot write %s: %s\n", name, strerror(errno));
                exit(1);
        }
        close(fd);
}

static char *content_of(int dirfd, const char *name) {
        char *text = NULL;
        size_t size;

        if (read_full_file_at(dirfd, name, &text, &size, 4096) < 0)
                return NULL;
        return text;
}

static int read_err(const char *path) {
        uint64_t size;
        int fd = beneath_open_read(home, path, 100u << 20, &size);

        if (fd >= 0)
                close(fd);
        return fd >= 0 ? 0 : fd;
}

static int create_err(const char *path, bool replace) {
        struct beneath_file f;
        int r = beneath_create(home, path, replace, 0600, &f);

        if (r >= 0) {
                r = write_all(f.fd, "new", 3);
                if (r >= 0)
                        r = beneath_commit(&f);
                beneath_file_done(&f);
        }
        return r;
}

/* How many entries dir has, but for . and .. . */
static unsigned count_entries(int dirfd) {
        _cleanup_(closedirp) DIR *d = NULL;
        unsigned n = 0;

        if (dir_open_at(dirfd, ".", &d) < 0)
                return 9999;
        for (struct dirent *de; (de = readdir(d));)
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        n++;
        return n;
}

/* The corpus against a fresh tree, the kernel's openat2() resolving, or (walk) botdesk's own walk. */
static int run_corpus(bool walk) {
        char root[] = "/tmp/test-beneath.XXXXXX";
        _cleanup_close_ int outside = -EBADF, d = -EBADF;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct beneath_file f;
        uint64_t size;
        unsigned outside_before;
        struct stat st;
        int fd, sock;

        beneath_force_walk(walk);
        printf("# %s\n", walk ? "resolved by beneath_walk_open(), as without openat2()" : "resolved by openat2()");
        if (!mkdtemp(root)) {
                printf("Bail out! mkdtemp: %s\n", strerror(errno));
                return 1;
        }
        scratch = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (scratch < 0 || mkdirat(scratch, "home", 0700) < 0 || mkdirat(scratch, "outside", 0700) < 0)
                return printf("Bail out! cannot make the tree: %s\n", strerror(errno)), 1;
        home = openat(scratch, "home", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        outside = openat(scratch, "outside", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        put(outside, "secret", "outside");
        put(home, "a.txt", "inside");
        if (mkdirat(home, "d", 0700) < 0 || symlinkat("../outside/secret", home, "out") < 0 ||
            symlinkat("/etc/passwd", home, "etc") < 0 || symlinkat("a.txt", home, "in") < 0 ||
            symlinkat("d/../a.txt", home, "in-dotdot") < 0 || symlinkat("loop", home, "loop") < 0 ||
            symlinkat("/proc/self/root/etc/passwd", home, "magic") < 0 || symlinkat("..", home, "up") < 0 ||
            mkfifoat(home, "fifo", 0600) < 0)
                return printf("Bail out! cannot make the tree: %s\n", strerror(errno)), 1;
        fd = openat(home, "sparse", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0 || ftruncate(fd, (off_t) 2 << 30) < 0)
                return printf("Bail out! cannot make a 2 GiB sparse file: %s\n", strerror(errno)), 1;
        close(fd);
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/home/sock", root);
        sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (sock < 0 || bind(sock, (struct sockaddr *) &sa, sizeof sa) < 0)
                return printf("Bail out! cannot bind a socket in the tree: %s\n", strerror(errno)), 1;

        /* Refused as written. */
        TAP_EQ_STR(beneath_path_problem("a\0b", 3), "the path contains a NUL byte", "a NUL inside the path: refused");
        tap_ok(beneath_path_problem("", 0) != NULL, "an empty path: refused");
        tap_ok(beneath_path_problem("/etc/passwd", 11) != NULL, "an absolute path: refused");
        tap_ok(beneath_path_problem("a/b", 3) == NULL, "a relative path: taken");
        TAP_EQ_INT(read_err("/etc/passwd"), -EINVAL, "reading an absolute path: -EINVAL");

        /* Read. */
        fd = beneath_open_read(home, "a.txt", 100, &size);
        tap_ok(fd >= 0 && size == 6, "a regular file inside is opened, its size said");
        if (fd >= 0) {
                char buf[16] = {};
                tap_ok(read(fd, buf, sizeof buf) == 6 && streq(buf, "inside"), "and read");
                close(fd);
        }
        TAP_EQ_INT(read_err("in"), 0, "a symlink to a file inside is followed");
        TAP_EQ_INT(read_err("in-dotdot"), 0, "a symlink through .. that stays inside is followed");
        TAP_EQ_INT(read_err("d/../a.txt"), 0, "a path through .. that stays inside is taken");
        TAP_EQ_INT(read_err("../outside/secret"), -EXDEV, "../ out of the home: -EXDEV");
        TAP_EQ_INT(read_err("d/../../outside/secret"), -EXDEV, "d/../../ out of the home: -EXDEV");
        TAP_EQ_INT(read_err("out"), -EXDEV, "a symlink pointing out: -EXDEV");
        TAP_EQ_INT(read_err("etc"), -EXDEV, "a symlink to /etc/passwd: -EXDEV");
        TAP_EQ_INT(read_err("up/outside/secret"), -EXDEV, "a symlink to .. used as a directory: -EXDEV");
        tap_ok(read_err("magic") == -EXDEV || read_err("magic") == -ELOOP, "a symlink through /proc's magic links: refused");
        TAP_EQ_INT(read_err("loop"), -ELOOP, "a symlink loop: -ELOOP");
        TAP_EQ_INT(read_err("fifo"), -ENODEV, "a FIFO: -ENODEV, and the open did not block");
        TAP_EQ_INT(read_err("sock"), -ENODEV, "a socket: -ENODEV");
        TAP_EQ_INT(read_err("d"), -EISDIR, "a directory: -EISDIR");
        TAP_EQ_INT(read_err("missing"), -ENOENT, "nothing there: -ENOENT");
        TAP_EQ_INT(read_err("sparse"), -EFBIG, "a 2 GiB sparse file over a 100 MiB cap: -EFBIG, nothing read");
        if (geteuid() == 0 && mknodat(home, "null", S_IFCHR | 0600, makedev(1, 3)) >= 0)
                TAP_EQ_INT(read_err("null"), -ENODEV, "a device node: -ENODEV");
        else
                tap_skip_host("a device node needs root to make (mknod)");

        /* Directories. */
        d = beneath_open_dir(home, "");
        tap_ok(d >= 0, "the home itself opens as a directory");
        TAP_EQ_INT(beneath_open_dir(home, "up"), -EXDEV, "a symlink to .. as a directory: -EXDEV");
        TAP_EQ_INT(beneath_open_dir(home, ".."), -EXDEV, ".. as a directory: -EXDEV");
        TAP_EQ_INT(beneath_open_dir(home, "a.txt"), -ENOTDIR, "a file as a directory: -ENOTDIR");
        TAP_EQ_INT(beneath_is_dir(home, "d"), 1, "d is a directory");
        TAP_EQ_INT(beneath_is_dir(home, "a.txt"), 0, "a.txt is not");
        TAP_EQ_INT(beneath_is_dir(home, "missing"), 0, "nothing there is not");
        TAP_EQ_INT(beneath_is_dir(home, "up"), -EXDEV, "a symlink out is refused, not judged");

        /* Write. */
        outside_before = count_entries(outside);
        TAP_EQ_INT(beneath_create(home, "fresh.txt", false, 0600, &f), 0, "a new file is created");
        TAP_EQ_INT(write_all(f.fd, "fresh", 5), 0, "its content written");
        tap_ok(faccessat(home, "fresh.txt", F_OK, AT_SYMLINK_NOFOLLOW) < 0, "not under its name before the commit");
        TAP_EQ_INT(beneath_commit(&f), 0, "committed");
        beneath_file_done(&f);
        {
                _cleanup_free_ char *c = content_of(home, "fresh.txt");
                TAP_EQ_STR(c, "fresh", "under its name after the commit, whole");
        }
        tap_ok(fstatat(home, "fresh.txt", &st, 0) >= 0 && (st.st_mode & 07777) == 0600, "mode 0600");
        TAP_EQ_INT(create_err("a.txt", false), -EEXIST, "an existing file without replace: -EEXIST");
        {
                _cleanup_free_ char *c = content_of(home, "a.txt");
                TAP_EQ_STR(c, "inside", "and it is untouched");
        }
        TAP_EQ_INT(create_err("a.txt", true), 0, "with replace: replaced");
        {
                _cleanup_free_ char *c = content_of(home, "a.txt");
                TAP_EQ_STR(c, "new", "with the new content");
        }
        TAP_EQ_INT(create_err("out", true), 0, "replacing a symlink that points out: the link is replaced");
        {
                _cleanup_free_ char *c = content_of(outside, "secret");
                TAP_EQ_STR(c, "outside", "never written through");
        }
        TAP_EQ_INT(create_err("../outside/x", false), -EXDEV, "creating ../outside/x: -EXDEV");
        TAP_EQ_INT(create_err("up/outside/x", false), -EXDEV, "creating through a symlink to ..: -EXDEV");
        TAP_EQ_INT(create_err("etc", false), -EEXIST, "over a symlink to /etc/passwd without replace: -EEXIST");
        TAP_EQ_INT(create_err("fifo", true), -ENODEV, "over a FIFO, even with replace: -ENODEV");
        TAP_EQ_INT(create_err("sock", true), -ENODEV, "over a socket, even with replace: -ENODEV");
        TAP_EQ_INT(create_err("d", true), -EISDIR, "over a directory: -EISDIR");
        TAP_EQ_INT(create_err("d/", false), -EISDIR, "a name ending in /: -EISDIR");
        TAP_EQ_INT(create_err("d/..", false), -EISDIR, "a name that is ..: -EISDIR");
        TAP_EQ_INT(create_err("nodir/x", false), -ENOENT, "into a directory that is not there: -ENOENT");
        TAP_EQ_INT(create_err("d/x", false), 0, "into a directory inside: created");
        TAP_EQ_INT(count_entries(outside), outside_before, "nothing was created outside the home");

        /* A file that appears between the check and the commit is not replaced. */
        TAP_EQ_INT(beneath_create(home, "race", false, 0600, &f), 0, "a new file is started");
        put(home, "race", "theirs");
        TAP_EQ_INT(beneath_commit(&f), -EEXIST, "a file that appeared meanwhile: the commit refuses");
        beneath_file_done(&f);
        {
                _cleanup_free_ char *c = content_of(home, "race");
                TAP_EQ_STR(c, "theirs", "and leaves it as it is");
        }
        /* An abandoned file leaves nothing behind. */
        TAP_EQ_INT(beneath_create(home, "abandoned", false, 0600, &f), 0, "a file is started");
        beneath_file_done(&f);
        tap_ok(faccessat(home, "abandoned", F_OK, AT_SYMLINK_NOFOLLOW) < 0, "abandoned: not there");
        {
                _cleanup_(closedirp) DIR *dir = NULL;
                bool temp_left = false;

                if (dir_open_at(home, ".", &dir) >= 0)
                        for (struct dirent *de; (de = readdir(dir));)
                                temp_left |= startswith(de->d_name, ".botdesk-") != NULL;
                tap_ok(!temp_left, "and no temporary file is left in the home");
        }

        /* Remove. */
        TAP_EQ_INT(beneath_remove(home, "in"), 0, "a symlink is removed");
        tap_ok(faccessat(home, "a.txt", F_OK, 0) == 0, "not its target");
        TAP_EQ_INT(beneath_remove(home, "etc"), 0, "a symlink to /etc/passwd is removed, itself");
        tap_ok(access("/etc/passwd", F_OK) == 0, "/etc/passwd is still there");
        TAP_EQ_INT(beneath_remove(home, "../outside/secret"), -EXDEV, "removing ../outside/secret: -EXDEV");
        tap_ok(faccessat(outside, "secret", F_OK, 0) == 0, "it is still there");
        TAP_EQ_INT(beneath_remove(home, "d"), -EISDIR, "removing a directory: -EISDIR");
        TAP_EQ_INT(beneath_remove(home, "fifo"), -ENODEV, "removing a FIFO: -ENODEV");
        TAP_EQ_INT(beneath_remove(home, "missing"), -ENOENT, "removing nothing: -ENOENT");
        TAP_EQ_INT(beneath_remove(home, "fresh.txt"), 0, "a file is removed");

        close(sock);
        close(home);
        (void) remove_tree_at(scratch, "home");
        (void) remove_tree_at(scratch, "outside");
        close(scratch);
        (void) rmdir(root);
        return 0;
}

int main(void) {
        if (run_corpus(false) != 0 || run_corpus(true) != 0)
                return 1;
        return tap_done();
}
