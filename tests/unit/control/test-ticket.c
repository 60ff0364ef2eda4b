/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tickets of botdesk web: minted with 256 random bits, stored only as the
 * SHA-256 of the token in a 0600 file of a private directory, redeemed once,
 * refused when expired, for another profile, malformed or damaged.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "tap.h"
#include "ticket.h"
#include "util.h"

static int count_files(int dirfd) {
        _cleanup_closedir_ DIR *d = fdopendir(openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        struct dirent *de;
        int n = 0;

        while (d && (de = readdir(d)))
                n += de->d_name[0] != '.';
        return n;
}

int main(void) {
        char base[] = "/tmp/botdesk-test-ticket.XXXXXX", t1[TICKET_TOKEN_LEN + 1], t2[TICKET_TOKEN_LEN + 1], name[65];
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_free_ char *stored = NULL;
        struct ticket t;
        struct stat st;
        unsigned long long now = realtime_usec();

        if (!mkdtemp(base))
                return 1;
        TAP_EQ_INT(ticket_dir_open(base, false, &dirfd), -ENOENT, "without create, a missing ticket dir is an error");
        TAP_EQ_INT(ticket_dir_open(base, true, &dirfd), 0, "the ticket dir is created");
        tap_ok(fstat(dirfd, &st) == 0 && (st.st_mode & 0777) == 0700, "the ticket dir is 0700");

        TAP_EQ_INT(ticket_mint_at(dirfd, "work", "alice", 60, t1), 0, "a ticket is minted");
        tap_ok(ticket_token_valid(t1), "its token is 64 hex digits");
        TAP_EQ_INT(ticket_mint_at(dirfd, "work", "alice", 60, t2), 0, "a second ticket is minted");
        tap_ok(strcmp(t1, t2) != 0, "two tickets differ");

        ticket_sha256_hex(t1, name);
        tap_ok(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
               "the ticket is a 0600 file named by the SHA-256 of its token");
        tap_ok(read_full_file_at(dirfd, name, &stored, NULL, 4096) == 0 && !strstr(stored, t1),
               "the file does not hold the token itself");
        tap_ok(stored && strstr(stored, "VIEWER=alice\n") && strstr(stored, "PROFILE=work\n"), "it binds profile and viewer");

        TAP_EQ_INT(ticket_redeem_at(dirfd, t1, "work", now, &t), 0, "the ticket is redeemed");
        TAP_EQ_STR(t.viewer, "alice", "for its viewer");
        TAP_EQ_STR(t.profile, "work", "on its profile");
        TAP_EQ_INT(ticket_redeem_at(dirfd, t1, "work", now, &t), -ENOENT, "a second use of the same ticket is refused");
        TAP_EQ_INT(ticket_redeem_at(dirfd, t2, "other", now, &t), -EXDEV, "a ticket for another profile is refused");
        TAP_EQ_INT(ticket_check_at(dirfd, t2, "work", now, &t), 0, "checking it spends nothing");
        TAP_EQ_INT(ticket_check_at(dirfd, t2, "work", now, &t), 0, "not even twice");
        TAP_EQ_STR(t.viewer, "alice", "a check says whose it is");
        TAP_EQ_INT(ticket_redeem_at(dirfd, t2, "work", now, &t), 0,
                   "a ticket refused at another profile still opens its own");
        TAP_EQ_INT(ticket_check_at(dirfd, t2, "work", now, &t), -ENOENT, "and a check after that finds it spent");

        TAP_EQ_INT(ticket_mint_at(dirfd, "work", "bob", 1, t1), 0, "a ticket of 1 s is minted");
        TAP_EQ_INT(ticket_redeem_at(dirfd, t1, "work", realtime_usec() + 2000000ULL, &t), -ETIME,
                   "it is refused once expired");
        TAP_EQ_INT(ticket_redeem_at(dirfd, "abc", "work", now, &t), -EINVAL, "a malformed token is refused");
        TAP_EQ_INT(ticket_redeem_at(dirfd, "0000000000000000000000000000000000000000000000000000000000000000", "work", now, &t),
                   -ENOENT, "an unknown token is refused");
        TAP_EQ_INT(ticket_mint_at(dirfd, "work", "", 60, t1), -EINVAL, "an empty viewer is refused");
        TAP_EQ_INT(ticket_mint_at(dirfd, "../x", "v", 60, t1), -EINVAL, "an invalid profile is refused");
        TAP_EQ_INT(ticket_mint_at(dirfd, "work", "v", 0, t1), -EINVAL, "a TTL of 0 is refused");

        /* A damaged file is consumed and refused. */
        TAP_EQ_INT(ticket_mint_at(dirfd, "work", "carol", 60, t1), 0, "a ticket to damage is minted");
        ticket_sha256_hex(t1, name);
        tap_ok(write_file_atomic_at(dirfd, name, "PROFILE=work\n", 13, 0600) == 0, "its file is cut short");
        TAP_EQ_INT(ticket_redeem_at(dirfd, t1, "work", now, &t), -EBADMSG, "a damaged ticket is refused");
        TAP_EQ_INT(ticket_redeem_at(dirfd, t1, "work", now, &t), -ENOENT, "and is gone");

        TAP_EQ_INT(ticket_mint_at(dirfd, "work", "dave", 1, t1), 0, "a short ticket to sweep is minted");
        TAP_EQ_INT(ticket_mint_at(dirfd, "work", "erin", 600, t2), 0, "a long one to keep is minted");
        TAP_EQ_INT(ticket_sweep_at(dirfd, realtime_usec() + 5000000ULL), 1, "the sweep removes only the expired one");
        TAP_EQ_INT(count_files(dirfd), 1, "one ticket is left");

        {
                _cleanup_close_ int fd2 = -EBADF;
                _cleanup_free_ char *dir = strdup_printf("%s/" TICKET_DIR, base);
                tap_ok(dir && chmod(dir, 0755) == 0, "the ticket dir is opened up to others");
                TAP_EQ_INT(ticket_dir_open(base, true, &fd2), -EPERM, "then it is refused");
                (void) chmod(dir, 0700);
        }

        /* Bearer tokens (KIND=mcp): used again and again, never at a ticket's door, revocable. */
        {
                char b[TICKET_TOKEN_LEN + 1], v[TICKET_TOKEN_LEN + 1];

                TAP_EQ_INT(ticket_mint_bearer_at(dirfd, "work", 60, b), 0, "a bearer token is minted");
                TAP_EQ_INT(ticket_bearer_check_at(dirfd, b, "work", now, &t), 0, "it passes at its profile");
                TAP_EQ_INT(ticket_bearer_check_at(dirfd, b, "work", now, &t), 0, "... again: it is not spent");
                tap_ok(t.kind == TICKET_MCP && streq(t.viewer, TICKET_BEARER_VIEWER), "... and says it is a bearer token");
                TAP_EQ_INT(ticket_bearer_check_at(dirfd, b, "other", now, &t), -EXDEV, "another profile's door refuses it");
                TAP_EQ_INT(ticket_redeem_at(dirfd, b, "work", now, &t), -ENOENT, "as a viewer's ticket it is unknown");
                TAP_EQ_INT(ticket_bearer_check_at(dirfd, b, "work", now, &t), 0, "... and left as it was");
                TAP_EQ_INT(ticket_bearer_check_at(dirfd, b, "work", now + 61 * 1000000ULL, &t), -ETIME,
                           "past its time it is refused");
                TAP_EQ_INT(ticket_mint_at(dirfd, "work", "bob", 60, v), 0, "a viewer's ticket is minted beside it");
                TAP_EQ_INT(ticket_bearer_check_at(dirfd, v, "work", now, &t), -ENOENT, "the ticket is no bearer token");
                TAP_EQ_INT(ticket_check_at(dirfd, v, "work", now, &t), 0, "... and still a good ticket");
                TAP_EQ_INT(ticket_revoke_at(dirfd, b), 0, "the bearer token is revoked");
                TAP_EQ_INT(ticket_bearer_check_at(dirfd, b, "work", now, &t), -ENOENT, "... and then unknown");
                TAP_EQ_INT(ticket_revoke_at(dirfd, b), -ENOENT, "revoking it twice says there is none");
                TAP_EQ_INT(ticket_revoke_at(dirfd, "nope"), -EINVAL, "a word that is no token is refused");
        }

        /* DevTools tickets (KIND=devtools): single-use, and only at their own door. */
        {
                char d[TICKET_TOKEN_LEN + 1], v[TICKET_TOKEN_LEN + 1], b[TICKET_TOKEN_LEN + 1];

                TAP_EQ_INT(ticket_mint_devtools_at(dirfd, "work", 60, d), 0, "a DevTools ticket is minted");
                TAP_EQ_INT(ticket_check_devtools_at(dirfd, d, "work", now, &t), 0, "checking it spends nothing");
                tap_ok(t.kind == TICKET_DEVTOOLS && streq(t.viewer, TICKET_DEVTOOLS_VIEWER),
                       "... and says it is a DevTools ticket");
                TAP_EQ_INT(ticket_redeem_at(dirfd, d, "work", now, &t), -ENOENT, "as a viewer's ticket it is unknown");
                TAP_EQ_INT(ticket_bearer_check_at(dirfd, d, "work", now, &t), -ENOENT, "as a bearer token too");
                TAP_EQ_INT(ticket_redeem_devtools_at(dirfd, d, "other", now, &t), -EXDEV,
                           "another profile's door refuses it, and keeps it");
                TAP_EQ_INT(ticket_redeem_devtools_at(dirfd, d, "work", now, &t), 0, "it is redeemed at its profile");
                TAP_EQ_INT(ticket_redeem_devtools_at(dirfd, d, "work", now, &t), -ENOENT, "... once");
                TAP_EQ_INT(ticket_mint_at(dirfd, "work", "bob", 60, v), 0, "a viewer's ticket is minted");
                TAP_EQ_INT(ticket_mint_bearer_at(dirfd, "work", 60, b), 0, "and a bearer token");
                TAP_EQ_INT(ticket_redeem_devtools_at(dirfd, v, "work", now, &t), -ENOENT,
                           "neither opens the DevTools door");
                TAP_EQ_INT(ticket_redeem_devtools_at(dirfd, b, "work", now, &t), -ENOENT, "... the token neither");
                TAP_EQ_INT(ticket_check_at(dirfd, v, "work", now, &t), 0, "and the viewer's ticket is still good");
                TAP_EQ_INT(ticket_mint_devtools_at(dirfd, "work", 1, d), 0, "a DevTools ticket of 1 s is minted");
                TAP_EQ_INT(ticket_redeem_devtools_at(dirfd, d, "work", now + 2000000ULL, &t), -ETIME,
                           "past its time it is refused");
        }

        /* Embed tickets (KIND=embed): checked as often as asked, spent once, and only at their own door. */
        {
                char e[TICKET_TOKEN_LEN + 1], v[TICKET_TOKEN_LEN + 1], d[TICKET_TOKEN_LEN + 1];

                TAP_EQ_INT(ticket_mint_embed_at(dirfd, "work", TICKET_EMBED_VIEWER, 60, e), 0, "an embed ticket is minted");
                TAP_EQ_INT(ticket_check_embed_at(dirfd, e, "work", now, &t), 0, "checking it spends nothing");
                TAP_EQ_INT(ticket_check_embed_at(dirfd, e, "work", now, &t), 0, "... however often (noVNC's modules)");
                tap_ok(t.kind == TICKET_EMBED && streq(t.viewer, TICKET_EMBED_VIEWER), "... and says it is an embed ticket");
                TAP_EQ_INT(ticket_check_at(dirfd, e, "work", now, &t), -ENOENT, "as a viewer's ticket it is unknown");
                TAP_EQ_INT(ticket_check_devtools_at(dirfd, e, "work", now, &t), -ENOENT, "as a DevTools ticket too");
                TAP_EQ_INT(ticket_redeem_embed_at(dirfd, e, "other", now, &t), -EXDEV,
                           "another profile's door refuses it, and keeps it");
                TAP_EQ_INT(ticket_redeem_embed_at(dirfd, e, "work", now, &t), 0, "it is redeemed at its profile");
                TAP_EQ_INT(ticket_check_embed_at(dirfd, e, "work", now, &t), -ENOENT, "... and is then unknown");
                TAP_EQ_INT(ticket_mint_at(dirfd, "work", "bob", 60, v), 0, "a viewer's ticket is minted");
                TAP_EQ_INT(ticket_mint_devtools_at(dirfd, "work", 60, d), 0, "and a DevTools ticket");
                TAP_EQ_INT(ticket_check_embed_at(dirfd, v, "work", now, &t), -ENOENT, "neither opens the embed door");
                TAP_EQ_INT(ticket_check_embed_at(dirfd, d, "work", now, &t), -ENOENT, "... the DevTools ticket neither");
                TAP_EQ_INT(ticket_mint_embed_at(dirfd, "work", TICKET_EMBED_VIEWER, 1, e), 0, "an embed ticket of 1 s is minted");
                TAP_EQ_INT(ticket_check_embed_at(dirfd, e, "work", now + 2000000ULL, &t), -ETIME, "past its time it is refused");
        }

        /* Clean up the scratch dir: only files this test made. */
        (void) ticket_sweep_at(dirfd, ~0ULL);
        {
                _cleanup_free_ char *dir = strdup_printf("%s/" TICKET_DIR, base);
                if (dir)
                        (void) rmdir(dir);
                (void) rmdir(base);
        }
        return tap_done();
}
