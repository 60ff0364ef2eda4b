/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <xcb/xcb.h>

#include "action.h"
#include "config.h"
#include "coords.h"
#include "input.h"
#include "json.h"
#include "screen-revision.h"
#include "settle.h"
#include "tools.h"

/*
 * An agent's actions on a running desktop, whatever carries them (botdesk
 * mcp, botdesk act): the lease gate of every agent action (cli.h), the
 * strokes of botdesk input (x11/input.h), the grab and encoder of
 * botdesk thumbnail (x11/thumbnail.h), the settle wait
 * (x11/settle.h), on one X connection kept for the session; or, for a
 * VNC server botdesk did not start, on its RFB session (agent-remote.h).
 */

struct remote_screen;

struct agent {
        const char *profile;
        int dirfd;                      /* the profile's runtime dir (the lease lives there) */
        xcb_connection_t *conn;         /* NULL for a remote profile */
        struct remote_screen *remote;   /* remote =: botdesk's session with the VNC server (agent-remote.h) */
        int screen;
        xcb_window_t root;
        struct input in;
        struct settle settle;
        bool have_settle;
        struct mcp_space space;         /* what the agent's coordinates mean: the last picture's */
        unsigned max_edge, max_pixels;
        unsigned quiet_ms, settle_cap_ms;
        unsigned settle_min_ms, settle_max_ms; /* [agent]: the adaptive window's bounds (settle.h) */
        bool view_takeover;             /* [agent]: the chat's viewer may take control (mcp-view.h) */
        size_t clipboard_max;
        uint64_t files_mcp_max;         /* [files] mcp_max_bytes: the file tools' cap */
        struct mcp_tool_set tools;      /* [agent] mcp_tools and toolset_disabled: the screen's tools offered */
        unsigned frame_width;           /* the journal's frames ([journal] frame_width), 0: no journal */
        unsigned long long epoch_pin;   /* the epoch the next action is pinned to (cli.h), or CLI_EPOCH_ANY */
        bool start;                     /* opened with --start: opened again the same way (agent_reopen) */
        bool lost;                      /* the connection ended under us: closed, to be opened again */
        char run_id[SCREEN_RUN_ID_LEN + 1]; /* this run of the desktop: the first half of every revision */
        /* changed_region: the last picture handed out, whole (RGB888 in the agent's space), kept from the first
         * request that asked for it on (agent-picture.h). */
        struct {
                bool on;
                uint8_t *rgb;
                unsigned width, height;
                uint64_t hash;
        } kept;
};

/* What one action did, for the transport to say. */
struct agent_outcome {
        bool ok;
        bool refused;                   /* the gate refused it: nothing was done */
        const char *suppressed;         /* why refused: cli_action_veto()'s word */
        bool voided;                    /* control moved while it ran: its result is void */
        unsigned long long epoch;
        char *message;                  /* why not, when !ok */
        bool settled_known;
        enum settle_state settle;
        unsigned settle_ms;
        unsigned settle_window_ms;      /* the quiet after the last change the wait ended on (0: none) */
        bool have_cursor;
        unsigned cursor_x, cursor_y;    /* in the picture's space */
        uint8_t *image;                 /* JPEG */
        size_t image_size;
        char *image_base64;             /* the same, base64 */
        uint8_t *frame;                 /* the journal's frame of the same picture (JPEG), or NULL */
        size_t frame_size;
        unsigned image_w, image_h;      /* its size */
        double image_scale;             /* image / screen pixels */
        unsigned region[4];             /* zoom: the screen rectangle shown */
        bool zoomed;
        unsigned characters;            /* type */
        /* The screen's revision when a picture was taken (or found unchanged), and how since_revision judged it. */
        char revision[SCREEN_REVISION_LEN + 1];
        bool since_given;
        bool unchanged;                 /* the screen is as at since_revision: no image */
        bool revision_reset;            /* since_revision is of another run of the desktop: a full picture */
        bool cropped;                   /* changed_region: the image is only crop (inclusive, in the picture's space) */
        unsigned crop[4];
};

void agent_outcome_done(struct agent_outcome *o);

/* Set o's message (the agent's words for why not); 0 or -ENOMEM. */
int agent_say(struct agent_outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether the connection to the desktop (X, or the VNC server's session) broke: nothing more can be done
 * but agent_lose(). A lost connection is not broken: it is opened again before the next call. */
bool agent_broken(const struct agent *a);

/*
 * The connection ended under us. When a dump of the desktop ended it (its
 * helper ends the connections from outside first, doc/snapshots.md) it is
 * lost, not broken: closed now, and opened again by agent_reopen() before
 * the next call, as it was opened (a hibernated desktop resumed by --start),
 * not at once, while the dump may still run. A dump ended it while the
 * helper's RUNTIME/dumping is there; after the fact (after), also when the
 * desktop runs on as the same run or is hibernated. Whether it was lost.
 */
bool agent_lose_if_dumped(struct agent *a, bool after);
void agent_lose(struct agent *a);
/* Before a call: a lost connection opened again, one that ended since the last call judged as above. A CLI
 * exit code, said; when not EXIT_OK, a is broken. */
int agent_reopen(struct agent *a);

/* Open the running desktop of profile. A CLI exit code, said. */
int agent_open(struct agent *a, const char *profile);
void agent_close(struct agent *a);

/* Start the desktop when asked (or configured) and open it: a CLI exit code, said; on success the caller owns a. */
int agent_serve_open(struct agent *a, const char *profile, bool start);

struct jsonrpc_reader;
/* What `mcp` and `act` do before their first line: start the desktop when
 * asked (or configured), open it, and read stdin by lines. A CLI exit
 * code, said; on success the caller owns a and rd. */
int agent_serve_stdin(struct agent *a, struct jsonrpc_reader *rd, const char *profile, bool start);

/*
 * What `mcp` and `act` do with each line of stdin, in order: answer it on
 * stdout. line is NULL for one longer than the reader's cap (it was
 * dropped). Returns 0, or a negative errno after saying why the stream
 * cannot go on.
 */
typedef int (*agent_line_fn)(struct agent *a, const char *line, size_t len, void *userdata);

/* Hand each line of rd to fn until the end of stdin; blank lines are
 * framing, not messages. Ends early, said, when the read fails, fn fails
 * or the X connection broke. A CLI exit code. */
int agent_serve_lines(struct agent *a, struct jsonrpc_reader *rd, const char *profile, agent_line_fn fn, void *userdata);

/*
 * Run action (parsed in a->space) and, when screenshot is set (or the
 * action is one), take the picture after it settled. Everything a refused
 * or failed action needs to say is in *out. Returns 0, or -ENOMEM.
 */
int agent_run(struct agent *a, const struct mcp_action *action, bool screenshot, struct agent_outcome *out);

/* The outcome as one JSON object (the text the agent reads), without the image. */
void agent_outcome_write(struct json *j, const struct mcp_action *action, const struct agent_outcome *o);

/* The same members, inside an object the caller opened (to add its own). */
void agent_outcome_fields(struct json *j, const struct mcp_action *action, const struct agent_outcome *o);

/*
 * Of those, the picture's revision: "revision" (RUN.HASH), "unchanged"
 * (true or false, when the request gave since_revision) and
 * "revision_reset": true (since_revision was of another run of the
 * desktop), and "changed_region" [x0, y0, x1, y1] when the image is only
 * that part of the picture. Nothing when no picture was taken.
 */
void agent_revision_fields(struct json *j, const struct agent_outcome *o);

/* The id under which the agent's own requests for a human appear in the lease (PENDING=). */
#define AGENT_ASK_VIEWER "agent"
#define AGENT_ASK_TIMEOUT_MS_DEFAULT 50000u   /* under the MCP SDK's 60 s request timeout */
#define AGENT_ASK_TIMEOUT_MS_MAX 3600000u

/*
 * ask_human: record a request for a human with reason (the lease's pending
 * request, as a viewer's is shown to the people watching), then wait
 * (inotify, bounded by timeout_ms) until a human has taken control and
 * handed it back; while a human already holds control, until they hand it
 * back. What happened, as one JSON object, through j: "outcome" is
 * "returned" or "timeout". Returns 0, -EINVAL (a reason the lease cannot
 * hold: said in *ret_error), or another error.
 */
int agent_ask_human(struct agent *a, const char *reason, unsigned timeout_ms, struct json *j, char **ret_error);

/*
 * The clipboard under the gate: read (text, or PNG) into *ret (new), or
 * write text or a PNG image. 0 with o->ok; a refusal, a void result or a
 * failure said in o (o->ok false). Returns -ENOMEM only.
 */
int agent_clipboard_read(struct agent *a, bool png, uint8_t **ret, size_t *ret_size, struct agent_outcome *o);
int agent_clipboard_write(struct agent *a, bool png, const void *data, size_t size, struct agent_outcome *o);

/* `botdesk windows --json`'s object (*ret, new, once out->ok), gated like every agent action; into *out's
 * message when refused. -ENOMEM only. */
int agent_windows(struct agent *a, char **ret, struct agent_outcome *out);
