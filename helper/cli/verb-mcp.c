/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk mcp PROFILE: an MCP server on stdin/stdout for one desktop. The
 * protocol is mcp/'s, the tools mcp-tools.c's rows. stdout carries the
 * protocol alone: every log line goes to stderr.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "cli.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp-http.h"
#include "mcp-tasks.h"
#include "mcp-tools.h"
#include "server.h"
#include "util.h"
#include "verbs.h"

/*
 * PROFILE --listen stdio: HTTP on the connection that is stdin (a stream
 * socket), as inetd hands it; or, when stdin is a SOCK_SEQPACKET socket, on
 * every connection handed over through it, until its other end closes (how
 * botdesk web keeps one server per desktop for tasks and subscriptions).
 */
static int serve_http_stdio(const struct cli_args *args) {
        struct mcp_server server;
        struct agent a = {};
        struct stat st;
        int type = 0, r;
        socklen_t len = sizeof type;

        if (fstat(STDIN_FILENO, &st) < 0 || !S_ISSOCK(st.st_mode) ||
            getsockopt(STDIN_FILENO, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
            (type != SOCK_STREAM && type != SOCK_SEQPACKET)) {
                log_error("--listen stdio needs a connected stream socket as standard input (or a SOCK_SEQPACKET one "
                          "that hands connections over).");
                return EXIT_USAGE;
        }
        r = agent_serve_open(&a, args->operand, args->start);
        if (r != EXIT_OK)
                return r;
        mcp_desktop_server_init(&server, &a);
        r = mcp_http_serve(&server, &a, type == SOCK_SEQPACKET ? MCP_HTTP_HANDED : MCP_HTTP_ONE, STDIN_FILENO);
        agent_close(&a);
        return r;
}

/* PROFILE --listen unix:PATH: the same server over HTTP; the socket goes with it. */
static int serve_http(const struct cli_args *args) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct mcp_server server;
        struct agent a = {};
        int r;

        if (streq(args->listen, "stdio"))
                return serve_http_stdio(args);
        fd = mcp_http_listen(args->listen, &path);
        if (fd < 0)
                return fd == -EINVAL ? EXIT_USAGE : EXIT_FAILED;
        r = agent_serve_open(&a, args->operand, args->start);
        if (r == EXIT_OK) {
                mcp_desktop_server_init(&server, &a);
                log_info("MCP over HTTP for desktop %s on unix:%s (POST /mcp).", args->operand, path);
                r = mcp_http_serve(&server, &a, MCP_HTTP_LISTEN, fd);
                agent_close(&a);
        }
        (void) unlink(path);
        return r;
}

/* PROFILE [--start] [--listen unix:PATH], read by main.c's parser (verb-table.c: its row and usage). */
int verb_mcp(const struct cli_args *args) {
        struct jsonrpc_reader rd = {};
        struct mcp_server server;
        struct agent a = {};
        const char *profile = args->operand;
        int r;

        if (args->listen)
                return serve_http(args);
        r = agent_serve_stdin(&a, &rd, profile, args->start);
        if (r != EXIT_OK)
                return r;
        mcp_desktop_server_init(&server, &a);
        r = mcp_serve_stdio(&a, &rd, &server);
        jsonrpc_reader_done(&rd);
        agent_close(&a);
        return r;
}
