/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <limits.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "fixture.h"
#include "tap.h"
#include "util.h"

/* cgroup_remove on a plain directory tree, as on a cgroup one: the
 * children first (a cgroup with children cannot be removed), then itself. */
static void test_remove_tree(void) {
        char base[PATH_MAX];
        _cleanup_free_ char *top = NULL, *leaf = NULL, *sibling = NULL;

        scratch_dir_make(base, sizeof base, "test-cgroup");
        top = path_at(base, "top");
        leaf = path_at(base, "top/a/b");
        sibling = path_at(base, "top/c");
        if (mkdir_parents(leaf, 0755) < 0 || mkdir(sibling, 0755) < 0)
                die(leaf);
        TAP_EQ_INT(cgroup_remove(top), 0, "a tree of cgroups is removed, children first");
        tap_ok(access(top, F_OK) < 0 && errno == ENOENT, "... and nothing of it is left");
        TAP_EQ_INT(cgroup_remove(top), 0, "removing a cgroup that is gone is no error");
        scratch_dir_remove(base);
}

int main(void) {
        _cleanup_free_ char *mount = NULL, *ours = NULL, *sub = NULL, *other = NULL, *escape = NULL;
        _cleanup_free_ char *unit = NULL, *nested = NULL;

        if (cgroup_v2_mount(&mount) < 0) {
                return tap_skip_all("no cgroup v2 hierarchy on this host");
        }
        test_remove_tree();
        ours = strdup_printf("%s/botdesk-1000-work", mount);
        sub = strdup_printf("%s/botdesk-1000-work/x11", mount);
        other = strdup_printf("%s/system.slice", mount);
        escape = strdup_printf("%s/botdesk-1000-work/../system.slice", mount);
        unit = strdup_printf("%s/user.slice/user-1000.slice/user@1000.service/app.slice/botdesk@work.service", mount);
        nested = strdup_printf("%s/user.slice/botdesk-1000-work", mount);

        tap_ok(!cgroup_is_botdesk(mount), "the root of the cgroup hierarchy is never botdesk's");
        tap_ok(!cgroup_is_botdesk(NULL), "no path is never botdesk's");
        tap_ok(!cgroup_is_botdesk("/etc"), "a path outside the hierarchy is never botdesk's");
        tap_ok(!cgroup_is_botdesk(other), "someone else's cgroup is not botdesk's");
        tap_ok(!cgroup_is_botdesk(escape), "a path climbing out with .. is not botdesk's");
        tap_ok(cgroup_is_botdesk(ours), "a standalone desktop's sub-tree is botdesk's");
        tap_ok(cgroup_is_botdesk(nested), "a standalone sub-tree below another cgroup is botdesk's");
        tap_ok(cgroup_is_botdesk(unit), "a botdesk unit's cgroup is botdesk's");
        tap_ok(!cgroup_is_botdesk(sub), "a sub-group is not itself named as botdesk's");

        TAP_EQ_INT(cgroup_kill(mount), -EPERM, "killing the root of the hierarchy is refused");
        TAP_EQ_INT(cgroup_kill(other), -EPERM, "killing a foreign cgroup is refused");
        TAP_EQ_INT(cgroup_kill("/"), -EPERM, "killing / is refused");
        TAP_EQ_INT(cgroup_destroy(other, 1000), -EPERM, "destroying a foreign cgroup is refused");

        tap_ok(cgroup_is_unit_of("/user.slice/u/app.slice/botdesk@work.service", "botdesk@work.service"),
               "a unit's own cgroup path is recognised");
        tap_ok(!cgroup_is_unit_of("/", "botdesk@work.service"), "the root is no unit's cgroup");
        tap_ok(!cgroup_is_unit_of("/user.slice/session-3.scope", "botdesk@work.service"),
               "a login scope is not the desktop unit's cgroup");
        tap_ok(!cgroup_is_unit_of("/x/botdesk@work.service", NULL), "without a unit nothing matches");
        return tap_done();
}
