/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sessions of botdesk web: what a redeemed ticket becomes, so that the page,
 * its files, its buttons and noVNC's reconnects need no second ticket. Held
 * only in the server's memory: a restart ends them all, and nothing on disk
 * can be presented. The cookie is 256 random bits; only its SHA-256 is kept.
 */
#include <sys/random.h>

#include "util.h"
#include "web.h"

static bool session_live(const struct web_session *x, unsigned long long now) {
        return x->used && (x->streams > 0 || now - x->last_used < WEB_SESSION_IDLE_USEC);
}

struct web_session *web_session_new(struct web_server *s, const struct ticket *t, char ret_cookie[static 65]) {
        static const char hex[] = "0123456789abcdef";
        unsigned long long now = now_usec();
        struct web_session *slot = NULL, *oldest = NULL;
        uint8_t rnd[32];

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
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t) sizeof rnd)
                return NULL;
        for (size_t i = 0; i < sizeof rnd; i++) {
                ret_cookie[2 * i] = hex[rnd[i] >> 4];
                ret_cookie[2 * i + 1] = hex[rnd[i] & 15];
        }
        ret_cookie[64] = 0;
        explicit_bzero(rnd, sizeof rnd);

        *slot = (struct web_session) { .used = true, .last_used = now };
        ticket_sha256_hex(ret_cookie, slot->hash);
        strcpy(slot->profile, t->profile);
        strcpy(slot->viewer, t->viewer);
        return slot;
}

struct web_session *web_session_find(struct web_server *s, const char *cookie, const char *profile) {
        unsigned long long now = now_usec();
        char hash[65];

        if (!ticket_token_valid(cookie))
                return NULL;
        ticket_sha256_hex(cookie, hash);
        for (size_t i = 0; i < WEB_SESSIONS_MAX; i++) {
                struct web_session *x = &s->sessions[i];

                if (session_live(x, now) && streq(x->hash, hash) && streq(x->profile, profile)) {
                        x->last_used = now;
                        return x;
                }
        }
        return NULL;
}
