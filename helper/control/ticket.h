/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

#include "lease.h"
#include "profile.h"

/*
 * Single-use tickets that let one viewer open one profile's screen through
 * `botdesk web`. A ticket is 256 random bits from getrandom(), shown once
 * as 64 hex digits; what is stored is only its SHA-256, as the NAME of a
 * 0600 file in RUNTIME_BASE/web-tickets/ (0700), holding
 *
 *   PROFILE=<name>
 *   VIEWER=<id>
 *   EXPIRES=<CLOCK_REALTIME usec>
 *
 * so `botdesk web ticket` and the server share them with no IPC, and a
 * reader of the directory learns nothing it can present. Redeeming unlinks
 * the file: unlink succeeds exactly once, so a ticket cannot be used twice
 * even by two servers racing. A ticket that is expired or names another
 * profile is consumed all the same, and refused.
 */

#define TICKET_DIR "web-tickets"
#define TICKET_TOKEN_LEN 64             /* hex digits of 32 random bytes */
#define TICKET_TTL_DEFAULT 30           /* seconds */
#define TICKET_TTL_MAX (24 * 3600)

/* What a ticket opens; each kind is unknown (-ENOENT) at every other kind's door. */
enum ticket_kind {
        TICKET_VIEWER,                  /* no KIND=: a viewer's single-use ticket */
        TICKET_MCP,                     /* KIND=mcp: an MCP client's bearer token (below) */
        TICKET_DEVTOOLS,                /* KIND=devtools: one DevTools connection to the desktop's browser (below) */
        TICKET_EMBED,                   /* KIND=embed: one watch-only stream of a viewer in another site's page (below) */
};

struct ticket {
        char profile[PROFILE_NAME_MAX + 1];
        char viewer[LEASE_VIEWER_MAX + 1];
        unsigned long long expires;     /* CLOCK_REALTIME usec */
        enum ticket_kind kind;
};

/* Open (creating when asked) the private ticket dir below runtime_base. */
int ticket_dir_open(const char *runtime_base, bool create, int *ret_fd);

/* Lower-case hex SHA-256 of s (nettle), 64 digits and a NUL. */
void ticket_sha256_hex(const char *s, char ret[static 65]);

/* Whether s has the form of a token (exactly 64 lower-case hex digits). */
bool ticket_token_valid(const char *s);

/*
 * Mint a ticket for viewer on profile, valid ttl seconds (1..TICKET_TTL_MAX).
 * Writes the token (shown only here) to ret_token. Also removes expired tickets.
 */
int ticket_mint_at(int dirfd, const char *profile, const char *viewer, unsigned ttl,
                   char ret_token[static TICKET_TOKEN_LEN + 1]);

/*
 * Redeem token for profile at time now (CLOCK_REALTIME usec): 0 and *ret
 * filled when it was valid and unused; -ENOENT unknown or already used,
 * -ETIME expired, -EXDEV for another profile (kept: it is still good at its
 * own profile), -EINVAL not a token, -EBADMSG a damaged file (expired and
 * damaged ones are removed: never accepted later).
 */
int ticket_redeem_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                     struct ticket *ret);

/*
 * What ticket_redeem_at() would answer, without spending the ticket: a
 * request is judged whole (method, origin, profile) before its ticket is
 * redeemed, so that a refused request leaves the ticket to a good one.
 */
int ticket_check_at(int dirfd, const char *token, const char *profile, unsigned long long now, struct ticket *ret);

/*
 * Bearer tokens for an MCP client of `botdesk web` (POST /PROFILE/mcp with
 * "Authorization: Bearer TOKEN"): stored as tickets are, with KIND=mcp and
 * VIEWER=TICKET_BEARER_VIEWER, but used again and again until they expire
 * or are revoked. A token is never a ticket nor a ticket a token: each is
 * unknown (-ENOENT) at the other's door, and left as it was.
 */
#define TICKET_BEARER_VIEWER "mcp-agent"
#define TICKET_BEARER_TTL_DEFAULT 3600          /* seconds */

int ticket_mint_bearer_at(int dirfd, const char *profile, unsigned ttl, char ret_token[static TICKET_TOKEN_LEN + 1]);
/* As ticket_check_at() for a bearer token: 0, -ENOENT, -ETIME, -EXDEV (another profile's), -EINVAL, -EBADMSG. */
int ticket_bearer_check_at(int dirfd, const char *token, const char *profile, unsigned long long now, struct ticket *ret);
/* Revoke a bearer token (or a ticket): 0, -ENOENT when there is none, -EINVAL not a token. */
int ticket_revoke_at(int dirfd, const char *token);

/*
 * DevTools tickets: single-use as a viewer's, for one WebSocket connection
 * to the desktop's browser (GET /PROFILE/devtools/browser?ticket=T of
 * botdesk web), stored with KIND=devtools and VIEWER=TICKET_DEVTOOLS_VIEWER.
 */
#define TICKET_DEVTOOLS_VIEWER "devtools"
#define TICKET_DEVTOOLS_TTL_DEFAULT 60          /* seconds */

int ticket_mint_devtools_at(int dirfd, const char *profile, unsigned ttl, char ret_token[static TICKET_TOKEN_LEN + 1]);
/* As ticket_redeem_at() and ticket_check_at(), for a DevTools ticket. */
int ticket_redeem_devtools_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                              struct ticket *ret);
int ticket_check_devtools_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                             struct ticket *ret);

/*
 * Embed tickets: for a viewer that another site's page embeds (an MCP
 * App's frame, whose origin is the host's): beneath
 * /PROFILE/embed/TICKET/ of botdesk web they open noVNC's files (checked,
 * not spent) and one stream, watch-only, from any origin (spent by it).
 * Stored with KIND=embed and the viewer's id.
 */
#define TICKET_EMBED_VIEWER "mcp-app"
#define TICKET_EMBED_TTL_DEFAULT 120            /* seconds: a host renders the frame after the tool's answer */

int ticket_mint_embed_at(int dirfd, const char *profile, const char *viewer, unsigned ttl,
                         char ret_token[static TICKET_TOKEN_LEN + 1]);
/* As ticket_redeem_at() and ticket_check_at(), for an embed ticket. */
int ticket_redeem_embed_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                           struct ticket *ret);
int ticket_check_embed_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                          struct ticket *ret);

/* What a refused ticket or token is, in a few words for its holder: the error of ticket_redeem_at() and the
 * checks ("expired", "for another profile", ...). */
const char *ticket_problem(int error);

/* Remove tickets expired at now; returns how many. */
int ticket_sweep_at(int dirfd, unsigned long long now);
