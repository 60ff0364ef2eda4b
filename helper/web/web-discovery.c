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
 * (web-devtools.c spends that). GET .../TICKET/json/list (or /json) lists
 * the browser's pages instead, each with the URL of its own connection
 * (web-devtools-list.c). Chromium's own server answers these without any
 * secret; here nothing is handed out without one.
 */
#include <errno.h>

#include "json.h"
#include "log.h"
#include "ticket.h"
#include "util.h"
#include "web.h"
#include "web-conn.h"

void web_devtools_discovery(struct web_conn *c, const char *profile, const char *rel) {
        char token[TICKET_TOKEN_LEN + 1], next[TICKET_TOKEN_LEN + 1];
        const char *host = http_header(&c->req, "Host"), *what;
        _cleanup_free_ char *url = NULL, *body = NULL;
        size_t l = strcspn(rel, "/");
        struct json_mem m;
        bool list;
        struct ticket t;
        int r;

        what = rel + l;
        list = streq(what, "/json/list") || streq(what, "/json/list/") || streq(what, "/json") || streq(what, "/json/");
        if (l != TICKET_TOKEN_LEN || (!list && !streq(what, "/json/version") && !streq(what, "/json/version/"))) {
                web_respond_text(c, 404, NULL, "botdesk web: a DevTools endpoint serves /json/version and /json/list "
                                 "(botdesk browser %s http-endpoint prints one); connect to a webSocketDebuggerUrl "
                                 "they name.\n", profile);
                return;
        }
        memcpy(token, rel, l);
        token[l] = 0;
        r = ticket_check_devtools_at(c->server->ticket_dirfd, token, profile, realtime_usec(), &t);
        if (r >= 0 && web_devtools_browser(c, profile, NULL) < 0) {
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
        if (list) {
                /* The Host the client reached us by (a loopback one: web_host_ok()), as below. */
                web_devtools_list(c, profile, host ?: "127.0.0.1");
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
