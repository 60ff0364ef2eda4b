/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The agent's actions on a running desktop (agent.h): one gate, the input
 * verb's strokes, the thumbnail's grab, the settle wait. Every check that
 * can fail runs before the first event is sent, so a refused or malformed
 * action leaves the screen as it was.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>

#include "agent.h"
#include "agent-strokes.h"
#include "agent-remote.h"
#include "remote-screen.h"
#include "clipboard.h"
#include "cli.h"
#include "cli-desktop.h"
#include "window-list.h"
#include "jsonrpc.h"
#include "agent-journal.h"
#include "agent-picture.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "record.h"
#include "screen-revision.h"
#include "snapshot.h"
#include "thumbnail.h"
#include "util.h"

void agent_outcome_done(struct agent_outcome *o) {
        free(o->message);
        free(o->image);
        free(o->image_base64);
        free(o->frame);
        *o = (struct agent_outcome) {};
}

int agent_say(struct agent_outcome *o, const char *fmt, ...) {
        va_list ap;

        free(o->message);
        va_start(ap, fmt);
        o->message = strdup_vprintf(fmt, ap);
        va_end(ap);
        return o->message ? 0 : -ENOMEM;
}

static void on_event(void *userdata, const xcb_generic_event_t *ev) {
        settle_event(userdata, ev);
}

int agent_open(struct agent *a, const char *profile) {
        _cleanup_free_ char *display = NULL, *xauthority = NULL;
        struct bd_config c = {};
        xcb_get_geometry_reply_t *g;
        int n, r;

        *a = (struct agent) {
                .profile = profile,
                .dirfd = -EBADF,
                .epoch_pin = cli_epoch_pin(),
                .max_edge = MCP_SPACE_MAX_EDGE_DEFAULT,
                .max_pixels = MCP_SPACE_MAX_PIXELS_DEFAULT,
                .quiet_ms = SETTLE_QUIET_MS_DEFAULT,
                .settle_cap_ms = SETTLE_CAP_MS_DEFAULT,
        };
        if (cli_load_config(profile, &c) < 0) {
                config_done(&c);
                return EXIT_USAGE;
        }
        a->max_edge = c.screenshot_max_edge;
        a->max_pixels = c.screenshot_max_pixels;
        a->clipboard_max = c.clipboard_max_bytes;
        a->settle_min_ms = c.settle_min_ms;
        a->settle_max_ms = c.settle_max_ms;
        a->view_takeover = c.view_takeover;
        /* The viewer's Take over and Hand back exist only where its user is the desktop's human. */
        if (!c.view_takeover)
                a->tools.flags_off |= MCP_TOOL_APP;
        a->files_mcp_max = c.files_mcp_max_bytes;
        a->tools.kind = c.mcp_tools;
        a->frame_width = c.journal_enabled ? c.journal_frame_width : 0;
        r = cli_members_off(c.toolset_disabled, &a->tools.members_off);
        if (r == EXIT_OK && c.remote) {
                /* A VNC server: a framebuffer and input, none of a desktop's windows, tree, clipboard or files. */
                a->tools.flags_off |= MCP_TOOL_DESKTOP;
                r = agent_remote_open(a, &c);
                if (r == EXIT_OK)
                        agent_space_for(a, a->remote->fb.width, a->remote->fb.height, &a->space);
                config_done(&c);
                return r;
        }
        config_done(&c);
        if (r != EXIT_OK)
                return r;

        r = cli_running_display(profile, &a->dirfd, &display, &xauthority);
        if (r != EXIT_OK)
                return r;
        r = cli_connect_desktop(profile, display, xauthority, &a->conn, &a->screen);
        if (r != EXIT_OK)
                return r;
        /* After the connection: a restart since the display was read is the run it reached, or a broken connection. */
        r = cli_desktop_run_id(profile, a->dirfd, a->run_id);
        if (r != EXIT_OK)
                return r;
        n = a->screen;
        for (xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(a->conn)); it.rem; xcb_screen_next(&it), n--)
                if (n == 0)
                        a->root = it.data->root;
        r = input_open(&a->in, a->conn, a->screen);
        if (r == -EOPNOTSUPP) {
                log_error("The X server of desktop %s has no XTEST extension; botdesk cannot send input to it.", profile);
                return EXIT_FAILED;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot read the keyboard map of desktop %s: %m", profile);
                return EXIT_FAILED;
        }
        a->have_settle = settle_open(&a->settle, a->conn, a->root) >= 0;
        if (a->have_settle)
                settle_adapt(&a->settle, a->settle_min_ms, a->settle_max_ms);
        if (!a->have_settle)
                log_debug("Desktop %s: no DAMAGE, actions will not wait for the screen to settle.", profile);
        a->in.on_event = on_event;
        a->in.event_userdata = &a->settle;
        /* The root's size now, not the connection's setup: RandR may have changed it since. */
        g = xcb_get_geometry_reply(a->conn, xcb_get_geometry(a->conn, a->root), NULL);
        agent_space_for(a, g ? g->width : a->in.width, g ? g->height : a->in.height, &a->space);
        free(g);
        return EXIT_OK;
}

bool agent_broken(const struct agent *a) {
        if (a->lost)
                return false;
        return a->remote ? a->remote->broken : !a->conn || xcb_connection_has_error(a->conn);
}

static bool agent_dumped(const struct agent *a, bool after) {
        _cleanup_(helper_record_done) struct helper_record rec = {};
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int snap = -EBADF;
        char run_id[SCREEN_RUN_ID_LEN + 1];

        if (a->dirfd >= 0 && faccessat(a->dirfd, SNAPSHOT_DUMPING_FILE, F_OK, AT_SYMLINK_NOFOLLOW) >= 0)
                return true;
        if (!after || a->dirfd < 0)
                return false;
        /* A snapshot came and went: the desktop runs on, the same run. */
        if (helper_record_read_at(a->dirfd, &rec) >= 0 && helper_alive(a->dirfd, &rec) > 0) {
                screen_run_id(rec.token, rec.pid, rec.starttime, run_id);
                return streq(run_id, a->run_id);
        }
        /* A hibernation: its images are there to resume. */
        return paths_for_profile(a->profile, &p) >= 0 && snapshot_open(p.state, &snap) >= 0;
}

void agent_lose(struct agent *a) {
        const char *profile = a->profile;
        bool start = a->start;

        log_info("The connection to desktop %s ended (dumped, stopped or restarted); opening it again for the next "
                 "request.", profile);
        agent_close(a);
        a->profile = profile;
        a->start = start;
        a->lost = true;
}

bool agent_lose_if_dumped(struct agent *a, bool after) {
        if (!agent_dumped(a, after))
                return false;
        agent_lose(a);
        return true;
}

int agent_reopen(struct agent *a) {
        const char *profile = a->profile;
        bool start = a->start;
        int r;

        /* Ended while we waited for the request: the server's end closed, which xcb sees only when it reads. */
        if (!a->lost && a->conn) {
                struct pollfd p = { .fd = xcb_get_file_descriptor(a->conn) };

                if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR)) && !agent_lose_if_dumped(a, true)) {
                        log_error("The connection to desktop %s ended (stopped or restarted?); ending.", a->profile);
                        return EXIT_NOT_RUNNING;
                }
        }
        if (!a->lost)
                return EXIT_OK;
        r = agent_serve_open(a, profile, start);
        if (r != EXIT_OK) {
                /* Closed by agent_serve_open(): broken, which ends the caller's session. */
                a->profile = profile;
                a->start = start;
                return r;
        }
        log_info("Desktop %s opened again.", profile);
        return EXIT_OK;
}

void agent_close(struct agent *a) {
        agent_remote_close(a);
        if (a->conn) {
                settle_close(&a->settle);
                input_done(&a->in);
                xcb_disconnect(a->conn);
                a->conn = NULL;
        }
        agent_kept_drop(a);
        a->dirfd = safe_close(a->dirfd);
}

/* Whether the action changes the screen, and so is waited on. */
static bool acts(const struct mcp_action *act) {
        return act->kind != MCP_ACT_SCREENSHOT && act->kind != MCP_ACT_ZOOM && act->kind != MCP_ACT_CURSOR_POSITION &&
               act->kind != MCP_ACT_WAIT;
}

static void void_outcome(struct agent *a, const struct mcp_action *act, struct agent_outcome *o) {
        struct lease now;

        (void) lease_read_at(a->dirfd, &now);
        o->ok = false;
        o->voided = true;
        o->epoch = now.epoch;
        free(o->image_base64);
        free(o->image);
        free(o->frame);
        o->image_base64 = NULL;
        o->image = NULL;
        o->frame = NULL;
        o->revision[0] = 0;
        o->unchanged = o->revision_reset = o->cropped = false;
        (void) agent_say(o, "A human took control of this screen while %s ran; its result is void. Tell the user what you "
                      "need, and wait until they hand control back.", act->name);
}

/* The gate of every agent action (cli.h), pinned to the call's epoch: refused said in o. */
static bool admit(struct agent *a, const char *what, struct lease *admitted, struct agent_outcome *o) {
        *o = (struct agent_outcome) {};
        o->suppressed = cli_action_admit_pinned(a->dirfd, what, a->epoch_pin, admitted);
        o->epoch = admitted->epoch;
        if (!o->suppressed)
                return true;
        o->refused = true;
        if (streq(o->suppressed, "epoch_moved"))
                (void) agent_say(o, "Control of this screen changed since the epoch this action was approved at; %s is "
                              "refused. Approve it again at epoch %llu.", what, admitted->epoch);
        else
                (void) agent_say(o, "A human has control of this screen; %s is refused. Tell the user what you need, and "
                              "wait until they hand control back.", what);
        return false;
}

static int agent_run_gated(struct agent *a, const struct mcp_action *act, bool want_screenshot, struct agent_outcome *o) {
        _cleanup_(agent_prepared_done) struct agent_prepared p = {};
        _cleanup_free_ char *what = strdup_printf("%s", act->name);
        struct lease admitted;
        int r;

        *o = (struct agent_outcome) {};
        if (!what)
                return -ENOMEM;
        /* The gate of every agent action: nothing of the screen for the agent while a human has it. */
        if (!admit(a, what, &admitted, o))
                return o->message ? 0 : -ENOMEM;
        r = agent_prepare(a, act, &p, o);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;               /* said in o; nothing was sent */

        if (a->have_settle)
                settle_begin(&a->settle);
        r = a->remote ? agent_remote_execute(a, act, &p, &admitted, o) : agent_execute(a, act, &p, &admitted, o);
        if (r == -ENOMEM)
                return r;
        if (r == -ESTALE || !cli_action_still_valid(a->dirfd, &admitted)) {
                void_outcome(a, act, o);
                return 0;
        }
        if (r < 0)
                return 0;
        if (acts(act)) {
                o->settled_known = true;
                if (a->remote) {
                        if (agent_remote_settle(a, o) < 0)
                                return agent_say(o, "The session with the VNC server broke.");
                } else if (!a->have_settle)
                        o->settle = SETTLE_UNSUPPORTED;
                else if (settle_wait(&a->settle, a->quiet_ms, a->settle_cap_ms, &o->settle, &o->settle_ms) < 0)
                        return agent_say(o, "The X connection to the desktop broke.");
                else if (o->settle == SETTLE_SETTLED)
                        o->settle_window_ms = a->settle.window_ms;
        }
        if (act->kind == MCP_ACT_ZOOM)
                r = agent_zoom(a, act->region, o);
        else if (want_screenshot || act->kind == MCP_ACT_SCREENSHOT)
                r = agent_screenshot(a, act, o);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        /* A picture taken across a takeover may show what the human did: never handed out. */
        if (!cli_action_still_valid(a->dirfd, &admitted)) {
                void_outcome(a, act, o);
                return 0;
        }
        activity_stamp(a->dirfd);
        o->ok = true;
        return 0;
}

void agent_outcome_write(struct json *j, const struct mcp_action *act, const struct agent_outcome *o) {
        json_object_begin(j);
        agent_outcome_fields(j, act, o);
        json_object_end(j);
}

void agent_outcome_fields(struct json *j, const struct mcp_action *act, const struct agent_outcome *o) {
        char scale[32];

        if (act)
                json_kv_string(j, "action", act->name);
        if (o->refused || o->voided) {
                json_kv_string(j, "suppressed", o->suppressed ?: "human_has_control");
                json_kv_bool(j, "void", o->voided);
        }
        json_kv_bool(j, "ok", o->ok);
        if (o->message)
                json_kv_string(j, "error", o->message);
        json_kv_int(j, "epoch", (long long) o->epoch);
        if (o->ok && o->characters)
                json_kv_int(j, "characters", o->characters);
        if (o->ok && o->have_cursor) {
                json_key(j, "coordinate");
                json_array_begin(j);
                json_int(j, o->cursor_x);
                json_int(j, o->cursor_y);
                json_array_end(j);
        }
        if (o->ok && o->settled_known) {
                json_kv_string(j, "settle", settle_state_name(o->settle));
                json_kv_int(j, "settle_ms", o->settle_ms);
                /* Which rule ended it: quiet this long after the last change (settle.h). */
                if (o->settle == SETTLE_SETTLED && o->settle_window_ms)
                        json_kv_int(j, "settle_window_ms", o->settle_window_ms);
        }
        if (o->ok && o->image_base64) {
                json_key(j, o->zoomed ? "zoom" : "screenshot");
                json_object_begin(j);
                json_kv_int(j, "width", o->image_w);
                json_kv_int(j, "height", o->image_h);
                snprintf(scale, sizeof scale, "%.6g", o->image_scale);
                json_key(j, "scale");
                json_raw(j, scale);
                if (o->zoomed) {
                        json_key(j, "screen_region");
                        json_array_begin(j);
                        for (size_t i = 0; i < 4; i++)
                                json_int(j, o->region[i]);
                        json_array_end(j);
                }
                json_object_end(j);
        }
        agent_revision_fields(j, o);
}

void agent_revision_fields(struct json *j, const struct agent_outcome *o) {
        if (!o->ok || !o->revision[0])
                return;
        json_kv_string(j, "revision", o->revision);
        if (o->since_given)
                json_kv_bool(j, "unchanged", o->unchanged);
        if (o->revision_reset)
                json_kv_bool(j, "revision_reset", true);
        /* The image is this part of the screenshot, at its scale: its (x, y) is (x0 + x, y0 + y) there. */
        if (o->cropped) {
                json_key(j, "changed_region");
                json_array_begin(j);
                for (size_t i = 0; i < 4; i++)
                        json_int(j, o->crop[i]);
                json_array_end(j);
        }
}

int agent_windows(struct agent *a, char **ret, struct agent_outcome *o) {
        _cleanup_free_ char *text = NULL;
        struct lease admitted;
        size_t size = 0;
        FILE *f;
        int r;

        if (!admit(a, "windows", &admitted, o))
                return o->message ? 0 : -ENOMEM;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        r = cli_windows_json(a->conn, a->root, a->profile, admitted.epoch, f);
        if (fclose(f) != 0 || r == -ENOMEM)
                return -ENOMEM;
        if (r < 0)
                return agent_say(o, "Cannot read the windows: the X connection broke.");
        if (!cli_action_still_valid(a->dirfd, &admitted)) {
                struct lease now;

                (void) lease_read_at(a->dirfd, &now);
                o->voided = true;
                o->epoch = now.epoch;
                return agent_say(o, "A human took control of this screen while windows ran; its result is void.");
        }
        activity_stamp(a->dirfd);
        o->ok = true;
        *ret = TAKE_PTR(text);
        return 0;
}

struct ask {
        unsigned long long epoch;
};

/* Control came back to the agent after the request: a human took it (the epoch moved) and released it. */
static bool came_back(const struct lease *l, void *userdata) {
        const struct ask *k = userdata;
        return l->holder == LEASE_AGENT && !l->failed && l->epoch > k->epoch;
}

int agent_ask_human(struct agent *a, const char *reason, unsigned timeout_ms, struct json *j, char **ret_error) {
        unsigned long long t0 = now_usec();
        struct lease l;
        struct ask k;
        int r;

        *ret_error = NULL;
        (void) lease_read_at(a->dirfd, &l);
        if (l.holder == LEASE_HUMAN)
                r = lease_wait_agent_at(a->dirfd, timeout_ms, &l);
        else {
                k.epoch = l.epoch;
                r = lease_request_at(a->dirfd, AGENT_ASK_VIEWER, reason, &l);
                if (r == -EINVAL) {
                        *ret_error = strdup_printf("ask_human: the reason must be 1-%d bytes of text without control "
                                                   "characters.", LEASE_REASON_MAX);
                        return *ret_error ? -EINVAL : -ENOMEM;
                }
                if (r < 0)
                        return r;
                log_info("Desktop %s: the agent asks for a human: %s", a->profile, reason);
                r = lease_wait_at(a->dirfd, timeout_ms, came_back, &k, &l);
        }
        if (r < 0 && r != -ETIME)
                return r;
        json_object_begin(j);
        json_kv_string(j, "outcome", r == -ETIME ? "timeout" : "returned");
        json_kv_string(j, "control", l.holder == LEASE_HUMAN ? "human" : "agent");
        json_kv_int(j, "epoch", (long long) l.epoch);
        json_kv_int(j, "waited_ms", (long long) ((now_usec() - t0) / 1000));
        json_object_end(j);
        return 0;
}

/* The gate's second read, after a clipboard access: void said in o. */

static bool clip_still(struct agent *a, const char *what, const struct lease *admitted, struct agent_outcome *o) {
        struct lease now;

        if (cli_action_still_valid(a->dirfd, admitted))
                return true;
        (void) lease_read_at(a->dirfd, &now);
        o->voided = true;
        o->epoch = now.epoch;
        (void) agent_say(o, "A human took control of this screen while %s ran; its result is void.", what);
        return false;
}

int agent_clipboard_read(struct agent *a, bool png, uint8_t **ret, size_t *ret_size, struct agent_outcome *o) {
        struct lease admitted;
        int r;

        *ret = NULL;
        if (!admit(a, "clipboard_read", &admitted, o))
                return 0;
        if (clipboard_wait_handback(a->dirfd, admitted.epoch) < 0)
                return agent_say(o, "The desktop's helper has not emptied the clipboard since the hand-back; it is not "
                              "read. Restart the desktop if this lasts.");
        r = clipboard_get(a->conn, a->root, png, a->clipboard_max, on_event, &a->settle, ret, ret_size);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return agent_say(o, r == -ENODATA ? "The clipboard holds no %s." :
                              r == -EFBIG ? "The clipboard holds more than [agent] clipboard_max_bytes (%s)." :
                              r == -ETIME ? "The clipboard's owner did not answer (%s)." : "Cannot read the clipboard (%s).",
                           png ? "PNG image" : "text");
        if (!clip_still(a, "clipboard_read", &admitted, o)) {
                free(*ret);
                *ret = NULL;
                return 0;
        }
        activity_stamp(a->dirfd);
        o->ok = true;
        return 0;
}

static int clipboard_write_admitted(struct agent *a, bool png, const void *data, size_t size,
                                    const struct lease *admitted, struct agent_outcome *o) {
        int r;

        if (size > a->clipboard_max)
                return agent_say(o, "The %s is larger than [agent] clipboard_max_bytes (%zu bytes).", png ? "image" : "text",
                                 a->clipboard_max);
        /* After the hand-back's emptying, or that would empty this. */
        if (clipboard_wait_handback(a->dirfd, admitted->epoch) < 0)
                return agent_say(o, "The desktop's helper has not emptied the clipboard since the hand-back; it is not "
                              "written. Restart the desktop if this lasts.");
        r = clipboard_set(a->dirfd, png, data, size);
        if (r < 0)
                return agent_say(o, r == -ETIME ? "The desktop's helper did not take the clipboard; restart the desktop."
                                          : "Cannot hand the clipboard to the desktop's helper.");
        if (!clip_still(a, "clipboard_write", admitted, o))
                return 0;
        activity_stamp(a->dirfd);
        o->ok = true;
        return 0;
}

int agent_clipboard_write(struct agent *a, bool png, const void *data, size_t size, struct agent_outcome *o) {
        struct lease admitted;
        int r;

        if (!admit(a, "clipboard_write", &admitted, o))
                return 0;
        r = clipboard_write_admitted(a, png, data, size, &admitted, o);
        agent_journal_clipboard_write(a, &admitted, png, size, o);
        return r;
}

int agent_serve_open(struct agent *a, const char *profile, bool start) {
        int r;

        /* A VNC server botdesk did not start is not botdesk's to start. */
        r = cli_desktop_place(NULL, profile) == CLI_PLACE_REMOTE ? EXIT_OK : cli_start_on_demand(profile, start);
        if (r != EXIT_OK)
                return r;
        r = agent_open(a, profile);
        if (r != EXIT_OK)
                agent_close(a);
        else
                a->start = start;
        return r;
}

int agent_serve_stdin(struct agent *a, struct jsonrpc_reader *rd, const char *profile, bool start) {
        int r;

        r = agent_serve_open(a, profile, start);
        if (r != EXIT_OK)
                return r;
        if (jsonrpc_reader_init(rd, STDIN_FILENO) < 0) {
                agent_close(a);
                return log_oom(), EXIT_FAILED;
        }
        return EXIT_OK;
}

int agent_serve_lines(struct agent *a, struct jsonrpc_reader *rd, const char *profile, agent_line_fn fn, void *userdata) {
        for (;;) {
                char *line;
                size_t len;
                int r;

                r = jsonrpc_read_line(rd, &line, &len);
                if (r == 0)
                        return EXIT_OK;
                if (r == -EMSGSIZE) {
                        line = NULL;
                        len = 0;
                } else if (r < 0) {
                        log_error_errno(r, "Cannot read standard input: %m");
                        return EXIT_FAILED;
                } else if (len == 0)
                        continue;
                if (agent_reopen(a) != EXIT_OK)
                        return EXIT_FAILED;
                if (fn(a, line, len, userdata) < 0)
                        return EXIT_FAILED;
                if (agent_broken(a) && !agent_lose_if_dumped(a, true)) {
                        log_error("The connection to desktop %s broke (stopped or restarted?); ending.", profile);
                        return EXIT_FAILED;
                }
        }
}

int agent_run(struct agent *a, const struct mcp_action *act, bool want_screenshot, struct agent_outcome *o) {
        int r = agent_run_gated(a, act, want_screenshot, o);

        if (r >= 0)
                agent_journal_action(a, act, o);
        return r;
}
