/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include "find-executable.h"
#include "fixture.h"
#include "util.h"

static char scratch[256];

static void put(const char *rel, mode_t mode) {
        _cleanup_free_ char *p = path_at(scratch, rel);

        if (file_put_at(scratch, rel, "#!/bin/sh\n") < 0 || chmod(p, mode) < 0)
                die(p);
}

/* find_executable() as one line: the path found, or the error's name. */
static char *lookup(const char *name, const char *path) {
        _cleanup_free_ char *got = NULL;
        int r = find_executable(name, path, &got);

        return r < 0 ? strdup_printf("error %s", strerrorname_np(-r)) : TAKE_PTR(got);
}

#define CHECK(name, path, want, ...)                                \
        do {                                                        \
                _cleanup_free_ char *_got = lookup((name), (path)); \
                TAP_EQ_STR(_got, (want), __VA_ARGS__);              \
        } while (0)

int main(void) {
        _cleanup_free_ char *tool = NULL, *data = NULL, *bindir = NULL, *other_data = NULL, *path = NULL;

        scratch_dir_make(scratch, sizeof scratch, "test-find-executable");
        if (dir_make_at(scratch, "bin") < 0 || dir_make_at(scratch, "bin/subdir") < 0 ||
            dir_make_at(scratch, "other") < 0)
                die("mkdir");
        put("bin/tool", 0755);
        put("bin/data", 0644);
        put("other/data", 0755);
        put("rel-tool", 0755);
        tool = path_at(scratch, "bin/tool");
        data = path_at(scratch, "bin/data");
        other_data = path_at(scratch, "other/data");
        bindir = path_at(scratch, "bin");

        /* Empty and relative entries would mean the current directory, which holds rel-tool. */
        path = strdup_printf("::.:rel:/nonexistent:%s:%s/other:", bindir, scratch);
        if (!path || chdir(scratch) < 0)
                die("chdir");

        CHECK("tool", path, tool, "a bare name is found in PATH with its full path");
        CHECK("data", path, other_data, "a non-executable file is passed over for a later executable one");
        CHECK("subdir", path, "error ENOENT", "a directory is not an executable: -ENOENT");
        CHECK("rel-tool", path, "error ENOENT", "empty and relative PATH entries are not searched: -ENOENT");
        CHECK("missing-tool", path, "error ENOENT", "a name in no PATH entry: -ENOENT");
        CHECK("tool", "", "error ENOENT", "an empty PATH finds nothing");

        CHECK(tool, "/nonexistent", tool, "an absolute name is returned as given when it is executable");
        CHECK(data, NULL, "error ENOENT", "an absolute name of a non-executable file: -ENOENT");
        CHECK(bindir, NULL, "error ENOENT", "an absolute name of a directory: -ENOENT");
        CHECK("", path, "error EINVAL", "the empty name: -EINVAL");

        TAP_EQ_INT(find_executable("tool", path, NULL), 0, "a caller may only ask, without the path");
        {
                _cleanup_free_ char *sh = lookup("sh", NULL);
                tap_ok(sh[0] == '/', "without a path the process's PATH is searched (sh is %s)", sh);
        }
        if (setenv("PATH", bindir, 1) < 0)
                die("setenv");
        CHECK("tool", NULL, tool, "a NULL path means $PATH");

        if (chdir("/") < 0)
                die("chdir");
        scratch_dir_remove(scratch);
        return tap_done();
}
