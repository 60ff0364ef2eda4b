/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A hibernated desktop's manifest (snapshot.h): written and read back, every
 * malformed one refused, the dir and file checks, named snapshots (their
 * names, their dirs), and what makes images unusable. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "botdesk-config.h"
#include "fixture.h"
#include "snapshot.h"
#include "tap.h"
#include "util.h"

static void manifest_sample(struct snapshot_manifest *m, const char *kernel) {
        *m = (struct snapshot_manifest) {
                .version = strdup(BOTDESK_VERSION),
                .kernel = strdup(kernel),
                .display = 42,
                .token = strdup("0123456789abcdef0123456789abcdef"),
                .bus_address = strdup("unix:path=/run/user/0/botdesk/a/bus"),
                .time_usec = 1765100000000000ULL,
                .dump_usec = 300000,
                .size = 66060288,
                .n_children = 3,
        };
        m->children[0] = (struct snapshot_child) { .ns_pid = 2, .name = strdup("X server") };
        m->children[1] = (struct snapshot_child) { .ns_pid = 5, .name = strdup("session bus") };
        m->children[2] = (struct snapshot_child) { .ns_pid = 34, .name = strdup("xfce4-panel") };
}

/* The manifest in dir replaced by text; its reading's result. */
static int read_text(int dir, const char *text) {
        struct snapshot_manifest m = {};
        int r;

        if (write_file_atomic_at(dir, SNAPSHOT_MANIFEST, text, strlen(text), 0600) < 0)
                return -EIO;
        r = snapshot_manifest_read_at(dir, &m);
        snapshot_manifest_done(&m);
        return r;
}

#define GOOD_HEAD "VERSION=1\nKERNEL=6\nDISPLAY=3\nTOKEN=t\nBUS_ADDRESS=unix:path=/b\nTIME_USEC=1\nDUMP_USEC=2\nSIZE=3\n"

static void test_manifest(const char *scratch) {
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {}, back = {};
        _cleanup_close_ int dir = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        manifest_sample(&m, "6.18.0");
        TAP_EQ_INT(snapshot_manifest_write_at(dir, &m), 0, "a manifest is written");
        TAP_EQ_INT(snapshot_manifest_read_at(dir, &back), 0, "... and read back");
        tap_ok(streq(back.version, BOTDESK_VERSION) && streq(back.kernel, "6.18.0") && back.display == 42 &&
                       streq(back.token, m.token) && streq(back.bus_address, m.bus_address),
               "... its version, kernel, display, token and bus address");
        tap_ok(back.time_usec == m.time_usec && back.dump_usec == 300000 && back.size == 66060288,
               "... its time, dump time and size");
        tap_ok(back.n_children == 3 && back.children[0].ns_pid == 2 && streq(back.children[0].name, "X server") &&
                       back.children[2].ns_pid == 34 && streq(back.children[2].name, "xfce4-panel"),
               "... its children, names with spaces included");

        TAP_EQ_INT(read_text(dir, GOOD_HEAD "CHILD_0=2 X server\n"), 0, "a minimal manifest is read");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD), -EBADMSG, "one without children is refused");
        TAP_EQ_INT(read_text(dir, "KERNEL=6\nDISPLAY=3\nTOKEN=t\nBUS_ADDRESS=b\nTIME_USEC=1\nDUMP_USEC=2\nSIZE=3\nCHILD_0=2 X\n"),
                   -EBADMSG, "one without its version is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "DISPLAY=70000\nCHILD_0=2 X\n"), -EBADMSG, "a display past 65535 is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "SIZE=-1\nCHILD_0=2 X\n"), -EBADMSG, "a size that is no number is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "CHILD_0=2\n"), -EBADMSG, "a child without a name is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "CHILD_0=1 init\n"), -EBADMSG, "a child that is the init (pid 1) is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "CHILD_0=x2 X\n"), -EBADMSG, "a child's pid that is no number is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "CHILD_0=2 \n"), -EBADMSG, "a child's empty name is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "CHILD_1=2 X\n"), -EBADMSG, "children must start at CHILD_0");
        TAP_EQ_INT(read_text(dir, "not a manifest"), -EBADMSG, "a line without '=' is refused");

        /* A fork's: the paths its processes know, and where it came from. */
        tap_ok(!back.tree_runtime && !back.tree_state && !back.fork_of,
               "a manifest that names no tree's paths nor origin is read without them");
        m.tree_runtime = strdup("/run/user/0/botdesk/a");
        m.tree_state = strdup("/root/.local/state/botdesk/a");
        m.fork_of = strdup("a/s1");
        snapshot_manifest_done(&back);
        TAP_EQ_INT(snapshot_manifest_write_at(dir, &m), 0, "a fork's manifest is written");
        TAP_EQ_INT(snapshot_manifest_read_at(dir, &back), 0, "... and read back");
        tap_ok(streq_ptr(back.tree_runtime, m.tree_runtime) && streq_ptr(back.tree_state, m.tree_state) &&
                       streq_ptr(back.fork_of, "a/s1"),
               "... with its tree's runtime and state dirs and its origin");
        m.desktop = strdup("command");
        m.command = strdup("sh -c 'xfwm4 & exec zenity --scale'");
        snapshot_manifest_done(&back);
        TAP_EQ_INT(snapshot_manifest_write_at(dir, &m), 0, "a manifest that names its desktop is written");
        TAP_EQ_INT(snapshot_manifest_read_at(dir, &back), 0, "... and read back");
        tap_ok(streq_ptr(back.desktop, "command") && streq_ptr(back.command, m.command),
               "... with its desktop and its command, quotes and all");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "DESKTOP=gnome\nCHILD_0=2 X\n"), -EBADMSG,
                   "a desktop that is neither xfce nor command is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "TREE_RUNTIME=/r\nCHILD_0=2 X\n"), -EBADMSG,
                   "a tree's runtime dir without its state dir is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "TREE_RUNTIME=r\nTREE_STATE=/s\nCHILD_0=2 X\n"), -EBADMSG,
                   "a tree's dir that is not absolute is refused");
        TAP_EQ_INT(read_text(dir, GOOD_HEAD "TREE_RUNTIME=/r/../etc\nTREE_STATE=/s\nCHILD_0=2 X\n"), -EBADMSG,
                   "a tree's dir with .. is refused");
}

static void test_names(const char *scratch) {
        _cleanup_free_ char *snaps = strdup_printf("%s/" SNAPSHOTS_DIR, scratch);
        _cleanup_free_ char *one = strdup_printf("%s/" SNAPSHOTS_DIR "/s1", scratch);
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
        _cleanup_close_ int dir = -EBADF, fd = -EBADF;
        char long_name[SNAPSHOT_NAME_MAX + 2];

        tap_ok(snapshot_name_valid("s1") && snapshot_name_valid("before-login_2.b") && snapshot_name_valid("A"),
               "snapshot names of letters, digits, '.', '_' and '-' are valid");
        tap_ok(!snapshot_name_valid("") && !snapshot_name_valid("a/b") && !snapshot_name_valid("..") &&
                       !snapshot_name_valid(".hidden") && !snapshot_name_valid("-x") && !snapshot_name_valid("a b") &&
                       !snapshot_name_valid("a\nb"),
               "... empty, a slash, '..', a leading dot or dash, a space, a newline are not");
        memset(long_name, 'a', sizeof long_name - 1);
        long_name[sizeof long_name - 1] = 0;
        tap_ok(!snapshot_name_valid(long_name), "... nor %d characters", SNAPSHOT_NAME_MAX + 1);
        long_name[SNAPSHOT_NAME_MAX] = 0;
        tap_ok(snapshot_name_valid(long_name), "... %d are", SNAPSHOT_NAME_MAX);

        TAP_EQ_INT(snapshot_open_named(scratch, "s1", &fd), -ENOENT, "no snapshots dir: -ENOENT");
        TAP_EQ_INT(snapshot_open_named(scratch, "../x", &fd), -EINVAL, "a name that is not one: -EINVAL");
        if (!tap_ok(mkdir(snaps, 0700) == 0 && mkdir(one, 0700) == 0, "snapshots/s1"))
                return;
        dir = open(one, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        manifest_sample(&m, "6.18.0");
        TAP_EQ_INT(snapshot_manifest_write_at(dir, &m), 0, "... with a manifest");
        TAP_EQ_INT(snapshot_open_named(scratch, "s1", &fd), 0, "... is opened by its name");
        fd = safe_close(fd);
        TAP_EQ_INT(chmod(snaps, 0777), 0, "snapshots/ made writable by all");
        TAP_EQ_INT(snapshot_open_named(scratch, "s1", &fd), -EPERM, "... is refused (-EPERM)");
        TAP_EQ_INT(chmod(snaps, 0700), 0, "back to 0700");
        {
                _cleanup_close_ int sfd = open(snaps, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                dir = safe_close(dir);
                TAP_EQ_INT(snapshot_remove_at(sfd, "s1"), 0, "a named snapshot is removed");
                (void) rmdir(snaps);
        }
}

static void test_open(const char *scratch) {
        _cleanup_free_ char *snap = strdup_printf("%s/" SNAPSHOT_DIR, scratch);
        _cleanup_close_ int dir = -EBADF, fd = -EBADF;
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};

        TAP_EQ_INT(snapshot_open(scratch, &fd), -ENOENT, "no snapshot dir: -ENOENT");
        if (!tap_ok(mkdir(snap, 0700) == 0, "a snapshot dir"))
                return;
        dir = open(snap, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        TAP_EQ_INT(snapshot_open(scratch, &fd), -ENOENT, "... without its manifest: -ENOENT");
        manifest_sample(&m, "6.18.0");
        TAP_EQ_INT(snapshot_manifest_write_at(dir, &m), 0, "... a manifest in it");
        TAP_EQ_INT(snapshot_open(scratch, &fd), 0, "... opened");
        fd = safe_close(fd);
        TAP_EQ_INT(chmod(snap, 0777), 0, "the dir made writable by all");
        TAP_EQ_INT(snapshot_open(scratch, &fd), -EPERM, "... is refused (-EPERM)");
        TAP_EQ_INT(chmod(snap, 0700), 0, "back to 0700");
        TAP_EQ_INT(fchmodat(dir, SNAPSHOT_MANIFEST, 0666, 0), 0, "the manifest made writable by all");
        TAP_EQ_INT(snapshot_open(scratch, &fd), -EPERM, "... is refused (-EPERM)");
        TAP_EQ_INT(fchmodat(dir, SNAPSHOT_MANIFEST, 0600, 0), 0, "back to 0600");
        if (geteuid() == 0) {
                TAP_EQ_INT(chown(snap, 65534, 65534), 0, "the dir given to nobody");
                TAP_EQ_INT(snapshot_open(scratch, &fd), -EPERM, "... is refused (-EPERM)");
                (void) chown(snap, 0, 0);
        } else
                tap_skip_host("a dir of another owner refused # SKIP only root can give it away");
        {
                unsigned long long size = 0;

                TAP_EQ_INT(snapshot_size_at(dir, &size), 0, "the images' size is summed");
                tap_ok(size > 100 && size < 4096, "... the manifest's bytes alone (%llu)", size);
        }
        dir = safe_close(dir);
        {
                _cleanup_close_ int sfd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                TAP_EQ_INT(snapshot_remove_at(sfd, SNAPSHOT_DIR), 0, "a snapshot is removed");
                tap_ok(access(snap, F_OK) < 0 && errno == ENOENT, "... and is gone");
                TAP_EQ_INT(snapshot_remove_at(sfd, SNAPSHOT_DIR), 0, "removing none is no error");
        }
}

static void test_unusable(void) {
        _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
        _cleanup_free_ char *why = NULL, *why_version = NULL;
        struct utsname u;

        if (!tap_ok(uname(&u) == 0, "uname"))
                return;
        manifest_sample(&m, u.release);
        tap_ok(!(why = snapshot_unusable(&m)), "images of this botdesk and kernel are usable");
        free(m.kernel);
        m.kernel = strdup("0.0.0-other");
        why = snapshot_unusable(&m);
        tap_ok(why && strstr(why, "0.0.0-other") && strstr(why, u.release), "another kernel's are not, naming both (%s)",
               strnull(why));
        free(m.version);
        m.version = strdup("0.1-old");
        why_version = snapshot_unusable(&m);
        tap_ok(why_version && strstr(why_version, "0.1-old"), "another botdesk's are not, naming it (%s)",
               strnull(why_version));
}

int main(void) {
        char scratch[256], scratch2[256];

        scratch_dir_make(scratch, sizeof scratch, "test-snapshot");
        scratch_dir_make(scratch2, sizeof scratch2, "test-snapshot");
        test_manifest(scratch);
        test_open(scratch2);
        test_names(scratch2);
        test_unusable();
        scratch_dir_remove(scratch);
        scratch_dir_remove(scratch2);
        return tap_done();
}
