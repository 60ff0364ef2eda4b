/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>

#include "cdp-relay.h"
#include "util.h"

/* Chromium reads a command's id into an int: the relay's numbers stay in
 * 1..INT32_MAX and wrap there (two billion commands on one browser). */
#define RELAY_ID_MAX 2147483647ULL

/* ---- buffers ----------------------------------------------------------------------------------- */

size_t cdp_buf_len(const struct cdp_buf *b) {
        return b->end - b->start;
}

int cdp_buf_append(struct cdp_buf *b, const void *data, size_t size) {
        if (size == 0)
                return 0;
        if (b->cap - b->end < size && b->start > 0) {
                memmove(b->data, b->data + b->start, b->end - b->start);
                b->end -= b->start;
                b->start = 0;
        }
        if (b->cap - b->end < size) {
                size_t want = b->cap ? b->cap : 4096;
                char *p;

                while (want - b->end < size) {
                        if (want > SIZE_MAX / 2)
                                return -ENOMEM;
                        want *= 2;
                }
                p = realloc(b->data, want);
                if (!p)
                        return -ENOMEM;
                b->data = p;
                b->cap = want;
        }
        memcpy(b->data + b->end, data, size);
        b->end += size;
        return 0;
}

void cdp_buf_consume(struct cdp_buf *b, size_t size) {
        b->start += size;
        if (b->start >= b->end)
                b->start = b->end = b->scanned = 0;
}

void cdp_buf_done(struct cdp_buf *b) {
        free(b->data);
        *b = (struct cdp_buf) {};
}

/* ---- the top-level id of a JSON object --------------------------------------------------------- */

#define BAD SIZE_MAX

static size_t skip_ws(const char *s, size_t i, size_t n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
                i++;
        return i;
}

/* s[i] is the opening quote: the index after the closing one. */
static size_t skip_string(const char *s, size_t i, size_t n, bool *ret_escaped) {
        bool escaped = false;

        for (i++; i < n; i++) {
                if (s[i] == '\\') {
                        escaped = true;
                        i++;
                } else if (s[i] == '"') {
                        if (ret_escaped)
                                *ret_escaped = escaped;
                        return i + 1;
                }
        }
        return BAD;
}

/* Any value, leniently: the browser validates; the relay only needs to know
 * where a value ends, which brackets and strings decide. */
static size_t skip_value(const char *s, size_t i, size_t n) {
        size_t depth = 0;

        if (i >= n)
                return BAD;
        if (s[i] == '"')
                return skip_string(s, i, n, NULL);
        if (s[i] == '{' || s[i] == '[') {
                for (; i < n; i++) {
                        if (s[i] == '"') {
                                i = skip_string(s, i, n, NULL);
                                if (i == BAD)
                                        return BAD;
                                i--;
                        } else if (s[i] == '{' || s[i] == '[')
                                depth++;
                        else if (s[i] == '}' || s[i] == ']') {
                                if (--depth == 0)
                                        return i + 1;
                        }
                }
                return BAD;
        }
        {
                size_t j = i;

                while (j < n && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' &&
                       s[j] != '\n' && s[j] != '\r')
                        j++;
                return j == i ? BAD : j;
        }
}

static bool integer_literal(const char *s, size_t size) {
        size_t i = 0;

        if (size > 0 && s[0] == '-')
                i++;
        if (i == size || size - i > 19)
                return false;
        for (; i < size; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

int cdp_message_member(const char *s, size_t n, const char *name, size_t *ret_start, size_t *ret_end) {
        size_t i = skip_ws(s, 0, n), found_start = 0, found_end = 0, name_len = strlen(name);
        unsigned found = 0;

        if (i >= n || s[i] != '{')
                return 0;
        i = skip_ws(s, i + 1, n);
        if (i < n && s[i] == '}')
                return 0;
        for (;;) {
                size_t key, key_end, v, v_end;
                bool escaped = false;

                if (i >= n || s[i] != '"')
                        return -EBADMSG;
                key = i + 1;
                key_end = skip_string(s, i, n, &escaped);
                if (key_end == BAD)
                        return -EBADMSG;
                i = skip_ws(s, key_end, n);
                if (i >= n || s[i] != ':')
                        return -EBADMSG;
                v = skip_ws(s, i + 1, n);
                v_end = skip_value(s, v, n);
                if (v_end == BAD)
                        return -EBADMSG;
                /* An escaped spelling of the key is not recognised: for
                 * "id", its answer then matches nothing and is dropped,
                 * which hurts only the client that wrote it. */
                if (!escaped && key_end - 1 - key == name_len && memcmp(s + key, name, name_len) == 0) {
                        found++;
                        found_start = v;
                        found_end = v_end;
                }
                i = skip_ws(s, v_end, n);
                if (i < n && s[i] == ',') {
                        i = skip_ws(s, i + 1, n);
                        continue;
                }
                if (i < n && s[i] == '}')
                        break;
                return -EBADMSG;
        }
        if (skip_ws(s, i + 1, n) != n)
                return -EBADMSG;
        if (found != 1)
                return 0;
        *ret_start = found_start;
        *ret_end = found_end;
        return 1;
}

int cdp_message_id(const char *s, size_t n, size_t *ret_start, size_t *ret_end) {
        size_t start, end;
        int k = cdp_message_member(s, n, "id", &start, &end);

        if (k <= 0)
                return k;
        if (!integer_literal(s + start, end - start))
                return 0;
        *ret_start = start;
        *ret_end = end;
        return 1;
}

/* ---- the relay --------------------------------------------------------------------------------- */

void cdp_relay_init(struct cdp_relay *r) {
        *r = (struct cdp_relay) { .next_id = 1, .message_max = CDP_MESSAGE_MAX };
}

void cdp_relay_done(struct cdp_relay *r) {
        cdp_buf_done(&r->from_client);
        cdp_buf_done(&r->from_browser);
        cdp_buf_done(&r->to_client);
        cdp_buf_done(&r->to_browser);
        free(r->pending);
        cdp_relay_init(r);
}

void cdp_relay_client_open(struct cdp_relay *r) {
        cdp_relay_client_gone(r);
        r->have_client = true;
}

void cdp_relay_client_gone(struct cdp_relay *r) {
        r->from_client.start = r->from_client.end = r->from_client.scanned = 0;
        r->to_client.start = r->to_client.end = 0;
        r->n_pending = 0;
        r->have_client = false;
}

/* Append msg[0..size) with [start, end) replaced by id, and the NUL. */
static int put_with_id(struct cdp_buf *out, const char *msg, size_t size, size_t start, size_t end, const char *id) {
        int r;

        if ((r = cdp_buf_append(out, msg, start)) < 0 || (r = cdp_buf_append(out, id, strlen(id))) < 0 ||
            (r = cdp_buf_append(out, msg + end, size - end)) < 0)
                return r;
        return cdp_buf_append(out, "", 1);
}

/* The fence's answer to the command with id and session (either may be ""). */
static int put_fenced(struct cdp_buf *out, const char *id, const char *session) {
        _cleanup_free_ char *m = strdup_printf("{%s%s%s\"error\": {\"code\": -32000, \"message\": \"" CDP_FENCE_MESSAGE
                                               "\"}%s%s}",
                                               *id ? "\"id\": " : "", id, *id ? ", " : "",
                                               *session ? ", \"sessionId\": " : "", session);
        int k;

        if (!m)
                return -ENOMEM;
        k = cdp_buf_append(out, m, strlen(m));
        return k < 0 ? k : cdp_buf_append(out, "", 1);
}

/* The command's sessionId member, as written, when it is a plain string that fits. */
static void session_of(const char *msg, size_t size, char ret[static CDP_SESSION_ID_MAX]) {
        size_t start, end;

        ret[0] = 0;
        if (cdp_message_member(msg, size, "sessionId", &start, &end) <= 0 || end - start < 2 ||
            end - start >= CDP_SESSION_ID_MAX || msg[start] != '"' ||
            memchr(msg + start, '\\', end - start))
                return;
        memcpy(ret, msg + start, end - start);
        ret[end - start] = 0;
}

int cdp_relay_fence(struct cdp_relay *r, bool fenced) {
        int k;

        if (fenced && !r->fenced && r->have_client)
                /* In flight: answered now, their results dropped when they come. */
                for (size_t i = 0; i < r->n_pending; i++) {
                        k = put_fenced(&r->to_client, r->pending[i].client_id, r->pending[i].session_id);
                        if (k < 0)
                                return k;
                        r->fenced_messages++;
                }
        if (fenced)
                r->n_pending = 0;
        r->fenced = fenced;
        return 0;
}

static int client_fenced(struct cdp_relay *r, const char *msg, size_t size) {
        char id[CDP_CLIENT_ID_MAX] = "", session[CDP_SESSION_ID_MAX];
        size_t start, end;

        if (cdp_message_id(msg, size, &start, &end) > 0 && end - start < sizeof id) {
                memcpy(id, msg + start, end - start);
                id[end - start] = 0;
        }
        session_of(msg, size, session);
        r->fenced_messages++;
        return put_fenced(&r->to_client, id, session);
}

static int client_message(struct cdp_relay *r, const char *msg, size_t size) {
        struct cdp_pending *p;
        char relay_id[24];
        size_t start, end;

        if (r->fenced)
                return client_fenced(r, msg, size);

        /* No usable id: the browser answers it with an error, or not at all. */
        if (cdp_message_id(msg, size, &start, &end) <= 0 || end - start >= sizeof p->client_id) {
                int k = cdp_buf_append(&r->to_browser, msg, size);
                return k < 0 ? k : cdp_buf_append(&r->to_browser, "", 1);
        }
        if (ARRAY_GROW(r->pending, r->n_pending, r->cap_pending, 64) < 0)
                return -ENOMEM;
        p = &r->pending[r->n_pending++];
        p->relay_id = r->next_id;
        memcpy(p->client_id, msg + start, end - start);
        p->client_id[end - start] = 0;
        session_of(msg, size, p->session_id);
        r->next_id = r->next_id == RELAY_ID_MAX ? 1 : r->next_id + 1;
        snprintf(relay_id, sizeof relay_id, "%llu", (unsigned long long) p->relay_id);
        return put_with_id(&r->to_browser, msg, size, start, end, relay_id);
}

static int browser_message(struct cdp_relay *r, const char *msg, size_t size) {
        unsigned long long id = 0;
        size_t start, end;

        if (cdp_message_id(msg, size, &start, &end) <= 0) {
                /* Nothing of the browser for the agent while a human has it. */
                if (!r->have_client || r->fenced) {
                        r->dropped_events++;
                        return 0;
                }
                int k = cdp_buf_append(&r->to_client, msg, size);
                return k < 0 ? k : cdp_buf_append(&r->to_client, "", 1);
        }
        for (size_t i = start; i < end; i++) {
                if (msg[i] < '0' || msg[i] > '9' || id > RELAY_ID_MAX) {
                        id = 0;
                        break;
                }
                id = id * 10 + (unsigned) (msg[i] - '0');
        }
        for (size_t i = 0; i < r->n_pending; i++) {
                struct cdp_pending p = r->pending[i];

                if (p.relay_id != id)
                        continue;
                memmove(r->pending + i, r->pending + i + 1, (r->n_pending - i - 1) * sizeof *r->pending);
                r->n_pending--;
                return put_with_id(&r->to_client, msg, size, start, end, p.client_id);
        }
        r->dropped_answers++;
        return 0;
}

/* Cut complete messages off in, hand each to handle. */
static int split(struct cdp_relay *r, struct cdp_buf *in, int (*handle)(struct cdp_relay *, const char *, size_t)) {
        for (;;) {
                char *msg = in->data + in->start, *nul;
                size_t len;
                int k;

                if (cdp_buf_len(in) == 0)
                        return 0;
                /* Only what came since the last look: a large message
                 * arriving in many reads is scanned once, not once a read. */
                nul = memchr(msg + in->scanned, 0, cdp_buf_len(in) - in->scanned);
                if (!nul) {
                        in->scanned = cdp_buf_len(in);
                        return cdp_buf_len(in) > r->message_max ? -EMSGSIZE : 0;
                }
                len = (size_t) (nul - msg);
                in->scanned = 0;
                k = handle(r, msg, len);
                if (k < 0)
                        return k;
                cdp_buf_consume(in, len + 1);
        }
}

int cdp_relay_from_client(struct cdp_relay *r, const void *data, size_t size) {
        int k = cdp_buf_append(&r->from_client, data, size);

        return k < 0 ? k : split(r, &r->from_client, client_message);
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
        k = cdp_buf_append(&r->from_browser, d, size);
        if (k >= 0)
                k = split(r, &r->from_browser, browser_message);
        if (k == -EMSGSIZE) {
                /* Whoever waits for this message never gets it: the client
                 * must go (the caller sees dropped_answers grow). */
                r->from_browser.start = r->from_browser.end = r->from_browser.scanned = 0;
                r->skip_browser = true;
                r->dropped_answers++;
                if (r->have_client)
                        return -EMSGSIZE;
                return 0;
        }
        return k;
}
