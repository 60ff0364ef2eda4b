/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whether a profile's session state is a fresh session's (adopt-state.h):
 * two trees built here, one change at a time. */
#include <fcntl.h>
#include <sys/stat.h>

#include "adopt-state.h"
#include "fixture.h"
#include "tap.h"

static char base[256];

static const struct state_names names = {
        .profile_runtime = "/run/b/work/", .spare_runtime = "/run/b/_spare-0123abcd/",
        .profile_state = "/st/b/work/", .spare_state = "/st/b/_spare-0123abcd/",
};

static void put(const char *tree, const char *rel, const char *text) {
        _cleanup_free_ char *path = strdup_printf("%s/%s/%s", base, tree, rel);
        char *slash;
        FILE *f;

        if (!path)
                die("strdup_printf");
        slash = strrchr(path, '/');
        *slash = 0;
        if (mkdir_parents(path, 0700) < 0)
                die("mkdir_parents");
        *slash = '/';
        f = fopen(path, "we");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                die(path);
}

/* The two trees as a fresh session leaves them: the spare's and the profile's. */
static void fresh(void) {
        static const char *const trees[] = { "p", "s" };

        dir_empty(base);
        for (size_t i = 0; i < 2; i++) {
                bool p = i == 0;

                put(trees[i], "config/xfce4/xfconf/xfce-perchannel-xml/xfwm4.xml", "<channel name=\"xfwm4\"/>\n");
                put(trees[i], "config/xfce4/panel/launcher-11/botdesk-browser.desktop",
                    p ? "Exec=b --cdp-socket=/run/b/work/cdp.sock -- c --user-data-dir=/st/b/work/browser-profile\n"
                      : "Exec=b --cdp-socket=/run/b/_spare-0123abcd/cdp.sock -- c --user-data-dir=/st/b/_spare-0123abcd/browser-profile\n");
                put(trees[i], "data/.keep", "");
        }
}

static int same(void) {
        _cleanup_free_ char *p = path_at(base, "p"), *s = path_at(base, "s");
        _cleanup_close_ int pf = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int sf = open(s, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (pf < 0 || sf < 0)
                die("open");
        return session_state_same(pf, sf, &names);
}

/* The profile's tree against its own manifest, written first when write_first. */
static int own(bool write_first) {
        _cleanup_free_ char *p = path_at(base, "p");
        _cleanup_close_ int pf = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (pf < 0)
                die("open");
        if (write_first && session_state_manifest_write(pf) < 0)
                die("session_state_manifest_write");
        return session_state_manifest_matches(pf);
}

int main(void) {
        _cleanup_free_ char *target = NULL, *link = NULL;

        setvbuf(stdout, NULL, _IOLBF, 0);
        scratch_dir_make(base, sizeof base, "test-adopt-state");

        fresh();
        TAP_EQ_INT(same(), 1, "a fresh session's state, the profile's dirs in the launcher read as the spare's, is the same");
        put("p", "cache/fontconfig/x.cache", "cached");
        TAP_EQ_INT(same(), 1, "a cache of the profile's own is not compared");
        put("s", "cache/other", "cached");
        TAP_EQ_INT(same(), 1, "nor the spare's");

        fresh();
        put("p", "config/xfce4/xfconf/xfce-perchannel-xml/xfwm4.xml", "<channel name=\"xfwm4\" theme=\"x\"/>\n");
        TAP_EQ_INT(same(), 0, "a setting changed makes the state the profile's own");
        fresh();
        put("p", "config/xfce4/xfconf/xfce-perchannel-xml/xfce4-desktop.xml", "<channel/>\n");
        TAP_EQ_INT(same(), 0, "a file more in the profile's");
        fresh();
        put("s", "config/xfce4/xfconf/xfce-perchannel-xml/xfce4-desktop.xml", "<channel/>\n");
        TAP_EQ_INT(same(), 0, "a file more in the spare's");
        fresh();
        put("p", "data/applications/x.desktop", "[Desktop Entry]\n");
        TAP_EQ_INT(same(), 0, "data of the profile's own");
        fresh();
        put("p", "config/xfce4/panel/launcher-11/botdesk-browser.desktop",
            "Exec=b --cdp-socket=/run/b/workx/cdp.sock -- c --user-data-dir=/st/b/work/browser-profile\n");
        TAP_EQ_INT(same(), 0, "a longer dir that begins with the profile's is not read as the spare's");

        fresh();
        target = path_at(base, "p/config/xfce4/xfconf/xfce-perchannel-xml/xfwm4.xml");
        link = path_at(base, "p/config/link.xml");
        if (symlink(target, link) < 0)
                die("symlink");
        put("s", "config/link.xml", "<channel name=\"xfwm4\"/>\n");
        TAP_EQ_INT(same(), 0, "a link where the spare has a file (a link is never followed)");

        fresh();
        put("p", "config/x/y", "a dir where the spare has a file\n");
        put("s", "config/x", "a file\n");
        TAP_EQ_INT(same(), 0, "a dir where the spare has a file");

        /* ---- the profile's own manifest -------------------------------------------------- */
        fresh();
        TAP_EQ_INT(own(false), 0, "no manifest: the state is not known to be fresh");
        TAP_EQ_INT(own(true), 1, "a manifest just written holds");
        put("p", "config/xfce4/xfconf/xfce-perchannel-xml/xfce4-keyboard-shortcuts.xml", "<channel/>\n");
        put("s", "config/xfce4/xfconf/xfce-perchannel-xml/xfce4-keyboard-shortcuts.xml", "<channel a=\"1\"/>\n");
        TAP_EQ_INT(same(), 0, "a session's own write that differs from the spare's makes the trees differ");
        TAP_EQ_INT(own(true), 1, "... but the manifest written after it holds");
        TAP_EQ_INT(same(), 0, "... and the manifest itself is not compared with the spare");
        put("p", "cache/x", "cached");
        TAP_EQ_INT(own(false), 1, "a cache written after the manifest does not count");
        put("p", "config/xfce4/xfconf/xfce-perchannel-xml/xfwm4.xml", "<channel name=\"xfwm4\" theme=\"y\"/>\n");
        TAP_EQ_INT(own(false), 0, "a setting changed after the manifest makes the state the profile's own");
        own(true);
        put("p", "data/recent.xbel", "<xbel/>\n");
        TAP_EQ_INT(own(false), 0, "a file written after the manifest");
        own(true);
        put("p", "config/x/y", "z");
        TAP_EQ_INT(own(false), 0, "a dir made after the manifest");
        own(true);
        put("p", "config/xfce4/xfconf/xfce-perchannel-xml/xfwm4.xml", "<channel name=\"xfwm4\" theme=\"Y\"/>\n");
        TAP_EQ_INT(own(false), 0, "one byte changed, same size");

        scratch_dir_remove(base);
        return tap_done();
}
