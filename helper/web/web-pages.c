/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk web's pages: the viewer's page, noVNC's files beside it, and the journal. */
#include <string.h>

#include "util.h"
#include "web-conn.h"

void web_serve_page(struct web_conn *c, const char *profile, struct web_session *session, const char *cookie) {
        /* frame-ancestors: no other page may frame this one and trick a click on Take over. */
        static const char csp[] = "Content-Security-Policy: default-src 'self'; style-src 'self' 'unsafe-inline'; "
                                  "img-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; "
                                  "frame-ancestors 'none'\r\nX-Frame-Options: DENY\r\n";
        _cleanup_free_ char *html = NULL, *headers = NULL;

        if (cookie[0]) {
                /* The ticket is spent: send the browser to the page without it,
                 * so neither a reload nor the history presents it again. No
                 * Path: the cookie belongs to this page's directory, whatever
                 * prefix a reverse proxy adds in front. Lax, not Strict: a
                 * ticket link followed from another site (the gateway's) is a
                 * cross-site navigation, and Strict would drop the cookie on
                 * this very redirect. Lax still keeps it off other sites'
                 * POSTs and WebSockets (which the Origin check refuses too).
                 * Over TCP there is no proxy and no prefix: the cookie's Path
                 * is the session's scope, so that the browser sends it to
                 * this server's pages only, never to another port's. */
                if (c->server->tcp)
                        headers = strdup_printf("Set-Cookie: " WEB_COOKIE "=%s; Path=/%s/%s/; HttpOnly; SameSite=Lax\r\n"
                                                "Location: /%s/%s/\r\nCache-Control: no-store\r\n",
                                                cookie, profile, session->scope, profile, session->scope);
                else
                        headers = strdup_printf("Set-Cookie: " WEB_COOKIE "=%s; HttpOnly; SameSite=Lax\r\n"
                                                "Location: ./\r\nCache-Control: no-store\r\n", cookie);
                if (!headers) {
                        web_conn_free(c, false);
                        return;
                }
                web_respond(c, 303, "text/plain; charset=utf-8", headers, "", 0, -1);
                return;
        }
        html = web_page_html(profile, c->server->novnc_fd >= 0);
        headers = strdup_printf("Cache-Control: no-store\r\n%s", csp);
        if (!html || !headers) {
                web_conn_free(c, false);
                return;
        }
        web_respond(c, c->server->novnc_fd >= 0 ? 200 : 503, "text/html; charset=utf-8", headers, html, strlen(html), -1);
}

void web_serve_static(struct web_conn *c, const char *rel, bool any_origin) {
        const char *type;
        off_t size;
        int fd;

        if (c->server->novnc_fd < 0) {
                web_respond_text(c, 404, NULL, "botdesk web: noVNC is not installed (package novnc, or --novnc DIR).\n");
                return;
        }
        fd = web_static_open(c->server->novnc_fd, rel, &size, &type);
        if (fd < 0) {
                web_respond_text(c, 404, NULL, "botdesk web: no such file.\n");
                return;
        }
        c->file_fd = fd;
        c->file_left = size;
        web_respond(c, 200, type,
                    any_origin ? "Cache-Control: private, max-age=3600\r\nAccess-Control-Allow-Origin: *\r\n"
                               : "Cache-Control: private, max-age=3600\r\n",
                    NULL, 0, size);
}

/* What the agent did, typed text included: for a viewer with a session alone, on any socket. */
void web_serve_journal(struct web_conn *c, const char *profile, const char *rel) {
        /* As the viewer's page: nothing but its own frames and styles, and no other page may frame it. */
        static const char headers[] = "Cache-Control: no-store\r\n"
                                      "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; "
                                      "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n"
                                      "X-Frame-Options: DENY\r\nX-Content-Type-Options: nosniff\r\n";
        _cleanup_free_ char *body = NULL;
        const char *type = NULL;
        size_t size = 0;
        int r;

        /* Behind a session on every listener (web-http.c's routes): it holds what was typed. */
        if (streq(rel, "")) {
                /* The page's links to its frames are relative to journal/. */
                web_respond(c, 303, "text/plain; charset=utf-8", "Location: journal/\r\n", "", 0, -1);
                return;
        }
        r = web_journal_get(profile, rel, c->req.query, &body, &size, &type);
        if (r < 0)
                web_respond_text(c, r == -ENOENT ? 404 : r == -EINVAL ? 400 : 500, NULL, "botdesk web: %s.\n",
                                 r == -ENOENT   ? "no such journal or frame"
                                 : r == -EINVAL ? "from= and before= take an entry's seq"
                                                : "the journal cannot be read");
        else
                web_respond(c, 200, type, headers, body, size, -1);
}

void web_respond_lease(struct web_conn *c, const struct lease *l, const char *viewer, bool session) {
        _cleanup_free_ char *body = NULL;
        size_t size = 0;

        body = web_lease_json(l, viewer, session, &size);
        if (!body) {
                web_conn_free(c, false);
                return;
        }
        web_respond(c, 200, "application/json", "Cache-Control: no-store\r\n", body, size, -1);
}
