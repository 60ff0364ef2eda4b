/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>

#include "cdp-relay.h"
#include "util.h"

/* Chromium reads a command's id into an int: the relay's numbers stay in
 * 1..INT32_MAX and wrap there (two billion commands on one browser). */
#define RELAY_ID_MAX 2147483647ULL

/* ---- the relay --------------------------------------------------------------------------------- */

/* The relay's own commands in flight for clients that have gone (an attach
 * whose session must be detached, a detach): past this many, one is sent
 * without being remembered, and its answer is dropped as unknown. Only a
 * browser that stopped answering gets there. */
#define OWN_PENDING_MAX 64

/* A span of a message to replace with text (an insertion when empty). */
struct edit {
        size_t start, end;
        const char *text;
};

static void client_init(struct cdp_client *c) {
        *c = (struct cdp_client) {
                .from_client = BUFFER_GROWABLE(CDP_BUF_MAX),
                .to_client = BUFFER_GROWABLE(CDP_BUF_MAX),
        };
}

void cdp_relay_init(struct cdp_relay *r) {
        *r = (struct cdp_relay) {
                .from_browser = BUFFER_GROWABLE(CDP_BUF_MAX),
                .to_browser = BUFFER_GROWABLE(CDP_BUF_MAX),
                .next_id = 1,
                .message_max = CDP_MESSAGE_MAX,
                .queue_max = CDP_QUEUE_MAX,
        };
        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++)
                client_init(&r->clients[i]);
}

static void client_reset(struct cdp_client *c) {
        buffer_done(&c->from_client);
        buffer_done(&c->to_client);
        free(c->sessions);
        client_init(c);
}

void cdp_relay_done(struct cdp_relay *r) {
        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++)
                client_reset(&r->clients[i]);
        buffer_done(&r->from_browser);
        buffer_done(&r->to_browser);
        free(r->pending);
        cdp_relay_init(r);
}

static uint64_t relay_id_next(struct cdp_relay *r) {
        uint64_t id = r->next_id;

        r->next_id = id == RELAY_ID_MAX ? 1 : id + 1;
        return id;
}

/*
 * Append msg[0..size) with the edits applied (in order, not overlapping) and
 * the NUL. On failure out is as it was: a half message would break the
 * framing of every later one.
 */
static int put_edited(struct buffer *out, const char *msg, size_t size, const struct edit *e, size_t n) {
        size_t before = buffer_len(out), at = 0;
        int k = 0;

        for (size_t i = 0; i < n && k >= 0; i++) {
                k = buffer_append(out, msg + at, e[i].start - at);
                if (k >= 0)
                        k = buffer_append(out, e[i].text, strlen(e[i].text));
                at = e[i].end;
        }
        if (k >= 0)
                k = buffer_append(out, msg + at, size - at);
        if (k >= 0)
                k = buffer_append(out, "", 1);
        if (k < 0)
                /* Appending only ever moves the data to the front, whole. */
                out->end = out->start + before;
        return k;
}

static int put(struct buffer *out, const char *msg, size_t size) {
        return put_edited(out, msg, size, NULL, 0);
}

/* The relay's own answer to a command with id and session (either may be ""). */
static int put_error(struct buffer *out, const char *id, const char *session, int code, const char *message) {
        _cleanup_free_ char *m = strdup_printf("{%s%s%s\"error\": {\"code\": %d, \"message\": \"%s\"}%s%s}",
                                               *id ? "\"id\": " : "", id, *id ? ", " : "", code, message,
                                               *session ? ", \"sessionId\": " : "", session);

        if (!m)
                return -ENOMEM;
        return put(out, m, strlen(m));
}

/* The value of key when it is a plain string that fits a session id, as written (quoted); else "". */
static void session_of_member(const char *msg, size_t size, const char *key, char ret[static CDP_SESSION_ID_MAX]) {
        size_t start, end;

        ret[0] = 0;
        if (cdp_message_member(msg, size, key, &start, &end) <= 0 || end - start < 2 ||
            end - start >= CDP_SESSION_ID_MAX || msg[start] != '"' || memchr(msg + start, '\\', end - start))
                return;
        memcpy(ret, msg + start, end - start);
        ret[end - start] = 0;
}

/* The command's sessionId member, as written. */
static void session_of(const char *msg, size_t size, char ret[static CDP_SESSION_ID_MAX]) {
        session_of_member(msg, size, "sessionId", ret);
}

/* outer.sessionId (outer: "params" of an event, "result" of an answer), as written. */
static void inner_session_of(const char *msg, size_t size, const char *outer, char ret[static CDP_SESSION_ID_MAX]) {
        size_t start, end;

        ret[0] = 0;
        if (cdp_message_member(msg, size, outer, &start, &end) > 0)
                session_of_member(msg + start, end - start, "sessionId", ret);
}

/* Whether the top-level member key is the JSON string literal (quotes included). */
static bool member_is(const char *msg, size_t size, const char *key, const char *literal) {
        size_t start, end;

        return cdp_message_member(msg, size, key, &start, &end) > 0 && end - start == strlen(literal) &&
               memcmp(msg + start, literal, end - start) == 0;
}

/* The index of session (as written, size bytes) among the client's, or -1. A bounded scan. */
static ssize_t session_index(const struct cdp_client *c, const char *session, size_t size) {
        for (size_t i = 0; i < c->n_sessions; i++)
                if (strlen(c->sessions[i]) == size && memcmp(c->sessions[i], session, size) == 0)
                        return (ssize_t) i;
        return -1;
}

/* 0, or -ENOBUFS past CDP_SESSIONS_MAX (the client must go: it could not be served), -ENOMEM. */
static int session_add(struct cdp_client *c, const char *session) {
        if (session_index(c, session, strlen(session)) >= 0)
                return 0;
        if (c->n_sessions >= CDP_SESSIONS_MAX)
                return -ENOBUFS;
        if (ARRAY_GROW(c->sessions, c->n_sessions, c->cap_sessions, 8) < 0)
                return -ENOMEM;
        memcpy(c->sessions[c->n_sessions++], session, strlen(session) + 1);
        return 0;
}

static void session_forget(struct cdp_client *c, const char *session) {
        ssize_t i = session_index(c, session, strlen(session));

        /* Its browser session stays: a client that detached it gets the browser's errors. */
        if (i <= 0)
                return;
        memmove(c->sessions + i, c->sessions + i + 1, (c->n_sessions - (size_t) i - 1) * sizeof *c->sessions);
        c->n_sessions--;
}

static struct cdp_pending *pending_add(struct cdp_relay *r, enum cdp_pending_kind kind, unsigned slot) {
        struct cdp_pending *p;

        if (ARRAY_GROW(r->pending, r->n_pending, r->cap_pending, 64) < 0)
                return NULL;
        p = &r->pending[r->n_pending++];
        *p = (struct cdp_pending) { .relay_id = relay_id_next(r), .kind = kind, .client = slot };
        return p;
}

static size_t own_pending(const struct cdp_relay *r) {
        size_t n = 0;

        for (size_t i = 0; i < r->n_pending; i++)
                n += r->pending[i].kind == CDP_PENDING_ATTACH_ORPHAN || r->pending[i].kind == CDP_PENDING_DETACH;
        return n;
}

/* Detach a browser session of a client that has gone; its answer is of no use. */
static int send_detach(struct cdp_relay *r, const char *session) {
        _cleanup_free_ char *m = NULL;
        uint64_t id;

        if (own_pending(r) < OWN_PENDING_MAX) {
                struct cdp_pending *p = pending_add(r, CDP_PENDING_DETACH, 0);
                if (!p)
                        return -ENOMEM;
                id = p->relay_id;
        } else
                id = relay_id_next(r);
        m = strdup_printf("{\"id\":%llu,\"method\":\"Target.detachFromTarget\",\"params\":{\"sessionId\":%s}}",
                          (unsigned long long) id, session);
        if (!m)
                return -ENOMEM;
        return put(&r->to_browser, m, strlen(m));
}

int cdp_relay_client_open(struct cdp_relay *r) {
        struct cdp_pending *p;
        unsigned slot;
        char m[96];
        int k;

        for (slot = 0; slot < CDP_CLIENTS_MAX && r->clients[slot].open; slot++)
                ;
        if (slot == CDP_CLIENTS_MAX)
                return -EUSERS;
        p = pending_add(r, CDP_PENDING_ATTACH, slot);
        if (!p)
                return -ENOMEM;
        /* Sent on the pipe's own session: that one is nobody's. */
        snprintf(m, sizeof m, "{\"id\":%llu,\"method\":\"Target.attachToBrowserTarget\"}",
                 (unsigned long long) p->relay_id);
        k = put(&r->to_browser, m, strlen(m));
        if (k < 0) {
                r->n_pending--;
                return k;
        }
        r->clients[slot].open = true;
        return (int) slot;
}

void cdp_relay_client_gone(struct cdp_relay *r, unsigned slot) {
        struct cdp_client *c;
        size_t j = 0, own = own_pending(r);

        if (slot >= CDP_CLIENTS_MAX || !r->clients[slot].open)
                return;
        c = &r->clients[slot];
        for (size_t i = 0; i < r->n_pending; i++) {
                struct cdp_pending *p = &r->pending[i];

                if (p->client == slot && p->kind == CDP_PENDING_COMMAND)
                        continue;       /* forgotten: its answer will be dropped */
                if (p->client == slot && p->kind == CDP_PENDING_ATTACH) {
                        /* The session is on its way: detach it when it comes. */
                        if (own >= OWN_PENDING_MAX)
                                continue;
                        p->kind = CDP_PENDING_ATTACH_ORPHAN;
                        own++;
                }
                r->pending[j++] = *p;
        }
        r->n_pending = j;
        /* Out of memory: the session stays attached, with nobody on it. */
        if (c->attached)
                (void) send_detach(r, c->sessions[0]);
        client_reset(c);
}

static int split(struct cdp_relay *r, unsigned slot, struct buffer *in, size_t *scanned,
                 int (*handle)(struct cdp_relay *, unsigned, const char *, size_t));
static int client_message(struct cdp_relay *r, unsigned slot, const char *msg, size_t size);

/* Handle the client's whole messages, unless they must wait for its session. */
static int client_split(struct cdp_relay *r, unsigned slot) {
        struct cdp_client *c = &r->clients[slot];

        if (!c->attached && !r->fenced)
                return buffer_len(&c->from_client) > r->queue_max ? -ENOBUFS : 0;
        return split(r, slot, &c->from_client, &c->from_client_scanned, client_message);
}

int cdp_relay_fence(struct cdp_relay *r, bool fenced) {
        if (fenced && !r->fenced) {
                size_t j = 0;

                /* In flight: answered now, their results dropped when they come. */
                for (size_t i = 0; i < r->n_pending; i++) {
                        struct cdp_pending *p = &r->pending[i];
                        struct cdp_client *c = &r->clients[p->client];
                        int k;

                        if (p->kind != CDP_PENDING_COMMAND) {
                                r->pending[j++] = *p;
                                continue;
                        }
                        c->n_pending--;
                        k = put_error(&c->to_client, p->client_id, p->session_id, -32000, CDP_FENCE_MESSAGE);
                        if (k < 0 && !c->error)
                                c->error = k;   /* it would wait for the answer forever */
                        r->fenced_messages++;
                }
                r->n_pending = j;
        }
        r->fenced = fenced;
        if (fenced)
                /* What waited for a session is answered now too. */
                for (unsigned slot = 0; slot < CDP_CLIENTS_MAX; slot++) {
                        struct cdp_client *c = &r->clients[slot];
                        int k;

                        if (!c->open || c->attached)
                                continue;
                        k = client_split(r, slot);
                        if (k < 0 && !c->error)
                                c->error = k;
                }
        return 0;
}

static int refuse(struct cdp_relay *r, struct cdp_client *c, const char *id, const char *session, int code,
                  const char *message) {
        r->refused_messages++;
        return put_error(&c->to_client, id, session, code, message);
}

/* botdesk.attachRoot's params.targetId into ret (unquoted): letters and digits, 1-64 of them; else -EINVAL. */
static int root_target(const char *msg, size_t size, char ret[static 65]) {
        size_t start, end, ts, te;

        if (cdp_message_member(msg, size, "params", &start, &end) <= 0 ||
            cdp_message_member(msg + start, end - start, "targetId", &ts, &te) <= 0 || te - ts < 3 || te - ts > 66)
                return -EINVAL;
        ts += start + 1;
        te += start - 1;
        if (msg[ts - 1] != '"' || msg[te] != '"')
                return -EINVAL;
        for (size_t i = ts; i < te; i++)
                if (!((msg[i] >= '0' && msg[i] <= '9') || (msg[i] >= 'A' && msg[i] <= 'Z') || (msg[i] >= 'a' && msg[i] <= 'z')))
                        return -EINVAL;
        memcpy(ret, msg + ts, te - ts);
        ret[te - ts] = 0;
        return 0;
}

/* The client's first command botdesk.attachRoot: the page attached on the pipe's own session (its
 * attachedToTarget event is nobody's), the client's next messages queued until it is. 1: stop splitting. */
static int attach_root(struct cdp_relay *r, unsigned slot, const char *msg, size_t size) {
        struct cdp_client *c = &r->clients[slot];
        struct cdp_pending *p;
        char target[65], m[192];
        int k;

        if (root_target(msg, size, target) < 0)
                return -EPROTO;        /* no page to be the root of: the client cannot be served */
        p = pending_add(r, CDP_PENDING_ATTACH, slot);
        if (!p)
                return -ENOMEM;
        p->root = true;
        snprintf(m, sizeof m, "{\"id\":%llu,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":\"%s\","
                 "\"flatten\":true}}", (unsigned long long) p->relay_id, target);
        k = put(&r->to_browser, m, strlen(m));
        if (k < 0) {
                r->n_pending--;
                return k;
        }
        c->used = true;
        c->attached = false;
        return 1;
}

static int client_message(struct cdp_relay *r, unsigned slot, const char *msg, size_t size) {
        struct cdp_client *c = &r->clients[slot];
        char id[CDP_CLIENT_ID_MAX] = "", session[CDP_SESSION_ID_MAX], relay_id[24], insert[CDP_SESSION_ID_MAX + 16];
        struct edit edits[2];
        struct cdp_member sm;
        struct cdp_pending *p;
        size_t start, end, n_edits = 0;
        bool escaped;
        int ns;

        /* What an answer of the relay's own needs: the client's id and sessionId, as written. */
        if (cdp_message_id(msg, size, &start, &end) > 0 && end - start < sizeof id) {
                memcpy(id, msg + start, end - start);
                id[end - start] = 0;
        }
        session_of(msg, size, session);

        if (r->fenced) {
                r->fenced_messages++;
                return put_error(&c->to_client, id, session, -32000, CDP_FENCE_MESSAGE);
        }

        /* The browser's answer to a message without an id of ours could not be told from another client's. */
        ns = cdp_message_scan(msg, size, "sessionId", &sm, &escaped);
        if (ns < 0)
                return refuse(r, c, "", "", -32700, "Message must be a JSON object");
        if (!*id)
                return refuse(r, c, "", session, -32600, "Message must have integer 'id' property");
        if (escaped)
                return refuse(r, c, id, session, -32600, "Message keys must be written without escapes");
        if (ns > 1)
                return refuse(r, c, id, "", -32600, "Message has more than one 'sessionId' property");
        if (ns == 1 && session_index(c, msg + sm.value, sm.value_end - sm.value) < 0)
                return refuse(r, c, id, session, -32001, "Session with given id not found for this client");
        if (c->n_pending >= CDP_PENDING_MAX)
                return refuse(r, c, id, session, -32000, "Too many commands in flight for this client");
        if (member_is(msg, size, "method", "\"botdesk.attachRoot\""))
                return c->used ? refuse(r, c, id, session, -32000, "botdesk.attachRoot must be the first command")
                               : attach_root(r, slot, msg, size);
        c->used = true;

        p = pending_add(r, CDP_PENDING_COMMAND, slot);
        if (!p)
                return -ENOMEM;
        memcpy(p->client_id, id, sizeof id);
        memcpy(p->session_id, session, sizeof session);
        p->attach = member_is(msg, size, "method", "\"Target.attachToTarget\"") ||
                    member_is(msg, size, "method", "\"Target.attachToBrowserTarget\"");
        if (ns == 0) {
                /* Right after the '{': before the id, and cut back out of the answer exactly. */
                size_t body = cdp_message_body(msg, size);

                snprintf(insert, sizeof insert, "\"sessionId\":%s,", c->sessions[0]);
                edits[n_edits++] = (struct edit) { body, body, insert };
                p->session_inserted = true;
        }
        snprintf(relay_id, sizeof relay_id, "%llu", (unsigned long long) p->relay_id);
        edits[n_edits++] = (struct edit) { start, end, relay_id };
        if (put_edited(&r->to_browser, msg, size, edits, n_edits) < 0) {
                r->n_pending--;
                return -ENOMEM;
        }
        c->n_pending++;
        return 0;
}

/* The answer to the relay's attach for the client in slot: its root session (its browser's, or with root the
 * page botdesk.attachRoot named), or its end. */
static void client_attached(struct cdp_relay *r, unsigned slot, const char *msg, size_t size, bool root) {
        struct cdp_client *c = &r->clients[slot];
        char session[CDP_SESSION_ID_MAX];
        int k;

        inner_session_of(msg, size, "result", session);
        if (!*session) {
                c->error = -EPROTO;
                return;
        }
        if (root && c->n_sessions > 0) {
                /* The page is its root now; the browser session it had goes. */
                k = send_detach(r, c->sessions[0]);
                memcpy(c->sessions[0], session, sizeof session);
        } else
                k = session_add(c, session);
        if (k < 0) {
                c->error = k;
                return;
        }
        c->attached = true;
        /* What it sent meanwhile. */
        k = client_split(r, slot);
        if (k < 0 && !c->error)
                c->error = k;
}

static int browser_answer(struct cdp_relay *r, const char *msg, size_t size, size_t start, size_t end) {
        unsigned long long id = 0;
        struct cdp_pending p = {};
        struct cdp_client *c;
        struct cdp_member sm;
        struct edit edits[2];
        size_t n_edits = 0;
        bool found = false;
        int k;

        for (size_t i = start; i < end; i++) {
                if (msg[i] < '0' || msg[i] > '9' || id > RELAY_ID_MAX) {
                        id = 0;
                        break;
                }
                id = id * 10 + (unsigned) (msg[i] - '0');
        }
        for (size_t i = 0; i < r->n_pending; i++)
                if (r->pending[i].relay_id == id) {
                        p = r->pending[i];
                        memmove(r->pending + i, r->pending + i + 1, (r->n_pending - i - 1) * sizeof *r->pending);
                        r->n_pending--;
                        found = true;
                        break;
                }
        if (!found) {
                r->dropped_answers++;
                return 0;
        }

        switch (p.kind) {
        case CDP_PENDING_ATTACH:
                client_attached(r, p.client, msg, size, p.root);
                return 0;
        case CDP_PENDING_ATTACH_ORPHAN: {
                char session[CDP_SESSION_ID_MAX];

                inner_session_of(msg, size, "result", session);
                return *session ? send_detach(r, session) : 0;
        }
        case CDP_PENDING_DETACH:
                return 0;
        case CDP_PENDING_COMMAND:
                break;
        }

        c = &r->clients[p.client];
        c->n_pending--;
        if (p.attach) {
                char session[CDP_SESSION_ID_MAX];

                inner_session_of(msg, size, "result", session);
                if (*session && (k = session_add(c, session)) < 0 && !c->error)
                        c->error = k;
        }
        /* The client sent it on its root connection: so it is answered. */
        if (p.session_inserted && cdp_message_scan(msg, size, "sessionId", &sm, NULL) == 1 &&
            session_index(c, msg + sm.value, sm.value_end - sm.value) == 0) {
                if (sm.cut < start)
                        edits[n_edits++] = (struct edit) { sm.cut, sm.cut_end, "" };
                edits[n_edits++] = (struct edit) { start, end, p.client_id };
                if (sm.cut > start)
                        edits[n_edits++] = (struct edit) { sm.cut, sm.cut_end, "" };
        } else
                edits[n_edits++] = (struct edit) { start, end, p.client_id };
        k = put_edited(&c->to_client, msg, size, edits, n_edits);
        if (k < 0 && !c->error)
                c->error = k;
        return 0;
}

static int browser_event(struct cdp_relay *r, const char *msg, size_t size) {
        char child[CDP_SESSION_ID_MAX];
        struct cdp_client *c = NULL;
        struct cdp_member sm;
        ssize_t index = -1;
        int k;

        /* Events of the pipe's own session are nobody's: no client uses it. */
        if (cdp_message_scan(msg, size, "sessionId", &sm, NULL) != 1) {
                r->dropped_events++;
                return 0;
        }
        for (unsigned slot = 0; slot < CDP_CLIENTS_MAX && index < 0; slot++) {
                c = &r->clients[slot];
                if (c->open && !c->error)
                        index = session_index(c, msg + sm.value, sm.value_end - sm.value);
        }
        if (index < 0) {
                r->dropped_events++;
                return 0;
        }

        /* Sessions are tracked under the fence too: the client is served again after it. */
        if (member_is(msg, size, "method", "\"Target.attachedToTarget\"")) {
                inner_session_of(msg, size, "params", child);
                if (*child && (k = session_add(c, child)) < 0) {
                        c->error = k;
                        return 0;
                }
        } else if (member_is(msg, size, "method", "\"Target.detachedFromTarget\"")) {
                inner_session_of(msg, size, "params", child);
                session_forget(c, child);
        }

        /* Nothing of the browser for the agent while a human has it. */
        if (r->fenced) {
                r->dropped_events++;
                return 0;
        }
        /* The client's browser session is its root connection: events there come without a sessionId. */
        if (index == 0)
                k = put_edited(&c->to_client, msg, size, &(struct edit) { sm.cut, sm.cut_end, "" }, 1);
        else
                k = put(&c->to_client, msg, size);
        if (k < 0)
                c->error = k;
        return 0;
}

static int browser_message(struct cdp_relay *r, unsigned slot, const char *msg, size_t size) {
        size_t start, end;

        (void) slot;
        if (cdp_message_id(msg, size, &start, &end) > 0)
                return browser_answer(r, msg, size, start, end);
        return browser_event(r, msg, size);
}

/* Cut complete messages off in, hand each to handle. */
static int split(struct cdp_relay *r, unsigned slot, struct buffer *in, size_t *scanned,
                 int (*handle)(struct cdp_relay *, unsigned, const char *, size_t)) {
        for (;;) {
                char *msg, *nul;
                size_t len;
                int k;

                /* Before any pointer arithmetic: a buffer never filled has no data. */
                if (buffer_len(in) == 0) {
                        *scanned = 0;
                        return 0;
                }
                msg = (char *) buffer_data(in);
                /* Only what came since the last look: a large message
                 * arriving in many reads is scanned once, not once a read. */
                nul = memchr(msg + *scanned, 0, buffer_len(in) - *scanned);
                if (!nul) {
                        *scanned = buffer_len(in);
                        return buffer_len(in) > r->message_max ? -EMSGSIZE : 0;
                }
                len = (size_t) (nul - msg);
                *scanned = 0;
                k = handle(r, slot, msg, len);
                if (k < 0)
                        return k;
                buffer_consume(in, len + 1);
                /* The rest waits (a root being attached). */
                if (k > 0)
                        return 0;
        }
}

int cdp_relay_from_client(struct cdp_relay *r, unsigned slot, const void *data, size_t size) {
        int k;

        if (slot >= CDP_CLIENTS_MAX || !r->clients[slot].open)
                return -EBADF;
        k = buffer_append(&r->clients[slot].from_client, data, size);
        return k < 0 ? k : client_split(r, slot);
}

int cdp_relay_from_browser(struct cdp_relay *r, const void *data, size_t size) {
        const char *d = data;
        int k;

        if (r->skip_browser) {
                const char *nul = memchr(d, 0, size);
                if (!nul)
                        return 0;
                r->skip_browser = false;
                size -= (size_t) (nul + 1 - d);
                d = nul + 1;
        }
        k = buffer_append(&r->from_browser, d, size);
        if (k >= 0)
                k = split(r, 0, &r->from_browser, &r->from_browser_scanned, browser_message);
        if (k == -EMSGSIZE) {
                /* Whoever waits for this message never gets it, and which
                 * client that is cannot be told without it. */
                buffer_clear(&r->from_browser);
                r->from_browser_scanned = 0;
                r->skip_browser = true;
                r->dropped_answers++;
        }
        return k;
}
