/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web [--listen unix:PATH|HOST:PORT] [--novnc DIR]
 * botdesk web ticket PROFILE --viewer ID [--ttl S]
 * botdesk web token PROFILE [--for mcp] [--ttl S]
 * botdesk web revoke PROFILE < TOKEN
 *
 * The server is a verb of the CLI rather than a binary of its own: it is
 * the same thin main over the same library as `botdesk rfb`, and one
 * program on the PATH is what an operator and a unit file name.
 */
#include <sys/stat.h>

#include "cli.h"
#include "verbs.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "spawn.h"
#include "ticket.h"
#include "util.h"
#include "web-server.h"
#include "web.h"
#include "web-mint.h"

/* A bearer token for an MCP client of botdesk web (ticket.h), printed alone on stdout. */
static int verb_web_token(const char *profile, const char *kind, const char *ttl_s) {
        _cleanup_free_ char *base = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        char token[TICKET_TOKEN_LEN + 1];
        unsigned ttl;
        int r;

        if (kind && !streq(kind, "mcp")) {
                log_error("Invalid --for %s: a token is for mcp (POST /PROFILE/mcp).", kind);
                return EXIT_USAGE;
        }
        r = web_mint_begin(NULL, profile, false, ttl_s, TICKET_BEARER_TTL_DEFAULT, &ttl, &base, &dirfd);
        if (r != EXIT_OK)
                return r;
        r = ticket_mint_bearer_at(dirfd, profile, ttl, token);
        if (r < 0) {
                log_error_errno(r, "Cannot store a token in %s/" TICKET_DIR ": %m", base);
                return EXIT_FAILED;
        }
        puts(token);
        explicit_bzero(token, sizeof token);
        return EXIT_OK;
}

/* Revoke the token read from stdin (never in argv, where ps shows it). */
static int verb_web_revoke(const char *profile) {
        _cleanup_free_ char *base = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        char token[TICKET_TOKEN_LEN + 3];
        ssize_t n;
        int r;

        n = read_small(STDIN_FILENO, token, sizeof token - 1);
        if (n <= 0 && n != -EFBIG) {
                log_error("botdesk web revoke reads the token on standard input.");
                return EXIT_USAGE;
        }
        /* Longer than a token and its newline: no token, said below. */
        token[n > 0 ? (size_t) n : 0] = 0;
        token[strcspn(token, "\r\n")] = 0;
        r = web_open_ticket_dir(&base, &dirfd);
        if (r != EXIT_OK)
                return r;
        r = ticket_revoke_at(dirfd, token);
        explicit_bzero(token, sizeof token);
        if (r == -EINVAL) {
                log_error("That is not a token: 64 hex digits, as botdesk web token printed it.");
                return EXIT_USAGE;
        }
        if (r == -ENOENT) {
                log_error("No such token (revoked already, or expired).");
                return EXIT_FAILED;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot revoke the token: %m");
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

static int verb_web_ticket(const struct bd_config *config, const char *profile, const char *viewer, const char *ttl_s) {
        _cleanup_free_ char *base = NULL, *url = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        char token[TICKET_TOKEN_LEN + 1];
        unsigned ttl;
        int r;

        if (!viewer || !lease_viewer_valid(viewer)) {
                log_error("A ticket needs --viewer ID: 1-%d bytes without control characters.", LEASE_VIEWER_MAX);
                return EXIT_USAGE;
        }
        /* A ticket lives seconds, to open the desktop now: for one that is not running, all it could open is a
         * stream closed at once (4001), and the caller learns why only from the viewer's page. */
        r = web_mint_begin(config, profile, true, ttl_s, TICKET_TTL_DEFAULT, &ttl, &base, &dirfd);
        if (r != EXIT_OK)
                return r;
        r = ticket_mint_at(dirfd, profile, viewer, ttl, token);
        if (r < 0) {
                log_error_errno(r, "Cannot store a ticket in %s/" TICKET_DIR ": %m", base);
                return EXIT_FAILED;
        }

        /* A server on TCP says where it listens; behind a gateway the path is what it needs. */
        url = web_url_read(base);
        printf("%s/%s/?ticket=%s\n", url ?: "", profile, token);
        explicit_bzero(token, sizeof token);
        return EXIT_OK;
}

/* Its words come from main.c's parser (verb-table.c: its row), which has
 * printed the usage for --help and for a word it does not take. */
extern char **environ;

/* A child of this very CLI for a placed profile: the prefix it runs is the
 * user's own tool (ssh keys, the container engine's settings), so ours. */
static int web_spawn_child(char *const *argv, int stdio_fd, int out_fd, int err_fd, pid_t *ret_pid) {
        struct spawn_opts o = SPAWN_OPTS_INIT;

        o.argv = argv;
        o.envp = environ;
        o.stdin_fd = stdio_fd;
        o.stdout_fd = stdio_fd >= 0 ? stdio_fd : out_fd;
        o.stderr_fd = err_fd;
        o.pdeathsig = true;
        return spawn(&o, ret_pid);
}

int verb_web(const struct cli_args *a) {
        const char *listen = a->listen, *novnc = a->novnc, *viewer = a->viewer, *ttl = a->ttl, *ping_s = a->ping;
        unsigned long long ping = WEB_PING_DEFAULT;

        /* ticket, token and revoke are of a PROFILE (main.c's parser judged it, when given). */
        if ((streq_ptr(a->operand, "ticket") || streq_ptr(a->operand, "token") || streq_ptr(a->operand, "revoke")) &&
            !a->action) {
                log_error("Missing PROFILE for web %s; see botdesk web --help.", a->operand);
                return EXIT_USAGE;
        }
        if (streq_ptr(a->operand, "ticket")) {
                if (listen || novnc || ping_s || a->command) {
                        log_error("Usage: botdesk web ticket PROFILE --viewer ID [--ttl S]");
                        return EXIT_USAGE;
                }
                if (a->wait_for) {
                        log_error("--for belongs to botdesk web token.");
                        return EXIT_USAGE;
                }
                return verb_web_ticket(a->config, a->action, viewer, ttl);
        }
        if (streq_ptr(a->operand, "token") || streq_ptr(a->operand, "revoke")) {
                if (listen || novnc || ping_s || a->command || viewer) {
                        log_error("Usage: botdesk web token PROFILE [--for mcp] [--ttl S], botdesk web revoke PROFILE < TOKEN");
                        return EXIT_USAGE;
                }
                if (streq(a->operand, "revoke")) {
                        if (ttl || a->wait_for) {
                                log_error("botdesk web revoke takes no option: the token comes on standard input.");
                                return EXIT_USAGE;
                        }
                        return verb_web_revoke(a->action);
                }
                return verb_web_token(a->action, a->wait_for, ttl);
        }
        if (a->operand) {
                log_error("Unknown argument \"%s\" for botdesk web.", a->operand);
                return EXIT_USAGE;
        }
        if (viewer || ttl || a->wait_for) {
                log_error("--viewer, --ttl and --for belong to botdesk web ticket and token.");
                return EXIT_USAGE;
        }
        if (listen && startswith(listen, "unix:") && listen[5] != '/') {
                log_error("--listen unix:PATH needs an absolute path.");
                return EXIT_USAGE;
        }
        if (ping_s && (parse_uint(ping_s, 3600, &ping) < 0 || ping == 0)) {
                log_error("Invalid --ping %s: use 1-3600 seconds.", ping_s);
                return EXIT_USAGE;
        }
        if (novnc && novnc[0] != '/') {
                log_error("--novnc needs an absolute path.");
                return EXIT_USAGE;
        }
        /* The server said why it could not start. */
        return web_server_run(listen, novnc, (unsigned) ping, web_spawn_child) < 0 ? EXIT_FAILED : EXIT_OK;
}
