/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: one viewer's stream, RFB carried in WebSocket binary frames.
 *
 * Viewer to desktop: frames are parsed (websocket.h) and their payload goes
 * through the relay of `botdesk rfb` (rfb-relay.h, the same code), so that
 * input reaches the screen only while this viewer's ticket holds the
 * control lease. Desktop to viewer: the server's bytes pass unchanged, each
 * read becoming one binary frame.
 *
 * Every buffer has a fixed size. A viewer that reads slowly fills its
 * outgoing buffer, and then the desktop's socket is simply not read for it
 * (Xvnc then skips frames for that client); a viewer that sends faster than
 * the desktop takes its input is not read either. Nothing grows.
 */
#include <fcntl.h>
#include <sys/param.h>
#include <sys/socket.h>

#include "profile.h"
#include "log.h"
#include "rfb-relay.h"
#include "util.h"
#include "web.h"
#include "web-out.h"

#define IN_SIZE (64 * 1024)
#define UP_SIZE RFB_FILTER_OUT_SIZE(64 * 1024)
/* The least worth a read of the desktop's bytes: less room waits for the viewer to take some. */
#define DOWN_READ_MIN (16 * 1024)
/* That read, framed, with room left for the control frames. */
#define DOWN_READ_ROOM (DOWN_READ_MIN + WS_HEADER_MAX + WEB_OUT_CONTROL_RESERVE)

struct web_stream {
        struct web_server *server;
        struct web_profile *profile;
        struct web_session *session;
        char viewer[LEASE_VIEWER_MAX + 1];
        int fd, rfb;
        sd_event_source *io, *rfb_io, *timer;
        struct ws_parser ws;
        struct rfb_relay relay;         /* the filter, the lease gate, the activity stamp */
        struct web_job *job;            /* placed or remote: `botdesk rfb P` on the other end of rfb */

        bool client_eof, close_sent, close_received, clean;
        unsigned long long ping_asked;  /* when the silence earned a ping; 0: none since the last byte */
        unsigned long long last_rx;

        struct buffer in;               /* the viewer's frames, not yet parsed */
        struct web_out down;            /* to the viewer */
        uint8_t in_storage[IN_SIZE];
        uint8_t up_storage[UP_SIZE];    /* the relay's buffer toward the desktop */

        struct web_stream *next;
};

struct web_stream *web_stream_next(struct web_stream *st) {
        return st->next;
}

const char *web_stream_viewer(const struct web_stream *st) {
        return st->viewer;
}

static void stream_update(struct web_stream *st);

static void stream_free(struct web_stream *st) {
        struct web_profile *p = st->profile;
        struct web_server *s = st->server;
        bool others = false;

        for (struct web_stream **i = &p->streams; *i; i = &(*i)->next)
                if (*i == st) {
                        *i = st->next;
                        break;
                }
        p->n_streams--;
        if (st->session) {
                st->session->streams--;
                st->session->last_used = now_usec();
        }
        for (struct web_stream *o = p->streams; o; o = o->next)
                others = others || streq(o->viewer, st->viewer);
        /* The lease as it is now, not as last seen (a take may not have been read yet). */
        web_server_lease_changes(s);

        /* The viewer in control has no stream left. One who closed the page
         * (1000, 1001) is done unless it reloads within the grace; one whose
         * browser or network failed, or whose server stopped, keeps the hold
         * for a reconnect, but not for ever (web-profile.c). */
        if (!others && lease_allows_input(&p->lease, st->viewer))
                web_profile_viewer_gone(p, st->viewer, st->clean && p->release_on_close);

        web_job_cancel(st->job);
        sd_event_source_disable_unref(st->io);
        sd_event_source_disable_unref(st->rfb_io);
        sd_event_source_disable_unref(st->timer);
        safe_close(st->fd);
        safe_close(st->rfb);
        free(st);
        log_info("A viewer of %s is gone (%u stream(s) left).", p->name, p->n_streams);
        web_profile_put(p);
        web_server_connection_gone(s);
}

static void stream_close(struct web_stream *st, uint16_t code, const char *reason);

void web_stream_lease_changed(struct web_stream *st) {
        enum rfb_relay_control c = rfb_relay_lease(&st->relay, &st->profile->lease);

        /* A takeover is private: only the holder goes on seeing the screen;
         * a lease that fails closed is taken as one (the upgrade refuses it
         * alike, web-http.c). Queued, not sent here: the caller may be
         * walking the stream list. */
        if ((c == RFB_RELAY_TAKEN || c == RFB_RELAY_FAIL_CLOSED) && !st->close_sent) {
                stream_close(st, WS_CLOSE_EVICTED, "control-taken");
                web_set_events(st->io, EPOLLIN | EPOLLOUT);
        }
}

static void rfb_gone(struct web_stream *st) {
        st->rfb_io = sd_event_source_disable_unref(st->rfb_io);
        st->rfb = safe_close(st->rfb);
}

/* Queue the close frame; the caller decides what to wait for next (stream_update). */
static void stream_close(struct web_stream *st, uint16_t code, const char *reason) {
        if (st->close_sent)
                return;
        log_info("Closing a stream of %s: %u %s.", st->profile->name, code, reason);
        web_out_close(&st->down, code, reason);
        st->close_sent = true;
        /* Nothing more goes to or comes from the desktop for this viewer. */
        rfb_gone(st);
        (void) sd_event_source_set_time_relative(st->timer, WEB_CLOSE_TIMEOUT_USEC);
        (void) sd_event_source_set_enabled(st->timer, SD_EVENT_ONESHOT);
}

void web_stream_close(struct web_stream *st, uint16_t code, const char *reason) {
        stream_close(st, code, reason);
        stream_update(st);
}

/* ---- buffers -------------------------------------------------------------------------------- */

/* 0, or -errno when the viewer is gone. Control frames join between whole frames. */
static int flush_client(struct web_stream *st) {
        return web_out_flush(&st->down, st->fd);
}

static int flush_rfb(struct web_stream *st) {
        ssize_t k = st->rfb >= 0 ? rfb_relay_flush_server(&st->relay, st->rfb) : 0;

        return k < 0 ? (int) k : 0;
}

/* ---- the viewer's frames -------------------------------------------------------------------- */

static void process_in(struct web_stream *st) {
        while (buffer_len(&st->in) > 0 && !st->close_received) {
                /* No more than the relay takes now: a frame's payload is at most what was fed. */
                size_t give = MIN(buffer_len(&st->in), rfb_relay_viewer_room(&st->relay)), used;
                struct ws_event ev;
                int r;

                if (give == 0)
                        return;
                r = ws_parser_feed(&st->ws, buffer_data(&st->in), give, &ev, &used);
                buffer_consume(&st->in, used);
                if (r < 0) {
                        const char *why;
                        uint16_t code = ws_parser_error(&st->ws, &why);

                        buffer_clear(&st->in);
                        stream_close(st, code, why);
                        return;
                }
                switch (ev.type) {
                case WS_EVENT_NONE:
                        if (used == 0)
                                return;
                        break;
                case WS_EVENT_DATA:
                        if (st->close_sent || st->rfb < 0)
                                break; /* closing: what the viewer still sends goes nowhere */
                        /* Lease changes that finished before these bytes were read apply to them. */
                        web_server_lease_changes(st->server);
                        r = rfb_relay_feed(&st->relay, ev.data, ev.size);
                        if (r < 0) {
                                const char *why = rfb_relay_error(&st->relay);

                                log_info("The viewer of %s sent %s.", st->profile->name, why ?: "something unreadable");
                                buffer_clear(&st->in);
                                /* Why, for the gateway: a malformed message, or control
                                 * taken away in the middle of a clipboard transfer. */
                                stream_close(st, WS_CLOSE_UNSUPPORTED, why ?: "the RFB stream broke the protocol");
                                return;
                        }
                        break;
                case WS_EVENT_PING:
                        if (!st->close_sent)
                                web_out_pong(&st->down, ev.data, ev.size);
                        break;
                case WS_EVENT_PONG:
                        st->ping_asked = 0;
                        break;
                case WS_EVENT_CLOSE:
                        st->close_received = true;
                        /* Clean: the viewer itself chose to leave. Its echo of
                         * our close (shutdown, desktop stopped) is not a choice. */
                        /* A close without a code (1005) says nothing of a choice:
                         * it keeps the hold, as a dropped connection (1006) does. */
                        st->clean = !st->close_sent && (ev.code == WS_CLOSE_NORMAL || ev.code == WS_CLOSE_GOING_AWAY);
                        /* Echo the code (RFC 6455 5.5.1), or 1000 when it sent none. */
                        stream_close(st, ev.code == WS_CLOSE_NO_STATUS ? WS_CLOSE_NORMAL : ev.code,
                                         st->close_sent ? "" : "closed by the viewer");
                        return;
                }
        }
}

static void read_client(struct web_stream *st) {
        ssize_t n = buffer_recv(st->fd, &st->in);

        if (n == -EAGAIN || n == -ENOBUFS)
                return;
        if (n <= 0) {
                st->client_eof = true;
                return;
        }
        st->last_rx = now_usec();
        st->ping_asked = 0;
        process_in(st);
}

static void read_rfb(struct web_stream *st) {
        size_t room = web_out_room(&st->down), want;
        uint8_t h[WS_HEADER_MAX];
        size_t hl;
        ssize_t n;

        if (!rfb_relay_server_readable(room, DOWN_READ_ROOM))
                return;
        want = room - WS_HEADER_MAX - WEB_OUT_CONTROL_RESERVE;
        if (want > sizeof st->server->scratch)
                want = sizeof st->server->scratch;
        n = recv(st->rfb, st->server->scratch, want, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return;
        if (n <= 0 && st->job) {
                /* Placed: why it ended is the CLI's exit status (on_rfb_job_done). */
                rfb_gone(st);
                return;
        }
        if (n <= 0) {
                stream_close(st, WS_CLOSE_DESKTOP_STOPPED, "desktop stopped");
                return;
        }
        hl = ws_frame_header(WS_OP_BINARY, (uint64_t) n, h);
        web_out_append(&st->down, h, hl);
        web_out_append(&st->down, st->server->scratch, (size_t) n);
        rfb_relay_stamp(&st->relay);
}

/* ---- events --------------------------------------------------------------------------------- */

/* Decide what to wait for next, or end the stream. */
static void stream_update(struct web_stream *st) {
        uint32_t client = 0, rfb = 0;
        bool out_pending;

        if (flush_client(st) < 0)
                st->client_eof = true;
        if (st->rfb >= 0 && flush_rfb(st) < 0)
                stream_close(st, WS_CLOSE_DESKTOP_STOPPED, "desktop stopped");

        out_pending = web_out_pending(&st->down);
        /* Gone without a close frame, or both close frames exchanged (sent, then the server closes first). */
        if (st->client_eof || (st->close_sent && st->close_received && !out_pending)) {
                stream_free(st);
                return;
        }

        if (!buffer_full(&st->in) && !st->close_received && rfb_relay_viewer_readable(&st->relay))
                client |= EPOLLIN;
        if (out_pending)
                client |= EPOLLOUT;
        if (st->rfb >= 0) {
                if (rfb_relay_server_readable(web_out_room(&st->down), DOWN_READ_ROOM))
                        rfb |= EPOLLIN;
                if (rfb_relay_server_pending(&st->relay) > 0)
                        rfb |= EPOLLOUT;
        }
        web_set_events(st->io, client);
        web_set_events(st->rfb_io, rfb);
}

static int on_client(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_stream *st = userdata;

        if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
                read_client(st);
        /* Bytes held back for want of room may go on now that some left. */
        process_in(st);
        stream_update(st);
        return 0;
}

static int on_rfb(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct web_stream *st = userdata;

        if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
                read_rfb(st);
        /* The filter had to stop for room: now the desktop took some bytes. */
        if (st->rfb >= 0 && flush_rfb(st) >= 0)
                process_in(st);
        stream_update(st);
        return 0;
}

static int on_timer(sd_event_source *src, uint64_t usec, void *userdata) {
        struct web_stream *st = userdata;
        unsigned long long now = now_usec(), interval = st->server->ping_usec;

        if (st->close_sent) {
                /* The viewer never answered our close frame. */
                stream_free(st);
                return 0;
        }
        /* A viewer is closed only after a ping that had a whole interval
         * to be answered: counted from the ping, not from a fixed tick, so
         * a slow loop can never close without having pinged. */
        if (st->ping_asked && now - st->ping_asked >= interval) {
                web_stream_close(st, WS_CLOSE_GOING_AWAY, "idle timeout");
                return 0;
        }
        if (!st->ping_asked && now - st->last_rx >= interval) {
                st->ping_asked = now;
                st->down.ping_pending = true;
        }
        (void) sd_event_source_set_time(src, (st->ping_asked ?: st->last_rx) + interval);
        (void) sd_event_source_set_enabled(src, SD_EVENT_ONESHOT);
        stream_update(st);
        return 0;
}

/* A placed or remote stream's `botdesk rfb` ended: as a local one ends, by the same codes. */
static void on_rfb_job_done(int status, const char *out, const char *err, void *userdata) {
        struct web_stream *st = userdata;

        st->job = NULL;
        if (st->close_sent)
                return;
        if (status == 3) {
                /* EXIT_REFUSED: a human other than this viewer holds control there. */
                stream_close(st, WS_CLOSE_EVICTED, "control-taken");
        } else {
                if (status != 0)
                        log_warning("The RFB stream of %s through %s ended (exit %d): %s", st->profile->name,
                                    st->profile->placed ? "its exec prefix" : "botdesk rfb", status,
                                    err[0] ? err : "no message");
                stream_close(st, WS_CLOSE_DESKTOP_STOPPED, "desktop stopped");
        }
        web_set_events(st->io, EPOLLIN | EPOLLOUT);
}

/* `botdesk rfb P --viewer ID` (through the exec prefix to the far side, or to a remote profile's
 * front), its stdio one end of a socketpair, rfb the other. */
static int cli_rfb_start(struct web_stream *st) {
        char *args[] = { (char *) "rfb", st->profile->name, (char *) "--viewer", st->viewer, NULL };
        int r;

        r = web_job_start_stream(st->server, args, on_rfb_job_done, st, &st->job, &st->rfb);
        if (r < 0)
                return r;
        /* Its input, and the hold a departure ends, follow the lease there.
         * Until its first line, input is dropped here; the far side gates it
         * anyway. A remote profile's lease is here, followed as a local one's. */
        if (st->profile->placed)
                web_profile_placed_watch(st->profile);
        return 0;
}

int web_stream_new(struct web_server *s, struct web_profile *p, struct web_session *session, int fd,
                   int rfb_fd, const void *head, size_t n_head, const void *early, size_t n_early) {
        struct web_stream *st;
        int r;

        if (n_head + WEB_OUT_CONTROL_RESERVE > WEB_OUT_SIZE || n_early > IN_SIZE) {
                safe_close(rfb_fd);
                return -E2BIG;
        }
        st = calloc(1, sizeof *st);
        if (!st) {
                safe_close(rfb_fd);
                return -ENOMEM;
        }
        /* A session's viewer has the stream's size. */
        if (strscpy(st->viewer, sizeof st->viewer, session->viewer) < 0) {
                free(st);
                safe_close(rfb_fd);
                return -E2BIG;
        }
        st->server = s;
        st->profile = p;
        st->session = session;
        st->fd = fd;
        st->rfb = rfb_fd;
        if (rfb_fd < 0 && (p->placed || p->remote)) {
                r = cli_rfb_start(st);
                if (r < 0) {
                        free(st);
                        return r;
                }
                rfb_fd = st->rfb;
        }
        st->in = BUFFER_FIXED(st->in_storage);
        web_out_init(&st->down);
        st->last_rx = now_usec();
        ws_parser_init(&st->ws, WEB_FRAME_MAX);
        rfb_relay_init(&st->relay, p->name, st->viewer, p->dirfd, p->max_cut_text);
        rfb_relay_set_buffer(&st->relay, st->up_storage, sizeof st->up_storage, IN_SIZE);
        web_stream_lease_changed(st);
        web_out_append(&st->down, head, n_head);
        (void) buffer_append(&st->in, early, n_early);   /* at most IN_SIZE: checked above */

        r = sd_event_add_io(s->event, &st->io, fd, EPOLLIN | EPOLLOUT, on_client, st);
        if (r >= 0)
                r = sd_event_add_io(s->event, &st->rfb_io, rfb_fd, EPOLLIN, on_rfb, st);
        if (r >= 0)
                r = sd_event_add_time_relative(s->event, &st->timer, CLOCK_MONOTONIC, s->ping_usec, 0, on_timer, st);
        if (r < 0) {
                web_job_cancel(st->job);
                        sd_event_source_disable_unref(st->io);
                sd_event_source_disable_unref(st->rfb_io);
                safe_close(rfb_fd);
                free(st);
                return r;
        }
        st->next = p->streams;
        p->streams = st;
        p->n_streams++;
        session->streams++;
        web_profile_viewer_back(p, st->viewer);
        process_in(st);
        stream_update(st);
        return 0;
}
