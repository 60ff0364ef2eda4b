/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The Chrome DevTools Protocol between one socket client and the browser's
 * --remote-debugging-pipe, without any I/O: bytes in, bytes out.
 *
 * Both sides speak the pipe's framing: each message is one JSON text
 * followed by a NUL byte. Messages are forwarded whole, never re-encoded,
 * with one change: the top-level "id" of a client's command is replaced by
 * the relay's own number, and the browser's answer gets the client's id
 * back. The relay's numbers never repeat, so an answer to a client that has
 * gone (one client at a time, but clients come and go on one browser
 * connection) matches nothing and is dropped instead of reaching the next
 * client under an id it reused. Events (no id) go to the current client, or
 * nowhere.
 *
 * The fence (cdp_relay_fence()): while a human holds control of the
 * desktop, the agent must not drive the browser the human may be using.
 * Every client message is then answered at once with CDP's error
 * {"id": N, "error": {"code": -32000, "message": "human_has_control"}}
 * (with the command's sessionId, for clients that route answers by
 * session) and never reaches the browser; the commands in flight when the
 * fence goes up are answered the same way, and their results, when they
 * come, match nothing and are dropped; the browser's events are not passed
 * on. The browser itself runs on, untouched.
 */

/* A single message larger than this is refused: the client is dropped, a
 * browser message is discarded. Screenshots of big pages stay well below. */
#define CDP_MESSAGE_MAX (256U * 1024 * 1024)

struct cdp_buf {
        char *data;
        size_t start, end, cap;
        size_t scanned;         /* bytes from start known to hold no NUL (a partial message) */
};

size_t cdp_buf_len(const struct cdp_buf *b);
int cdp_buf_append(struct cdp_buf *b, const void *data, size_t size);
void cdp_buf_consume(struct cdp_buf *b, size_t size);
void cdp_buf_done(struct cdp_buf *b);

/* The fence's word, in its answers and in the refusal of a connection. */
#define CDP_FENCE_MESSAGE "human_has_control"

#define CDP_CLIENT_ID_MAX 24
#define CDP_SESSION_ID_MAX 72

struct cdp_pending {
        uint64_t relay_id;
        char client_id[CDP_CLIENT_ID_MAX];      /* the client's id, as it wrote it */
        char session_id[CDP_SESSION_ID_MAX];    /* its "sessionId" member, as written (quoted), or "" */
};

struct cdp_relay {
        struct cdp_buf from_client, from_browser;   /* partial messages */
        struct cdp_buf to_client, to_browser;       /* whole messages, framed */
        struct cdp_pending *pending;
        size_t n_pending, cap_pending;
        uint64_t next_id;
        bool have_client;
        bool skip_browser;       /* discarding an oversized browser message up to its NUL */
        bool fenced;             /* a human holds control: cdp_relay_fence() */
        size_t message_max;      /* the cap of one message: CDP_MESSAGE_MAX (tests lower it) */
        /* counters, for the log and the tests */
        uint64_t dropped_answers, dropped_events, fenced_messages;
};

void cdp_relay_init(struct cdp_relay *r);
void cdp_relay_done(struct cdp_relay *r);

/* A client connected: it starts with empty buffers. */
void cdp_relay_client_open(struct cdp_relay *r);
/* The client went away: its partial input, unsent output and pending
 * commands are forgotten (their answers will be dropped). */
void cdp_relay_client_gone(struct cdp_relay *r);

/*
 * Raise (fenced) or lower the fence. Raising it answers the commands in
 * flight with the fence's error. 0, or -ENOMEM.
 */
int cdp_relay_fence(struct cdp_relay *r, bool fenced);

/* Bytes the client sent. -EMSGSIZE: a message over CDP_MESSAGE_MAX (drop
 * the client); -ENOMEM. */
int cdp_relay_from_client(struct cdp_relay *r, const void *data, size_t size);
/* Bytes the browser wrote on its pipe. -EMSGSIZE: a message over
 * CDP_MESSAGE_MAX was discarded while a client waits (drop the client);
 * -ENOMEM. */
int cdp_relay_from_browser(struct cdp_relay *r, const void *data, size_t size);

/*
 * Find the top-level "id" member of a JSON object whose value is an integer
 * literal: 1 and its value's span [*ret_start, *ret_end) within msg; 0 when
 * there is none (not an object, no such member, a non-integer value, or the
 * key twice); -EBADMSG when the text is not a well-formed object at the top
 * level. Strings are skipped with their escapes, nested values by depth.
 */
int cdp_message_id(const char *msg, size_t size, size_t *ret_start, size_t *ret_end);

/* The same for any top-level member key (given twice: none); its value may be of any type. */
int cdp_message_member(const char *msg, size_t size, const char *key, size_t *ret_start, size_t *ret_end);
