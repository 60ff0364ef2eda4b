/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli.h"
#include "cli-desktop.h"
#include "envfile.h"
#include "record.h"
#include "log.h"
#include "profile.h"
#include "running.h"
#include "util.h"
#include "x11-connect.h"

int cli_running_display(const char *profile, int *ret_fd, char **ret_display, char **ret_xauthority) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_strv_free_ char **env = NULL;
        _cleanup_free_ char *d = NULL, *x = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        const char *display, *xauthority;
        int r;

        r = running_desktop_live(profile, &p, &dirfd);
        if (r != EXIT_OK)
                return r;
        r = running_desktop_env(profile, dirfd, &p, &env);
        if (r != EXIT_OK)
                return r;
        display = strv_env_get(env, "DISPLAY");
        xauthority = strv_env_get(env, "XAUTHORITY");
        if (!display || !*display || !xauthority || !*xauthority) {
                log_error("Desktop %s has not published DISPLAY and XAUTHORITY in %s; wait for `botdesk start %s` to return.",
                          profile, p.env_file, profile);
                return EXIT_NOT_RUNNING;
        }
        d = strdup(display);
        x = strdup(xauthority);
        if (!d || !x) {
                log_oom();
                return EXIT_FAILED;
        }
        *ret_display = TAKE_PTR(d);
        *ret_xauthority = TAKE_PTR(x);
        *ret_fd = TAKE_FD(dirfd);
        return EXIT_OK;
}

int cli_desktop_run_id(const char *profile, int dirfd, char ret[static SCREEN_RUN_ID_LEN + 1]) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        int r = running_desktop_helper(profile, dirfd, &rec);

        if (r != EXIT_OK)
                return r;
        screen_run_id(rec.token, rec.pid, rec.starttime, ret);
        return EXIT_OK;
}

int cli_connect_desktop(const char *profile, const char *display, const char *xauthority, xcb_connection_t **ret,
                        int *ret_screen) {
        int r = x11_connect_with_cookie(display, xauthority, ret, ret_screen);

        if (r == -ECONNREFUSED) {
                log_error("Cannot connect to X display %s of desktop %s; check it with: botdesk status %s", display,
                          profile, profile);
                return EXIT_FAILED;
        }
        if (r == -EINVAL) {
                log_error("Desktop %s published an invalid DISPLAY \"%s\"; restart it: botdesk restart %s", profile,
                          display, profile);
                return EXIT_FAILED;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot get the cookie of display %s from %s: %m", display, xauthority);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

xcb_atom_t cli_intern_atom(xcb_connection_t *c, const char *name) {
        xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, xcb_intern_atom(c, false, (uint16_t) strlen(name), name),
                                                           NULL);
        xcb_atom_t atom = r ? r->atom : XCB_ATOM_NONE;

        free(r);
        return atom;
}
