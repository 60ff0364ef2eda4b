/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: who is asking. A request's ticket or session cookie is
 * looked at first and its ticket spent last, once the method and the
 * origin passed: a refused request never costs its viewer the ticket.
 */
#include "log.h"
#include "util.h"
#include "web.h"
#include "web-conn.h"

/*
 * 0 with *ret_session (NULL when the request carries neither a ticket nor a
 * session) and *ret_ticket (a valid ticket waits in the query, to be
 * redeemed by web_redeem() once the rest of the request passed), or an HTTP
 * status to answer with, having answered. Nothing is spent here.
 */
int web_authorize(struct web_conn *c, const char *profile, const char *scope, struct web_session **ret_session,
                  bool *ret_ticket) {
        struct web_server *s = c->server;
        char token[TICKET_TOKEN_LEN + 2], cookie[80];
        struct web_session *x = NULL;
        bool has_cookie;
        struct ticket t;
        int r;

        *ret_session = NULL;
        *ret_ticket = false;
        /* Over TCP a cookie counts only beneath its session's own scope. */
        has_cookie = (!s->tcp || scope) && http_cookie_get(&c->req, WEB_COOKIE, cookie, sizeof cookie) > 0;
        if (has_cookie)
                x = web_session_find(s, cookie, NULL, s->tcp ? scope : NULL);
        explicit_bzero(cookie, sizeof cookie);

        r = http_query_get(c->req.query, "ticket", token, sizeof token);
        if (r != 0) {
                r = r < 0 ? -EINVAL : ticket_check_at(s->ticket_dirfd, token, profile, realtime_usec(), &t);
                explicit_bzero(token, sizeof token);
                /* The same browser back at its spent ticket link: its session answers for it. */
                if (r == -ENOENT && x && streq(x->profile, profile)) {
                        *ret_session = x;
                        c->spent_ticket = true;
                        return 0;
                }
                if (r == -ENOENT && x)
                        goto other_profile;
                if (r == -ENOENT && has_cookie) {
                        web_refuse(c, 401, WS_CLOSE_BAD_TICKET, "ticket used, session unknown",
                               "botdesk web: this ticket was used, and this browser's session is unknown here. "
                               "Ask for a new one (botdesk web ticket %s --viewer ID).\n", profile);
                        return 401;
                }
                if (r < 0) {
                        const char *why = ticket_problem(r);
                        log_info("Refused a ticket for %s: %s.", profile, why);
                        web_refuse(c, 403, WS_CLOSE_BAD_TICKET, why, "botdesk web: this ticket is %s. Ask for a new one "
                               "(botdesk web ticket %s --viewer ID).\n", why, profile);
                        return 403;
                }
                *ret_ticket = true;
                return 0;
        }
        if (x && !streq(x->profile, profile))
                goto other_profile;
        *ret_session = x;
        return 0;

other_profile:
        log_info("Refused a session of another profile at %s.", profile);
        web_refuse(c, 403, WS_CLOSE_BAD_TICKET, "session of another profile",
               "botdesk web: this session is for another profile.\n");
        return 403;
}

/*
 * Spend the ticket web_authorize() found good: 0 with *ret_session, the new
 * session, whose cookie is in ret_cookie; or an HTTP status, having
 * answered (another request spent it in between).
 */
int web_redeem(struct web_conn *c, const char *profile, struct web_session **ret_session, char *ret_cookie) {
        struct web_server *s = c->server;
        char token[TICKET_TOKEN_LEN + 2];
        struct ticket t;
        int r;

        r = http_query_get(c->req.query, "ticket", token, sizeof token);
        r = r <= 0 ? -EINVAL : ticket_redeem_at(s->ticket_dirfd, token, profile, realtime_usec(), &t);
        explicit_bzero(token, sizeof token);
        if (r < 0) {
                log_info("Refused a ticket for %s: used in the meantime.", profile);
                web_refuse(c, 403, WS_CLOSE_BAD_TICKET, "unknown or already used",
                           "botdesk web: this ticket is unknown or already used. Ask for a new one "
                           "(botdesk web ticket %s --viewer ID).\n", profile);
                return 403;
        }
        *ret_session = web_session_new(s, &t, ret_cookie);
        if (!*ret_session) {
                web_respond_text(c, 503, NULL, "botdesk web: too many sessions.\n");
                return 503;
        }
        log_info("Ticket redeemed for %s.", profile);
        return 0;
}

bool web_need_auth(struct web_conn *c, struct web_session *session, const char *profile) {
        if (session)
                return false;
        web_refuse(c, 401, WS_CLOSE_BAD_TICKET, "no ticket", "botdesk web: open this page through a ticket "
               "(botdesk web ticket %s --viewer ID prints its URL).\n", profile);
        return true;
}

/* web_origin_check() with the profile's [web] origin, when its desktop runs (else nothing is served anyway). */
bool web_origin_ok_for(struct web_conn *c, const char *profile, bool by_cookie) {
        struct web_profile *p = web_profile_get(c->server, profile, NULL);
        enum web_origin_verdict v = web_origin_check(c->server, &c->req, p ? p->origin : NULL, by_cookie);
        const char *origin = http_header(&c->req, "Origin");

        web_profile_put(p);
        if (v == WEB_ORIGIN_OK)
                return true;
        if (v == WEB_ORIGIN_MISSING) {
                web_refuse(c, 403, WS_CLOSE_FORBIDDEN, "no origin", "botdesk web: a request without an Origin is refused.\n");
                return false;
        }
        log_info("Refused a request from the origin %s.", origin);
        web_refuse(c, 403, WS_CLOSE_FORBIDDEN, "another origin",
               "botdesk web: a request from another origin (%s) is refused.\n", origin);
        return false;
}
