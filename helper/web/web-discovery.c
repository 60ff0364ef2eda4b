/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: GET /PROFILE/devtools/TICKET/json/version, Chromium's
 * discovery document for a DevTools client that is given an http://
 * endpoint instead of a ws:// one (Playwright's
 * chromium.connectOverCDP("http://..."), Puppeteer's connect({browserURL})):
 * they append json/version to the URL, read webSocketDebuggerUrl from the
 * answer and connect to it. The URL of `botdesk browser PROFILE
 * http-endpoint` carries a single-use DevTools ticket in its path (a
 * client appends to the path, so a query would be lost); the request
 * spends it, and the answer's WebSocket URL carries a fresh one
 * (web-devtools.c spends that). Chromium's own server answers this
 * without any secret; here nothing is handed out without one.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "json.h"
#include "log.h"
#include "record.h"
#include "ticket.h"
#include "util.h"
#include "web.h"
#include "web-conn.h"

/* The desktop runs here, with a browser serving DevTools: 0, or a refusal answered. */
static int desktop_has_browser(struct web_conn *c, const char *profile) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        struct web_profile *p;
        struct stat st;
        int r = 0;

        p = web_profile_get(c->server, profile, &r);
        if (!p) {
                web_respond_text(c, r == -ENOENT ? 503 : 500, NULL, "botdesk web: desktop %s is not running.\n",
                                 profile);
                return -ENOENT;
        }
        if (p->placed)
                r = -EOPNOTSUPP;
        else if (helper_record_read_at(p->dirfd, &rec) < 0 || helper_alive(p->dirfd, &rec) <= 0)
                r = -ENOENT;
        else if (fstatat(p->dirfd, "cdp.sock", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode))
                r = -ENOTCONN;
        web_profile_put(p);
        if (r == -EOPNOTSUPP)
                web_respond_text(c, 501, NULL, "botdesk web: %s is placed through an exec prefix; its browser's "
                                 "DevTools are not served here yet.\n", profile);
        else if (r == -ENOENT)
                web_respond_text(c, 503, NULL, "botdesk web: desktop %s is not running; start it with: botdesk "
                                 "start %s\n", profile, profile);
        else if (r == -ENOTCONN)
                web_respond_text(c, 503, NULL, "botdesk web: %s has no browser with DevTools running.\n", profile);
        return r;
}

void web_devtools_discovery(struct web_conn *c, const char *profile, const char *rel) {
        char token[TICKET_TOKEN_LEN + 1], next[TICKET_TOKEN_LEN + 1];
        const char *host = http_header(&c->req, "Host"), *what;
        _cleanup_free_ char *url = NULL, *body = NULL;
        size_t l = strcspn(rel, "/");
        struct json_mem m;
        struct ticket t;
        int r;

        what = rel + l;
        if (l != TICKET_TOKEN_LEN || (!streq(what, "/json/version") && !streq(what, "/json/version/"))) {
                web_respond_text(c, 404, NULL, "botdesk web: a DevTools endpoint serves /json/version alone (botdesk "
                                 "browser %s http-endpoint prints one); connect to its webSocketDebuggerUrl.\n",
                                 profile);
                return;
        }
        memcpy(token, rel, l);
        token[l] = 0;
        r = ticket_check_devtools_at(c->server->ticket_dirfd, token, profile, realtime_usec(), &t);
        if (r >= 0 && desktop_has_browser(c, profile) < 0) {
                explicit_bzero(token, sizeof token);
                return;
        }
        if (r >= 0)
                /* Spent by this one request, whatever comes of it. */
                r = ticket_redeem_devtools_at(c->server->ticket_dirfd, token, profile, realtime_usec(), &t);
        explicit_bzero(token, sizeof token);
        if (r < 0) {
                log_info("Refused a DevTools discovery ticket for %s: %s.", profile, ticket_problem(r));
                web_respond_text(c, 403, NULL, "botdesk web: this DevTools ticket is %s; ask for a new URL (botdesk "
                                 "browser %s http-endpoint).\n", ticket_problem(r), profile);
                return;
        }
        r = ticket_mint_devtools_at(c->server->ticket_dirfd, profile, TICKET_DEVTOOLS_TTL_DEFAULT, next);
        if (r < 0) {
                log_warning_errno(r, "Cannot store a DevTools ticket for %s: %m", profile);
                web_respond_text(c, 500, NULL, "botdesk web: cannot store a ticket.\n");
                return;
        }
        /* The Host the client reached us by (a loopback one: web_host_ok()), so the URL works from where it is. */
        url = strdup_printf("ws://%s/%s/devtools/browser?ticket=%s", host ?: "127.0.0.1", profile, next);
        explicit_bzero(next, sizeof next);
        if (!url || json_mem_open(&m) < 0) {
                web_respond_text(c, 500, NULL, "botdesk web: out of memory.\n");
                return;
        }
        json_object_begin(&m.j);
        json_kv_string(&m.j, "Browser", "botdesk-browser");
        json_kv_string(&m.j, "Protocol-Version", "1.3");
        json_kv_string(&m.j, "webSocketDebuggerUrl", url);
        json_object_end(&m.j);
        explicit_bzero(url, strlen(url));
        if (json_mem_close(&m, &body) < 0) {
                web_respond_text(c, 500, NULL, "botdesk web: out of memory.\n");
                return;
        }
        web_respond(c, 200, "application/json; charset=utf-8", "Cache-Control: no-store\r\n", body, strlen(body), -1);
        explicit_bzero(body, strlen(body));
}
