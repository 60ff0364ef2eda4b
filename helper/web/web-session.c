/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sessions of botdesk web: what a redeemed ticket becomes, so that the page,
 * its files, its buttons and noVNC's reconnects need no second ticket. Held
 * only in the server's memory: a restart ends them all, and nothing on disk
 * can be presented. The cookie is 256 random bits; only its SHA-256 is kept.
 *
 * Over TCP a session also has a scope, 128 random bits in its pages' path
 * (/PROFILE/SCOPE/), which is the cookie's Path. Browsers send cookies to
 * every port of a host, so without it one navigation of the viewer's
 * browser to another local user's listener on 127.0.0.1 would hand that
 * user the cookie; a Path that only this server and this browser know
 * keeps the cookie to this listener's pages.
 */
#include <sys/random.h>

#include "util.h"
#include "web.h"

/* n_bytes random bytes as 2 * n_bytes hex digits and a NUL; 0 or -errno. */
static int hex_random(char *out, size_t n_bytes) {
        uint8_t rnd[32];

        if (n_bytes > sizeof rnd)
                return -EINVAL;
        if (getrandom(rnd, n_bytes, 0) != (ssize_t) n_bytes)
                return -EIO;
        hex_encode(rnd, n_bytes, out);
        explicit_bzero(rnd, sizeof rnd);
        return 0;
}

bool web_scope_valid(const char *text) {
        for (size_t i = 0; i < WEB_SCOPE_LEN; i++)
                if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
                        return false;
        return true;
}

static bool session_live(const struct web_session *x, unsigned long long now) {
        return x->used && (x->streams > 0 || now - x->last_used < WEB_SESSION_IDLE_USEC);
}

struct web_session *web_session_new(struct web_server *s, const struct ticket *t, char ret_cookie[static 65]) {
        unsigned long long now = now_usec();
        struct web_session *slot = NULL, *oldest = NULL;
        char scope[WEB_SCOPE_LEN + 1];

        for (size_t i = 0; i < WEB_SESSIONS_MAX; i++) {
                struct web_session *x = &s->sessions[i];

                if (!session_live(x, now)) {
                        slot = x;
                        break;
                }
                if (x->streams == 0 && (!oldest || x->last_used < oldest->last_used))
                        oldest = x;
        }
        /* Full: the least recently used session without a stream makes room. */
        if (!slot)
                slot = oldest;
        if (!slot)
                return NULL;
        if (hex_random(ret_cookie, 32) < 0 || hex_random(scope, WEB_SCOPE_LEN / 2) < 0)
                return NULL;

        *slot = (struct web_session) { .used = true, .last_used = now };
        memcpy(slot->scope, scope, sizeof slot->scope);
        ticket_sha256_hex(ret_cookie, slot->hash);
        /* A ticket's fields have the session's sizes. */
        if (strscpy(slot->profile, sizeof slot->profile, t->profile) < 0 ||
            strscpy(slot->viewer, sizeof slot->viewer, t->viewer) < 0) {
                *slot = (struct web_session) {};
                return NULL;
        }
        return slot;
}

struct web_session *web_session_find(struct web_server *s, const char *cookie, const char *profile, const char *scope) {
        unsigned long long now = now_usec();
        char hash[65];

        if (!ticket_token_valid(cookie))
                return NULL;
        ticket_sha256_hex(cookie, hash);
        for (size_t i = 0; i < WEB_SESSIONS_MAX; i++) {
                struct web_session *x = &s->sessions[i];

                if (session_live(x, now) && streq(x->hash, hash) && (!profile || streq(x->profile, profile)) &&
                    (!scope || streq(x->scope, scope))) {
                        x->last_used = now;
                        return x;
                }
        }
        return NULL;
}
