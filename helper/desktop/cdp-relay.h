/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "cdp-message.h"

/*
 * The Chrome DevTools Protocol between up to CDP_CLIENTS_MAX socket clients
 * and the browser's one --remote-debugging-pipe, without any I/O: bytes in,
 * bytes out.
 *
 * Both sides speak the pipe's framing: each message is one JSON text
 * followed by a NUL byte. Messages are forwarded whole, never re-encoded;
 * the relay edits only top-level members, textually, in place.
 *
 * Each client gets its own view of the browser. When it connects the relay
 * sends {"id": N, "method": "Target.attachToBrowserTarget"} on the pipe and
 * queues the client's bytes (at most queue_max) until the answer names the
 * client's browser session. From then on:
 *
 *   - A command without a top-level "sessionId" gets the client's browser
 *     session inserted, so the client's "root connection" is a browser
 *     session of its own and not the pipe's, which all clients would share
 *     (Target.setAutoAttach, Target.setDiscoverTargets and the events they
 *     produce are per session in Chromium). A command that names a session
 *     must name one of the client's: its browser session or a child session
 *     it owns, else the relay answers it at once with CDP's error -32001
 *     and it never reaches the browser.
 *   - The command's top-level "id" is replaced by the relay's own number and
 *     the answer gets the client's id back (and loses the sessionId the
 *     relay inserted). The relay's numbers never repeat, so an answer to a
 *     client that has gone matches nothing and is dropped instead of
 *     reaching another client under an id it reused.
 *   - Events are routed by their top-level "sessionId": one on a client's
 *     browser session reaches that client without it (an event of its root
 *     connection), one on a child session reaches the child's owner as is.
 *     Events of the pipe's own session (no sessionId) are nobody's: dropped.
 *   - A client owns a child session when Target.attachedToTarget arrives on
 *     a session it owns (params.sessionId), or when the answer to its
 *     Target.attachToTarget (or Target.attachToBrowserTarget) carries
 *     result.sessionId; Target.detachedFromTarget forgets it. At most CDP_SESSIONS_MAX sessions a client: past that the
 *     client is failed (its events could not be routed).
 *   - A client may make a page its root connection instead of its browser
 *     session, as a DevTools client connected to a page's own WebSocket
 *     (/devtools/page/ID) has it: its first command
 *     {"id": N, "method": "botdesk.attachRoot", "params": {"targetId": T}}
 *     (T of Target.getTargets: letters and digits, at most 64) attaches
 *     the relay to T (flatten) and, once attached, detaches its browser
 *     session: from then on its commands without a sessionId go to the
 *     page, and the page's events and answers reach it without one. It
 *     gets no answer; what it sends meanwhile waits, as before its
 *     browser session. A target id that is not one, or a target that
 *     cannot be attached, fails the client (-EPROTO, from
 *     cdp_relay_from_client() or in its error); the command anywhere but
 *     first is refused (-32000).
 *   - Commands the relay cannot route safely are answered at once with an
 *     error and never reach the browser: a message that is not a JSON
 *     object, one without an integer "id" (the browser's answer to it could
 *     not be told apart from another client's), one whose top-level keys
 *     are written with escapes (the browser decodes them: "\u0069d" is an
 *     id the relay cannot see), one with more than CDP_PENDING_MAX commands
 *     of the client unanswered.
 *
 * When a client goes, its browser session is detached
 * (Target.detachFromTarget, whose answer is dropped) and its sessions and
 * pending commands are forgotten: late answers are dropped.
 *
 * The fence (cdp_relay_fence()): while a human holds control of the
 * desktop, the agent must not drive the browser the human may be using.
 * Every client message is then answered at once with CDP's error
 * {"id": N, "error": {"code": -32000, "message": "human_has_control"}}
 * (with the command's sessionId, for clients that route answers by
 * session) and never reaches the browser; the commands in flight when the
 * fence goes up are answered the same way, and their results, when they
 * come, match nothing and are dropped; the browser's events are not passed
 * on (sessions are still tracked). The browser itself runs on, untouched.
 */

/* A single message larger than this is refused: the client is dropped, a
 * browser message is discarded. Screenshots of big pages stay well below. */
#define CDP_MESSAGE_MAX (256U * 1024 * 1024)
/* Clients served at once; cdp_relay_client_open() refuses one more. */
#define CDP_CLIENTS_MAX 8
/* Sessions one client may own, its browser session included. */
#define CDP_SESSIONS_MAX 256
/* Commands of one client the browser has not answered yet. */
#define CDP_PENDING_MAX 4096
/* What a client may send before its browser session exists (the attach
 * takes one round trip; a client connecting sends a handful of commands). */
#define CDP_QUEUE_MAX (4U * 1024 * 1024)

/* A relay buffer's cap, only the arithmetic's: what a buffer holds is bounded by the relay's own rules
 * (message_max, queue_max) and the launcher's backlogs, which drop a peer well before. */
#define CDP_BUF_MAX (SIZE_MAX / 2)

/* The fence's word, in its answers and in the refusal of a connection. */
#define CDP_FENCE_MESSAGE "human_has_control"

#define CDP_CLIENT_ID_MAX 24
/* A session id as written in JSON, quotes included (Chromium's are 32 hex digits). */
#define CDP_SESSION_ID_MAX 72

enum cdp_pending_kind {
        CDP_PENDING_COMMAND,            /* a client's command */
        CDP_PENDING_ATTACH,             /* the relay's attachToBrowserTarget for a client */
        CDP_PENDING_ATTACH_ORPHAN,      /* the same for a client that left before the answer */
        CDP_PENDING_DETACH,             /* the relay's detachFromTarget for a client that left */
};

struct cdp_pending {
        uint64_t relay_id;
        enum cdp_pending_kind kind;
        unsigned client;                        /* its slot, for COMMAND and ATTACH */
        bool session_inserted;                  /* the relay added the sessionId: the answer loses it */
        bool attach;                            /* Target.attachToTarget: its result.sessionId is the client's */
        bool root;                              /* ATTACH of botdesk.attachRoot: the session becomes its root */
        char client_id[CDP_CLIENT_ID_MAX];      /* the client's id, as it wrote it */
        char session_id[CDP_SESSION_ID_MAX];    /* its "sessionId" member, as written (quoted), or "" */
};

struct cdp_client {
        bool open;
        bool attached;           /* its root session exists; before, its bytes are queued */
        bool used;               /* it has sent a command (botdesk.attachRoot must come first) */
        int error;               /* set while reading the browser: the caller must drop the client */
        struct buffer from_client;      /* partial (or queued) messages */
        size_t from_client_scanned;     /* bytes of it known to hold no NUL (a partial message) */
        struct buffer to_client;        /* whole messages, framed */
        char (*sessions)[CDP_SESSION_ID_MAX];   /* [0] its browser session, then child sessions (quoted) */
        size_t n_sessions, cap_sessions;
        size_t n_pending;        /* its COMMANDs in the relay's pending list */
};

struct cdp_relay {
        struct cdp_client clients[CDP_CLIENTS_MAX];
        struct buffer from_browser;     /* partial messages */
        size_t from_browser_scanned;    /* bytes of it known to hold no NUL */
        struct buffer to_browser;       /* whole messages, framed */
        struct cdp_pending *pending;
        size_t n_pending, cap_pending;
        uint64_t next_id;
        bool skip_browser;       /* discarding an oversized browser message up to its NUL */
        bool fenced;             /* a human holds control: cdp_relay_fence() */
        size_t message_max;      /* the cap of one message: CDP_MESSAGE_MAX (tests lower it) */
        size_t queue_max;        /* the cap of a client's queue before its session: CDP_QUEUE_MAX */
        /* counters, for the log and the tests */
        uint64_t dropped_answers, dropped_events, fenced_messages, refused_messages;
};

void cdp_relay_init(struct cdp_relay *r);
void cdp_relay_done(struct cdp_relay *r);

/*
 * A client connected: its slot (0..CDP_CLIENTS_MAX-1), with empty buffers
 * and the attach of its browser session on its way to the browser.
 * -EUSERS: CDP_CLIENTS_MAX clients are attached; -ENOMEM.
 */
int cdp_relay_client_open(struct cdp_relay *r);
/* The client in slot went away: its browser session is detached, its
 * partial input, unsent output, sessions and pending commands are
 * forgotten (their answers will be dropped). Accepts a closed slot. */
void cdp_relay_client_gone(struct cdp_relay *r, unsigned slot);

/*
 * Raise (fenced) or lower the fence. Raising it answers the commands in
 * flight, and those queued before their client's session exists, with the
 * fence's error. Returns 0; a client whose answers could not be queued
 * (-ENOMEM) has its error set and must be dropped.
 */
int cdp_relay_fence(struct cdp_relay *r, bool fenced);

/* Bytes the client in slot sent. -EMSGSIZE: a message over message_max;
 * -ENOBUFS: more than queue_max queued before its session exists (drop
 * the client, in both cases); -ENOMEM. */
int cdp_relay_from_client(struct cdp_relay *r, unsigned slot, const void *data, size_t size);
/* Bytes the browser wrote on its pipe. A client that must be dropped has
 * its error set (clients[slot].error: -ENOBUFS past CDP_SESSIONS_MAX, -EPROTO
 * when its browser session was refused, -ENOMEM). -EMSGSIZE: a message over
 * message_max was discarded; which client waits for it cannot be told, so
 * drop them all; -ENOMEM. */
int cdp_relay_from_browser(struct cdp_relay *r, const void *data, size_t size);
