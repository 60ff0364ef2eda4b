/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: GET /PROFILE/devtools/TICKET/json/list, the browser's
 * targets as Chromium's own /json/list has them (id, type, title, url,
 * description, webSocketDebuggerUrl), for a DevTools client that picks a
 * page and connects to it alone (chrome-remote-interface and the like).
 * The list is asked of the browser itself, through its launcher's socket
 * as any client (Target.getTargets), so the fence holds: under a human the
 * answer is 409 human_has_control. Each page's URL is
 * ws://HOST/PROFILE/devtools/page/ID?ticket=T with a single-use ticket of
 * its own (web-devtools.c makes that connection the page's).
 */
#include <errno.h>
#include <sys/socket.h>

#include "json.h"
#include "log.h"
#include "ticket.h"
#include "util.h"
#include "web.h"
#include "web-conn.h"

#define LIST_ANSWER_MAX (4u << 20)              /* a few hundred targets' titles and URLs */
#define LIST_TIMEOUT_USEC (15ULL * 1000000ULL)  /* the browser answers in milliseconds */

static const char list_request[] = "{\"id\":1,\"method\":\"Target.getTargets\"}";

struct web_targets {
        struct web_conn *conn;
        char profile[PROFILE_NAME_MAX + 1];
        char *host;
        int fd;                         /* the launcher's socket, or botdesk cdp's (placed) */
        sd_event_source *io;
        char *in;
        size_t n;
};

void web_targets_free(struct web_targets *t) {
        if (!t)
                return;
        sd_event_source_disable_unref(t->io);
        safe_close(t->fd);
        free(t->host);
        free(t->in);
        free(t);
}

/* One target of the answer as Chromium lists it; pages with a URL of their own (a fresh ticket). */
static int target_write(struct web_targets *t, struct json *j, const struct json_value *info) {
        const char *id = json_member_string(info, "targetId"), *type = json_member_string(info, "type");
        char token[TICKET_TOKEN_LEN + 1];
        _cleanup_free_ char *url = NULL;
        int r;

        if (!id || !type || !web_devtools_target_valid(id) || streq(type, "browser"))
                return 0;
        r = ticket_mint_devtools_at(t->conn->server->ticket_dirfd, t->profile, TICKET_DEVTOOLS_TTL_DEFAULT, token);
        if (r < 0)
                return r;
        url = strdup_printf("ws://%s/%s/devtools/page/%s?ticket=%s", t->host, t->profile, id, token);
        explicit_bzero(token, sizeof token);
        if (!url)
                return -ENOMEM;
        json_object_begin(j);
        json_kv_string(j, "description", "");
        json_kv_string(j, "id", id);
        json_kv_string(j, "title", json_member_string(info, "title") ?: "");
        json_kv_string(j, "type", type);
        json_kv_string(j, "url", json_member_string(info, "url") ?: "");
        json_kv_string(j, "webSocketDebuggerUrl", url);
        json_object_end(j);
        explicit_bzero(url, strlen(url));
        return 0;
}

/* The browser's first message, whole: the list, or why not. */
static void answer(struct web_targets *t, const char *msg, size_t size) {
        _cleanup_(json_value_freep) struct json_value *v = NULL;
        struct web_conn *c = t->conn;
        const struct json_value *infos, *error;
        _cleanup_free_ char *body = NULL;
        struct json_mem m;
        long long id = 0;
        int r = 0;

        if (json_parse(msg, size, &v) < 0 || v->type != JSON_OBJECT) {
                web_respond_text(c, 502, NULL, "botdesk web: the browser's answer is not CDP.\n");
                return;
        }
        error = json_get(v, "error");
        if (error) {
                const char *why = json_member_string(error, "message") ?: "an error";

                /* The launcher's fence refuses the connection in those words (cdp-relay.h). */
                web_respond_text(c, streq(why, "human_has_control") ? 409 : 502, NULL,
                                 "botdesk web: the browser refused the list: %s\n", why);
                return;
        }
        infos = json_get(json_get(v, "result"), "targetInfos");
        if (!json_member_int(v, "id", 1, 1, &id) || !infos || infos->type != JSON_ARRAY) {
                web_respond_text(c, 502, NULL, "botdesk web: the browser's answer has no targets.\n");
                return;
        }
        if (json_mem_open(&m) < 0) {
                web_respond_text(c, 500, NULL, "botdesk web: out of memory.\n");
                return;
        }
        json_array_begin(&m.j);
        for (size_t i = 0; i < infos->n && r >= 0; i++)
                r = target_write(t, &m.j, &infos->items[i]);
        json_array_end(&m.j);
        if (json_mem_close(&m, &body) < 0 || r < 0) {
                if (r < 0)
                        log_warning_errno(r, "Cannot list the DevTools targets of %s: %m", t->profile);
                web_respond_text(c, 500, NULL, "botdesk web: cannot store the pages' tickets.\n");
                return;
        }
        web_respond(c, 200, "application/json; charset=utf-8", "Cache-Control: no-store\r\n", body, strlen(body), -1);
        explicit_bzero(body, strlen(body));
}

static int on_io(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_targets *t = userdata;
        struct web_conn *c = t->conn;

        for (;;) {
                char buf[16384], *grown, *nul;
                ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return 0;
                if (n <= 0) {
                        c->targets = NULL;
                        web_targets_free(t);
                        web_respond_text(c, 502, NULL, "botdesk web: the browser closed the connection unanswered.\n");
                        return 0;
                }
                if (t->n + (size_t) n > LIST_ANSWER_MAX || !(grown = realloc(t->in, t->n + (size_t) n + 1))) {
                        c->targets = NULL;
                        web_targets_free(t);
                        web_respond_text(c, 502, NULL, "botdesk web: the browser's list is too long.\n");
                        return 0;
                }
                t->in = grown;
                memcpy(t->in + t->n, buf, (size_t) n);
                t->n += (size_t) n;
                nul = memchr(t->in, 0, t->n);
                if (nul) {
                        /* Its first message is the answer: no command but ours went, so no event comes before. */
                        c->targets = NULL;
                        t->io = sd_event_source_disable_unref(t->io);
                        answer(t, t->in, (size_t) (nul - t->in));
                        web_targets_free(t);
                        return 0;
                }
        }
}

/* botdesk cdp ended there before the list came: its end on the socket says the rest. */
static void on_cdp_done(int status, const char *out, const char *err, void *userdata) {
        struct web_conn *c = userdata;

        c->job = NULL;
}

void web_devtools_list(struct web_conn *c, const char *profile, const char *host) {
        struct web_targets *t;
        int cdp = -EBADF, r;

        if (web_devtools_browser(c, profile, &cdp) < 0)
                return;
        t = calloc(1, sizeof *t);
        if (!t || !(t->host = strdup(host))) {
                free(t);
                safe_close(cdp);
                web_respond_text(c, 500, NULL, "botdesk web: out of memory.\n");
                return;
        }
        t->conn = c;
        t->fd = cdp;
        (void) strscpy(t->profile, sizeof t->profile, profile);
        c->targets = t;
        r = 0;
        if (t->fd < 0) {
                /* Placed: its browser is there, and botdesk cdp through the prefix reaches it. */
                char *args[] = { (char *) "cdp", t->profile, NULL };

                r = web_job_start_stream(c->server, args, on_cdp_done, c, &c->job, &t->fd);
        }
        /* A fresh socket has room for one short command. One the launcher refused at once (its fence) is
         * closed already: what it said first is read below all the same. */
        if (r >= 0)
                (void) send(t->fd, list_request, sizeof list_request, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r >= 0)
                r = sd_event_add_io(c->server->event, &t->io, t->fd, EPOLLIN, on_io, t);
        if (r < 0) {
                c->targets = NULL;
                web_targets_free(t);
                web_respond_text(c, 503, NULL, "botdesk web: cannot reach %s's browser now.\n", profile);
                return;
        }
        (void) sd_event_source_set_time_relative(c->timer, LIST_TIMEOUT_USEC);
}
