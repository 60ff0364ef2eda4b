/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>

#include "browser.h"
#include "find-executable.h"
#include "util.h"

static bool headless_only(const char *path) {
        return strstr(path, "headless") != NULL;
}

char *browser_find_playwright(const char *dir) {
        _cleanup_closedir_ DIR *d = opendir(dir);
        unsigned long long best_rev = 0;
        char *best = NULL;
        struct dirent *de;

        if (!d)
                return NULL;
        while ((de = readdir(d))) {
                static const char *const layouts[] = { "chrome-linux64/chrome", "chrome-linux/chrome" };
                const char *rev = startswith(de->d_name, "chromium-");
                unsigned long long v;

                if (!rev || parse_uint(rev, ~0ULL, &v) < 0 || (best && v <= best_rev))
                        continue;
                for (size_t i = 0; i < ELEMENTSOF(layouts); i++) {
                        _cleanup_free_ char *p = strdup_printf("%s/%s/%s", dir, de->d_name, layouts[i]);

                        if (p && access(p, X_OK) == 0) {
                                free(best);
                                best = TAKE_PTR(p);
                                best_rev = v;
                                break;
                        }
                }
        }
        return best;
}

char *browser_find(const struct bd_config *c, const char *home) {
        static const char *const names[] = { "chromium", "chromium-browser", "google-chrome", "google-chrome-stable" };
        const char *e;

        if (streq(c->browser_executable, "none"))
                return NULL;
        if (!streq(c->browser_executable, "auto"))
                return access(c->browser_executable, X_OK) == 0 ? strdup(c->browser_executable) : NULL;
        e = getenv("AGENT_BROWSER_EXECUTABLE_PATH");
        if (e && *e && e[0] == '/' && !headless_only(e) && access(e, X_OK) == 0)
                return strdup(e);
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                char *p = NULL;

                if (find_executable(names[i], NULL, &p) >= 0)
                        return p;
        }
        e = getenv("PLAYWRIGHT_BROWSERS_PATH");
        if (e && e[0] == '/')
                return browser_find_playwright(e);
        if (home && home[0] == '/') {
                _cleanup_free_ char *dir = strdup_printf("%s/.cache/ms-playwright", home);

                return dir ? browser_find_playwright(dir) : NULL;
        }
        return NULL;
}

int browser_profile_dir(const struct bd_config *c, const char *pinned, const char *state_dir, const char *home,
                        char **ret) {
        const char *d = c->browser_profile_dir;
        char *p;

        if ((!d || !*d) && pinned && *pinned) {
                /* The gateway's own pin: ~ is the user's home; a relative path is the gateway's home's, the
                 * configured one, else the user's. */
                if (pinned[0] == '/')
                        p = strdup(pinned);
                else if (pinned[0] != '~' && c->browser_home)
                        p = strdup_printf("%s/%s", c->browser_home, pinned);
                else if (!home || home[0] != '/')
                        return -ENOENT;
                else if (streq(pinned, "~"))
                        p = strdup(home);
                else
                        p = strdup_printf("%s/%s", home, startswith(pinned, "~/") ?: pinned);
        } else if (!d || !*d)
                p = strdup_printf("%s/browser-profile", state_dir);
        else if (d[0] == '/')
                p = strdup(d);
        else if (d[0] == '~') {
                /* The configuration refuses ~NAME: only ~ and ~/PATH get here. */
                if (!home || home[0] != '/')
                        return -ENOENT;
                p = d[1] ? strdup_printf("%s%s", home, d + 1) : strdup(home);
        } else
                p = strdup_printf("%s/%s", c->browser_home ?: state_dir, d);
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

char *browser_cdp_socket(const char *runtime_dir) {
        return strdup_printf("%s/cdp.sock", runtime_dir);
}

int browser_argv(const char *launcher, const char *cdp_socket, const char *executable, const char *profile_dir,
                 unsigned disk_cache_mb, bool as_root, char ***ret) {
        _cleanup_strv_free_ char **argv = NULL;
        int r;

        /* Through the launcher: it adds --remote-debugging-pipe and serves
         * DevTools on cdp_socket (0600), so no TCP port is ever opened. */
        if ((r = strv_push(&argv, strdup(launcher))) < 0 ||
            (r = strv_push(&argv, strdup_printf("--cdp-socket=%s", cdp_socket))) < 0 ||
            (r = strv_push(&argv, strdup("--"))) < 0 ||
            (r = strv_push(&argv, strdup(executable))) < 0 ||
            (r = strv_push(&argv, strdup_printf("--user-data-dir=%s", profile_dir))) < 0 ||
            (r = strv_push(&argv, strdup_printf("--disk-cache-size=%llu",
                                                (unsigned long long) disk_cache_mb * 1024 * 1024))) < 0 ||
            (r = strv_push(&argv, strdup("--no-first-run"))) < 0 ||
            (r = strv_push(&argv, strdup("--no-default-browser-check"))) < 0)
                return r;
        if (as_root && (r = strv_push(&argv, strdup("--no-sandbox"))) < 0)
                return r;
        *ret = TAKE_PTR(argv);
        return 0;
}
