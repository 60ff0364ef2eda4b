/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <nettle/sha2.h>

#include "ticket.h"
#include "util.h"

#define TICKET_FILE_MAX 512

static const char hexdigits[] = "0123456789abcdef";

void ticket_sha256_hex(const char *s, char ret[static 65]) {
        struct sha256_ctx ctx;
        uint8_t d[SHA256_DIGEST_SIZE];

        sha256_init(&ctx);
        sha256_update(&ctx, strlen(s), (const uint8_t *) s);
        sha256_digest(&ctx, sizeof d, d);
        hex_encode(d, sizeof d, ret);
}

bool ticket_token_valid(const char *s) {
        size_t n = 0;

        for (; s[n]; n++)
                if (!strchr(hexdigits, s[n]))
                        return false;
        return n == TICKET_TOKEN_LEN;
}

int ticket_dir_open(const char *runtime_base, bool create, int *ret_fd) {
        _cleanup_close_ int base = -EBADF, fd = -EBADF;
        struct stat st;

        base = open(runtime_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (base < 0)
                return negative_errno();
        if (create && mkdirat(base, TICKET_DIR, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        fd = openat(base, TICKET_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        /* Only a directory of ours, closed to everyone else, decides anything. */
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (st.st_uid != getuid() || (st.st_mode & 077))
                return -EPERM;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int parse_ticket(char *text, struct ticket *ret) {
        bool have_p = false, have_v = false, have_e = false;
        char *line, *save = NULL;

        *ret = (struct ticket) {};
        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                const char *v;

                if ((v = startswith(line, "PROFILE="))) {
                        if (have_p || !profile_name_valid(v) || strscpy(ret->profile, sizeof ret->profile, v) < 0)
                                return -EBADMSG;
                        have_p = true;
                } else if ((v = startswith(line, "VIEWER="))) {
                        if (have_v || !lease_viewer_valid(v) || strscpy(ret->viewer, sizeof ret->viewer, v) < 0)
                                return -EBADMSG;
                        have_v = true;
                } else if ((v = startswith(line, "EXPIRES="))) {
                        if (have_e || parse_uint(v, ~0ULL, &ret->expires) < 0)
                                return -EBADMSG;
                        have_e = true;
                } else if ((v = startswith(line, "KIND="))) {
                        if (ret->kind != TICKET_VIEWER)
                                return -EBADMSG;
                        if (streq(v, "mcp"))
                                ret->kind = TICKET_MCP;
                        else if (streq(v, "devtools"))
                                ret->kind = TICKET_DEVTOOLS;
                        else if (streq(v, "embed"))
                                ret->kind = TICKET_EMBED;
                        else
                                return -EBADMSG;
                } else
                        return -EBADMSG;
        }
        return have_p && have_v && have_e ? 0 : -EBADMSG;
}

const char *ticket_problem(int error) {
        switch (error) {
        case -ENOENT:
                return "unknown or already used";
        case -ETIME:
                return "expired";
        case -EXDEV:
                return "for another profile";
        case -EINVAL:
                return "missing or malformed";
        default:
                return "unreadable";
        }
}

int ticket_sweep_at(int dirfd, unsigned long long now) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int n = 0, r;

        r = dir_open_at(dirfd, ".", &d);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                _cleanup_free_ char *text = NULL;
                struct ticket t;

                if (de->d_name[0] == '.')
                        continue;
                if (read_full_file_at(dirfd, de->d_name, &text, NULL, TICKET_FILE_MAX) < 0)
                        continue;
                /* A damaged ticket is no ticket: remove it with the expired ones. */
                if (parse_ticket(text, &t) < 0 || t.expires <= now) {
                        if (unlinkat(dirfd, de->d_name, 0) >= 0)
                                n++;
                }
        }
        return n;
}

static const char *const kind_lines[] = {
        [TICKET_VIEWER] = "",
        [TICKET_MCP] = "KIND=mcp\n",
        [TICKET_DEVTOOLS] = "KIND=devtools\n",
        [TICKET_EMBED] = "KIND=embed\n",
};

static int mint(int dirfd, const char *profile, const char *viewer, unsigned ttl, enum ticket_kind kind,
                char ret_token[static TICKET_TOKEN_LEN + 1]) {
        _cleanup_free_ char *text = NULL;
        uint8_t rnd[TICKET_TOKEN_LEN / 2];
        char token[TICKET_TOKEN_LEN + 1], name[65];
        unsigned long long now = realtime_usec();
        int r;

        if (!profile_name_valid(profile) || !lease_viewer_valid(viewer) || ttl < 1 || ttl > TICKET_TTL_MAX)
                return -EINVAL;
        (void) ticket_sweep_at(dirfd, now);

        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t) sizeof rnd)
                return errno > 0 ? -errno : -EIO;
        hex_encode(rnd, sizeof rnd, token);
        explicit_bzero(rnd, sizeof rnd);
        ticket_sha256_hex(token, name);

        text = strdup_printf("PROFILE=%s\nVIEWER=%s\nEXPIRES=%llu\n%s", profile, viewer,
                             now + (unsigned long long) ttl * 1000000ULL, kind_lines[kind]);
        if (!text)
                return -ENOMEM;
        r = write_file_atomic_at(dirfd, name, text, strlen(text), 0600);
        if (r < 0)
                return r;
        memcpy(ret_token, token, sizeof token);
        explicit_bzero(token, sizeof token);
        return 0;
}

int ticket_mint_at(int dirfd, const char *profile, const char *viewer, unsigned ttl,
                   char ret_token[static TICKET_TOKEN_LEN + 1]) {
        return mint(dirfd, profile, viewer, ttl, TICKET_VIEWER, ret_token);
}

int ticket_mint_bearer_at(int dirfd, const char *profile, unsigned ttl, char ret_token[static TICKET_TOKEN_LEN + 1]) {
        return mint(dirfd, profile, TICKET_BEARER_VIEWER, ttl, TICKET_MCP, ret_token);
}

int ticket_mint_devtools_at(int dirfd, const char *profile, unsigned ttl, char ret_token[static TICKET_TOKEN_LEN + 1]) {
        return mint(dirfd, profile, TICKET_DEVTOOLS_VIEWER, ttl, TICKET_DEVTOOLS, ret_token);
}

int ticket_mint_embed_at(int dirfd, const char *profile, const char *viewer, unsigned ttl,
                         char ret_token[static TICKET_TOKEN_LEN + 1]) {
        return mint(dirfd, profile, viewer, ttl, TICKET_EMBED, ret_token);
}

/* The ticket's file name in ret_name, and what it says in *ret, judged at now; nothing is spent. */
static int ticket_read_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                          enum ticket_kind kind, struct ticket *ret, char ret_name[static 65]) {
        _cleanup_free_ char *text = NULL;
        struct stat st;
        int r;

        if (!ticket_token_valid(token))
                return -EINVAL;
        ticket_sha256_hex(token, ret_name);

        /* Only a regular file of ours, not a link planted by someone else. */
        if (fstatat(dirfd, ret_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? -ENOENT : negative_errno();
        if (!S_ISREG(st.st_mode) || st.st_uid != getuid())
                return -EBADMSG;
        r = read_full_file_at(dirfd, ret_name, &text, NULL, TICKET_FILE_MAX);
        if (r == -ENOENT)
                return -ENOENT;
        if (r < 0)
                return -EBADMSG;
        r = parse_ticket(text, ret);
        if (r < 0)
                return r;
        /* A token at a ticket's door, or a ticket at a token's: unknown there, and untouched. */
        if (ret->kind != kind)
                return -ENOENT;
        if (ret->expires <= now)
                return -ETIME;
        if (!streq(ret->profile, profile))
                return -EXDEV;
        return 0;
}

int ticket_check_at(int dirfd, const char *token, const char *profile, unsigned long long now, struct ticket *ret) {
        char name[65];

        return ticket_read_at(dirfd, token, profile, now, TICKET_VIEWER, ret, name);
}

int ticket_check_devtools_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                             struct ticket *ret) {
        char name[65];

        return ticket_read_at(dirfd, token, profile, now, TICKET_DEVTOOLS, ret, name);
}

int ticket_check_embed_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                          struct ticket *ret) {
        char name[65];

        return ticket_read_at(dirfd, token, profile, now, TICKET_EMBED, ret, name);
}

int ticket_bearer_check_at(int dirfd, const char *token, const char *profile, unsigned long long now, struct ticket *ret) {
        char name[65];

        return ticket_read_at(dirfd, token, profile, now, TICKET_MCP, ret, name);
}

int ticket_revoke_at(int dirfd, const char *token) {
        char name[65];

        if (!ticket_token_valid(token))
                return -EINVAL;
        ticket_sha256_hex(token, name);
        return unlinkat(dirfd, name, 0) < 0 ? negative_errno() : 0;
}

static int redeem(int dirfd, const char *token, const char *profile, unsigned long long now, enum ticket_kind kind,
                  struct ticket *ret) {
        char name[65];
        int r;

        r = ticket_read_at(dirfd, token, profile, now, kind, ret, name);
        /* A ticket shown at another profile's door stays its holder's; nothing else can ever be used. */
        if (r == -EINVAL || r == -ENOENT || r == -EXDEV)
                return r;
        /* Whoever unlinks it is the one who used it. */
        if (unlinkat(dirfd, name, 0) < 0)
                return errno == ENOENT ? -ENOENT : negative_errno();
        return r;
}

int ticket_redeem_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                     struct ticket *ret) {
        return redeem(dirfd, token, profile, now, TICKET_VIEWER, ret);
}

int ticket_redeem_devtools_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                              struct ticket *ret) {
        return redeem(dirfd, token, profile, now, TICKET_DEVTOOLS, ret);
}

int ticket_redeem_embed_at(int dirfd, const char *token, const char *profile, unsigned long long now,
                           struct ticket *ret) {
        return redeem(dirfd, token, profile, now, TICKET_EMBED, ret);
}
