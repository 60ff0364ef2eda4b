/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: /PROFILE/embed/TICKET/, the viewer that another site's page
 * embeds: an MCP App (botdesk mcp's view tool and its ui://botdesk/viewer),
 * whose frame has the host's origin (or none: a sandbox's "null"), sends no
 * cookie of ours, and loads noVNC as modules, which a browser fetches with
 * CORS. So beneath the path of one embed ticket (ticket.h, KIND=embed):
 *
 *   novnc/FILE   noVNC's files, to any origin (Access-Control-Allow-Origin:
 *                *); the ticket is checked, not spent: the module graph is
 *                a dozen requests.
 *   websockify   one stream, watch-only: input passes only while the
 *                ticket's viewer holds the lease, which nothing in the frame
 *                can take (take and release are not beneath this path). It
 *                spends the ticket.
 *
 * Whatever the Origin says: the ticket is the whole authority, single-use
 * for the stream and short-lived. The Host rule stays (a loopback name
 * over TCP): a page of another site that resolves to us is refused.
 */
#include "log.h"
#include "ticket.h"
#include "util.h"
#include "web.h"
#include "web-conn.h"

void web_serve_embed(struct web_conn *c, const char *profile, const char *rel, const void *early, size_t n_early) {
        char token[TICKET_TOKEN_LEN + 1], cookie[65];
        size_t l = strcspn(rel, "/");
        const char *what = rel + l, *file;
        struct web_session *session;
        struct ticket t;
        int r;

        c->ws = streq(what, "/websockify") && http_header_has_token(&c->req, "Upgrade", "websocket") &&
                http_header_has_token(&c->req, "Connection", "upgrade") &&
                streq_ptr(http_header(&c->req, "Sec-WebSocket-Version"), "13");
        if (!web_host_ok(c->server, &c->req)) {
                web_refuse(c, 403, WS_CLOSE_FORBIDDEN, "host refused", "botdesk web: only a loopback Host is served here.\n");
                return;
        }
        if (!streq(c->req.method, "GET")) {
                web_respond_text(c, 405, "Allow: GET\r\n", "botdesk web: GET only.\n");
                return;
        }
        if (l != TICKET_TOKEN_LEN || *what != '/') {
                web_respond_text(c, 404, NULL, "botdesk web: no such page.\n");
                return;
        }
        memcpy(token, rel, l);
        token[l] = 0;
        what++;
        r = ticket_check_embed_at(c->server->ticket_dirfd, token, profile, realtime_usec(), &t);
        if (r >= 0 && (file = startswith(what, "novnc/"))) {
                explicit_bzero(token, sizeof token);
                web_serve_static(c, file, true);
                return;
        }
        if (r >= 0 && !streq(what, "websockify")) {
                explicit_bzero(token, sizeof token);
                web_respond_text(c, 404, NULL, "botdesk web: an embedded viewer's ticket opens noVNC's files and "
                                 "one stream alone.\n");
                return;
        }
        if (r >= 0 && !c->ws) {
                explicit_bzero(token, sizeof token);
                web_respond_text(c, 426, "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n",
                                 "botdesk web: this is a WebSocket endpoint.\n");
                return;
        }
        if (r >= 0)
                r = ticket_redeem_embed_at(c->server->ticket_dirfd, token, profile, realtime_usec(), &t);
        explicit_bzero(token, sizeof token);
        if (r < 0) {
                log_info("Refused an embedded viewer's ticket for %s: %s.", profile, ticket_problem(r));
                web_refuse(c, 403, WS_CLOSE_BAD_TICKET, ticket_problem(r),
                           "botdesk web: this viewer's ticket is %s; ask for the view again.\n", ticket_problem(r));
                return;
        }
        session = web_session_new(c->server, &t, cookie);
        explicit_bzero(cookie, sizeof cookie);
        if (!session) {
                web_refuse(c, 503, WS_CLOSE_TRY_AGAIN_LATER, "too many sessions", "botdesk web: too many sessions.\n");
                return;
        }
        log_info("An embedded viewer's ticket was redeemed for %s.", profile);
        web_serve_upgrade(c, profile, session, early, n_early);
}
