/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk rfb PROFILE [--viewer ID]: the desktop's RFB stream on stdin and
 * stdout, for socat, websockify, ssh or kubectl exec to carry anywhere.
 *
 * One sd-event loop over non-blocking descriptors with a buffer each way:
 * stdin -> filter -> rfb.sock (the relay's buffer, rfb-relay.h, whose rule
 * says when each side is read), rfb.sock -> stdout unchanged. The server's
 * bytes are spliced, never copied through us, when stdout is a pipe
 * (directly) or a socket (through a pipe of our own: socat's EXEC and
 * websockify hand us a socketpair). The relay (rfb-relay.h, as `botdesk
 * web`'s) drops input messages unless this viewer holds the control lease; inotify
 * on the runtime directory re-reads the lease as soon as it is replaced, so
 * a change applies from the next client message, without polling.
 *
 * A human's takeover is private: while a human holds the lease, only that
 * viewer's streams see the screen. Every other stream ends as soon as the
 * take is seen (the same inotify event), and a connection made meanwhile by
 * anyone else is refused before a byte of the server reaches it. Watching
 * by many stays as it is while the agent holds control.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/param.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "buffer.h"
#include "cli.h"
#include "verbs.h"
#include "config.h"
#include "record.h"
#include "lease.h"
#include "lease-watch.h"
#include "log.h"
#include "profile.h"
#include "remote-front.h"
#include "rfb-relay.h"
#include "running.h"
#include "socket-util.h"
#include "snapshot.h"
#include "util.h"

#include <systemd/sd-event.h>

/* Framebuffer updates come in megabytes: large reads keep the number of
 * system calls per update small. */
#define BRIDGE_BUF_SIZE (1024 * 1024)
#define BRIDGE_READ_MAX (256 * 1024)

struct bridge;

/* One of the bridge's descriptors on the loop. What epoll refuses and poll() calls always ready (a regular
 * file, /dev/null) gets a defer source, enabled while it is waited for, as its readiness would be. */
struct bridge_fd {
        struct bridge *bridge;
        int fd;
        sd_event_source *src;
        bool always;
        uint32_t events;                /* what it is waited for: EPOLLIN, EPOLLOUT */
        int (*handler)(struct bridge *b, uint32_t revents);
};

struct bridge {
        const char *profile;
        sd_event *event;
        int dirfd;
        int sock;
        int inotify;
        sd_event_source *inotify_src;
        struct bridge_fd in, out, server;       /* stdin, stdout, the RFB socket */
        bool done;                      /* the loop was told to exit */
        int in_flags, out_flags;        /* stdin/stdout flags to restore, -1 if untouched */
        bool in_eof, sock_eof, shut_wr;
        bool evicted;                   /* a human other than this viewer took control */
        bool settling;                  /* this viewer took control; its input waits for the helper's release */
        unsigned long long evicted_epoch;
        bool out_pipe;                  /* stdout is a pipe: splice() the server's bytes into it */
        int relay[2];                   /* stdout is a socket: the pipe spliced through, else -EBADF */
        size_t relay_len;               /* bytes in that pipe, not yet out */
        bool relay_full;                /* it took no more: read the server again once some went out */
        struct rfb_relay rfb;           /* the filter, the lease gate, the activity stamp */
        struct buffer down;             /* server bytes for the client */
        size_t raw_len;                 /* bytes of raw read, kept until this viewer's take settles */
        uint8_t raw[BRIDGE_READ_MAX];
        uint8_t up_storage[BRIDGE_BUF_SIZE];   /* the relay's buffer toward the server */
        uint8_t down_storage[BRIDGE_BUF_SIZE];
};

/* Free room at the end: the pending bytes move to the front only when less than a whole read (and what the
 * filter may add) is left there, not for every few bytes. */
static size_t buf_room(struct buffer *b) {
        return buffer_reserve(b, BRIDGE_READ_MAX + RFB_FILTER_HOLD_MAX);
}

static void bridge_free(struct bridge **bp) {
        struct bridge *b = *bp;

        if (!b)
                return;
        /* stdin and stdout may be shared with the process that started us. */
        if (b->in_flags >= 0)
                (void) fcntl(STDIN_FILENO, F_SETFL, b->in_flags);
        if (b->out_flags >= 0)
                (void) fcntl(STDOUT_FILENO, F_SETFL, b->out_flags);
        /* The sources before their descriptors. */
        sd_event_source_disable_unref(b->in.src);
        sd_event_source_disable_unref(b->out.src);
        sd_event_source_disable_unref(b->server.src);
        sd_event_source_disable_unref(b->inotify_src);
        safe_close(b->dirfd);
        safe_close(b->sock);
        safe_close(b->inotify);
        sd_event_unref(b->event);
        safe_close(b->relay[0]);
        safe_close(b->relay[1]);
        free(b);
}

static void update_input(struct bridge *b) {
        struct lease l;

        /* A damaged file reads as the fail-closed lease, which allows nobody. */
        (void) lease_read_at(b->dirfd, &l);
        /* A take is a file a human's take wrote: a damaged file takes input
         * from everyone, but is no takeover to hide the screen for. */
        enum rfb_relay_control c = rfb_relay_lease(&b->rfb, &l);

        if (c == RFB_RELAY_TAKEN) {
                b->evicted = true;
                b->evicted_epoch = l.epoch;
        }
        b->settling = c == RFB_RELAY_SETTLING;
}

static int note_lease_event(const struct inotify_event *ev, void *userdata) {
        bool *changed = userdata;

        *changed = *changed || lease_event_changes(ev);
        return 0;
}

static int handle_inotify(struct bridge *b) {
        bool changed = false;
        int r;

        r = inotify_drain(b->inotify, note_lease_event, &changed);
        if (r < 0)
                return log_error_errno(r, "Cannot read lease changes: %m");
        if (changed)
                update_input(b);
        return 0;
}

static bool is_disconnect(int e) {
        return e == EPIPE || e == ECONNRESET || e == ENOTCONN;
}

/* Bytes still on their way to the viewer, in our buffer or the relay pipe. */
static size_t pending_out(const struct bridge *b) {
        return buffer_len(&b->down) + b->relay_len;
}

/*
 * 0 on progress or nothing to do, 1 when the client is gone, -errno. The
 * relay pipe's bytes are older than our buffer's: they go first.
 */
static int write_out(struct bridge *b, uint32_t revents) {
        while (pending_out(b) > 0) {
                bool relay = b->relay_len > 0;
                ssize_t n = relay ? splice(b->relay[0], NULL, STDOUT_FILENO, NULL, b->relay_len,
                                           SPLICE_F_MOVE | SPLICE_F_NONBLOCK)
                                  : write(STDOUT_FILENO, buffer_data(&b->down), buffer_len(&b->down));

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 0;
                        if (is_disconnect(errno))
                                return 1;
                        return log_error_errno(errno, "Cannot write to the viewer: %m");
                }
                if (relay) {
                        b->relay_len -= (size_t) n;
                        b->relay_full = false;
                } else
                        buffer_consume(&b->down, (size_t) n);
        }
        return 0;
}

static int write_sock(struct bridge *b) {
        ssize_t n = rfb_relay_flush_server(&b->rfb, b->sock);

        if (n >= 0)
                return 0;
        if (is_disconnect((int) -n)) {
                /* The server is gone: what it sent still goes out. */
                b->sock_eof = true;
                buffer_clear(&b->rfb.to_server);
                return 0;
        }
        return log_error_errno((int) n, "Cannot write to %s's RFB socket: %m", b->profile);
}

static int read_sock(struct bridge *b) {
        size_t room = buf_room(&b->down);
        ssize_t n;

        if (room == 0)
                return 0;
        if (b->out_pipe && buffer_len(&b->down) == 0) {
                /* Server bytes pass unchanged: let the kernel move them into
                 * the viewer's pipe without a copy through us. EAGAIN may
                 * mean a full pipe, so then fall back to the buffer, whose
                 * POLLOUT waits for the viewer. */
                n = splice(b->sock, NULL, STDOUT_FILENO, NULL, BRIDGE_BUF_SIZE, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n > 0) {
                        rfb_relay_stamp(&b->rfb);
                        return 0;
                }
                if (n == 0) {
                        b->sock_eof = true;
                        return 0;
                }
                if (errno != EAGAIN && errno != EINVAL && errno != EINTR) {
                        if (errno == EPIPE)
                                return 1;
                        if (is_disconnect(errno)) {
                                b->sock_eof = true;
                                return 0;
                        }
                }
                if (errno == EINVAL)
                        b->out_pipe = false;
        }
        if (b->relay[1] >= 0 && buffer_len(&b->down) == 0) {
                if (b->relay_len >= BRIDGE_BUF_SIZE) {
                        /* A splice of 0 bytes would read as the server's EOF. */
                        b->relay_full = true;
                        return 0;
                }
                /* Into our pipe, then (write_out) out of it into the socket. */
                n = splice(b->sock, NULL, b->relay[1], NULL, BRIDGE_BUF_SIZE - b->relay_len,
                           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n > 0) {
                        b->relay_len += (size_t) n;
                        rfb_relay_stamp(&b->rfb);
                        return 0;
                }
                if (n == 0) {
                        b->sock_eof = true;
                        return 0;
                }
                if (is_disconnect(errno)) {
                        b->sock_eof = true;
                        return 0;
                }
                if (b->relay_len > 0) {
                        /* Our pipe is full (or the server had nothing
                         * more): wait for the viewer to take some. */
                        b->relay_full = true;
                        return 0;
                }
                /* Cannot splice at all (EINVAL): copy from now on. */
                if (errno != EAGAIN && errno != EINTR) {
                        b->relay[0] = safe_close(b->relay[0]);
                        b->relay[1] = safe_close(b->relay[1]);
                }
        }
        n = recv(b->sock, buffer_tail(&b->down), room > BRIDGE_READ_MAX ? BRIDGE_READ_MAX : room, 0);
        if (n < 0) {
                if (errno == EINTR || errno == EAGAIN)
                        return 0;
                if (is_disconnect(errno)) {
                        b->sock_eof = true;
                        return 0;
                }
                return log_error_errno(errno, "Cannot read from %s's RFB socket: %m", b->profile);
        }
        if (n == 0) {
                b->sock_eof = true;
                return 0;
        }
        buffer_advance(&b->down, (size_t) n);
        rfb_relay_stamp(&b->rfb);
        return 0;
}

/* The bytes in raw, through the relay into up. -EBADMSG when the client broke the protocol (already said why). */
static int feed_in(struct bridge *b) {
        size_t n = b->raw_len;
        int r;

        /* At most what rfb_relay_viewer_room() allowed when they were read: the room only grew since. */
        b->raw_len = 0;
        r = rfb_relay_feed(&b->rfb, b->raw, n);
        if (r == -EBADMSG) {
                log_error("Closing the RFB stream of %s: the viewer sent %s.", b->profile, rfb_relay_error(&b->rfb));
                return r;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot filter the RFB stream of %s: %m", b->profile);
        return 0;
}

/* -EBADMSG when the client broke the protocol (already said why). */
static int read_in(struct bridge *b, uint32_t revents) {
        size_t want;
        ssize_t n;
        int r;

        /* Bytes kept while a take settled go first; none are read meanwhile. */
        if (b->raw_len > 0 || b->settling)
                return 0;
        want = MIN(rfb_relay_viewer_room(&b->rfb), sizeof b->raw);
        if (want == 0)
                return 0;
        n = read(STDIN_FILENO, b->raw, want);
        if (n < 0) {
                if (errno == EINTR || errno == EAGAIN)
                        return 0;
                if (is_disconnect(errno)) {
                        b->in_eof = true;
                        return 0;
                }
                return log_error_errno(errno, "Cannot read from the viewer: %m");
        }
        if (n == 0) {
                b->in_eof = true;
                return 0;
        }
        b->raw_len = (size_t) n;
        /* Whatever lease change finished before these bytes were read
         * applies to them, even when poll() reported both at once or the
         * change came after poll() returned. */
        r = handle_inotify(b);
        if (r < 0)
                return r;
        if (b->evicted)
                return 0;       /* the caller ends the stream; nothing of these bytes goes on */
        /* This viewer's own take, not settled yet: they pass once it is (on_inotify). */
        if (b->settling)
                return 0;
        return feed_in(b);
}

static int set_nonblock(int fd, int *ret_flags) {
        int flags = fcntl(fd, F_GETFL);

        if (flags < 0)
                return negative_errno();
        /* A pipe holds 64 KiB by default, a fraction of one framebuffer
         * update: ask for a megabyte (refused above pipe-max-size, fine). */
        (void) fcntl(fd, F_SETPIPE_SZ, BRIDGE_BUF_SIZE);
        if (!(flags & O_NONBLOCK)) {
                if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
                        return negative_errno();
                *ret_flags = flags;
        }
        return 0;
}

/* The stream ends, with nothing more of the server's for this viewer: a human other than it took control. */
static int evict(struct bridge *b) {
        _cleanup_close_ int null = open("/dev/null", O_WRONLY | O_CLOEXEC | O_NOCTTY);

        /* Off the loop before their descriptors change under it. */
        b->out.src = sd_event_source_disable_unref(b->out.src);
        b->server.src = sd_event_source_disable_unref(b->server.src);
        /* Closed now, not at the process's end (whatever runs at exit): the
         * viewer's side sees the end at once. /dev/null takes the number, so
         * that nothing else written to stdout can reach the viewer. */
        if (null >= 0)
                (void) dup2(null, STDOUT_FILENO);
        else
                (void) close(STDOUT_FILENO);
        b->sock = safe_close(b->sock);
        log_error("Closing the RFB stream of %s: a human took control (lease epoch %llu); until they hand it back "
                  "only their viewer sees the screen (botdesk lease %s wait).", b->profile, b->evicted_epoch, b->profile);
        return EXIT_REFUSED;
}

static void bridge_exit(struct bridge *b, int status) {
        if (b->done)
                return;
        b->done = true;
        (void) sd_event_exit(b->event, status);
}

/* Wait for events on f, or (none) not at all. */
static void fd_want(struct bridge_fd *f, uint32_t events) {
        f->events = events;
        if (!f->src)
                return;
        if (events && !f->always)
                (void) sd_event_source_set_io_events(f->src, events);
        (void) sd_event_source_set_enabled(f->src, events ? SD_EVENT_ON : SD_EVENT_OFF);
}

/* After every event: the end, or what to wait for next (the relay says when each side may be read). */
static void bridge_update(struct bridge *b) {
        uint32_t server = 0;

        if (b->done)
                return;
        if (b->sock_eof && pending_out(b) == 0) {
                /* Ended by botdesk for a dump (supervisor/outside-clients.h): the viewer may connect again. */
                if (b->dirfd >= 0 && faccessat(b->dirfd, SNAPSHOT_DUMPING_FILE, F_OK, AT_SYMLINK_NOFOLLOW) >= 0)
                        log_info("Desktop %s is being snapshotted or hibernated: its RFB stream ended; connect "
                                 "again once it runs.", b->profile);
                bridge_exit(b, EXIT_OK);
                return;
        }
        /* The viewer is done sending: pass that on, once the server has everything. */
        if (b->in_eof && rfb_relay_server_pending(&b->rfb) == 0 && !b->shut_wr && !b->sock_eof) {
                (void) shutdown(b->sock, SHUT_WR);
                b->shut_wr = true;
        }

        /* While this viewer's take settles, its bytes stay unread
         * rather than dropped: its first event, sent as soon as the
         * take returned, passes once the agent's held input is up
         * (the helper's stamp is a lease event on the inotify fd). */
        fd_want(&b->in, !b->in_eof && !b->sock_eof && !b->settling && b->raw_len == 0 &&
                                        rfb_relay_viewer_readable(&b->rfb) ? EPOLLIN : 0);
        if (!b->sock_eof) {
                if (rfb_relay_server_readable(buf_room(&b->down), 1) && !b->relay_full)
                        server |= EPOLLIN;
                if (rfb_relay_server_pending(&b->rfb) > 0)
                        server |= EPOLLOUT;
        }
        fd_want(&b->server, server);
        fd_want(&b->out, pending_out(b) > 0 ? EPOLLOUT : 0);
}

/* A handler's result: -errno fails the stream, 1 ends it (the viewer went away), an eviction refuses it. */
static int dispatch(struct bridge_fd *f, uint32_t revents) {
        struct bridge *b = f->bridge;
        int r = f->handler(b, revents);

        if (b->evicted && !b->done)
                bridge_exit(b, evict(b));
        else if (r < 0)
                bridge_exit(b, EXIT_FAILED);
        else if (r > 0)
                bridge_exit(b, EXIT_OK);
        bridge_update(b);
        return 0;
}

static int on_io(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        return dispatch(userdata, revents);
}

static int on_always_ready(sd_event_source *src, void *userdata) {
        struct bridge_fd *f = userdata;

        return dispatch(f, f->events);
}

static int fd_add(struct bridge *b, struct bridge_fd *f, int fd, int (*handler)(struct bridge *b, uint32_t revents)) {
        int r;

        *f = (struct bridge_fd) { .bridge = b, .fd = fd, .handler = handler };
        r = sd_event_add_io(b->event, &f->src, fd, 0, on_io, f);
        if (r == -EPERM) {
                f->always = true;
                r = sd_event_add_defer(b->event, &f->src, on_always_ready, f);
        }
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(f->src, SD_EVENT_OFF);
}

static int on_server(struct bridge *b, uint32_t revents) {
        int r;

        if ((revents & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && rfb_relay_server_pending(&b->rfb) > 0) {
                r = write_sock(b);
                if (r < 0)
                        return r;
        }
        if ((revents & (EPOLLIN | EPOLLERR | EPOLLHUP)) && !b->sock_eof) {
                r = read_sock(b);
                if (r != 0)
                        return r;
                /* Pass it on at once: the viewer's side is usually
                 * writable, and a loop round per chunk halves the
                 * throughput. */
                return write_out(b, EPOLLOUT);
        }
        return 0;
}

static int on_inotify(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        struct bridge *b = userdata;

        if (handle_inotify(b) < 0)
                bridge_exit(b, EXIT_FAILED);
        else if (b->evicted && !b->done)
                bridge_exit(b, evict(b));
        /* Bytes kept while this viewer's take settled pass once it has. */
        else if (b->raw_len > 0 && !b->settling && feed_in(b) < 0)
                bridge_exit(b, EXIT_FAILED);
        bridge_update(b);
        return 0;
}

static int on_signal(sd_event_source *src, const struct signalfd_siginfo *si, void *userdata) {
        struct bridge *b = userdata;

        log_debug("Signal %u, closing the RFB stream of %s.", si->ssi_signo, b->profile);
        bridge_exit(b, EXIT_OK);
        return 0;
}

static int bridge_loop(struct bridge *b) {
        int r;

        r = sd_event_new(&b->event);
        /* Lease changes first: one that finished before the viewer's bytes were read applies to them. */
        if (r >= 0)
                r = sd_event_add_io(b->event, &b->inotify_src, b->inotify, EPOLLIN, on_inotify, b);
        if (r >= 0)
                r = sd_event_source_set_priority(b->inotify_src, SD_EVENT_PRIORITY_IMPORTANT);
        for (int sig = 0, sigs[] = { SIGINT, SIGTERM, SIGHUP }; r >= 0 && sig < (int) ELEMENTSOF(sigs); sig++)
                r = sd_event_add_signal(b->event, NULL, sigs[sig], on_signal, b);
        if (r >= 0)
                r = fd_add(b, &b->in, STDIN_FILENO, read_in);
        if (r >= 0)
                r = fd_add(b, &b->out, STDOUT_FILENO, write_out);
        if (r >= 0)
                r = fd_add(b, &b->server, b->sock, on_server);
        if (r < 0) {
                log_error_errno(r, "Cannot set up the RFB stream's event loop: %m");
                return EXIT_FAILED;
        }
        bridge_update(b);
        r = sd_event_loop(b->event);
        if (r < 0) {
                log_error_errno(r, "The RFB stream's event loop failed: %m");
                return EXIT_FAILED;
        }
        return r;
}

static int connect_rfb(const char *path) {
        _cleanup_close_ int fd = -EBADF;

        /* Blocking connect (a local socket answers at once), then non-blocking I/O. */
        fd = socket_connect_at(AT_FDCWD, path, SOCK_STREAM);
        if (fd < 0)
                return fd;
        if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

int verb_rfb(const struct cli_args *a) {
        const char *profile = a->operand, *viewer = a->viewer;
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_(helper_record_done) struct helper_record rec = {};
        _cleanup_(config_done) struct bd_config storage = {};
        /* Closed after the bridge, which owns the session's fd: then the front is reaped. */
        _cleanup_(remote_front_close) struct remote_front front = { .fd = -EBADF };
        _cleanup_(bridge_free) struct bridge *b = NULL;
        const struct bd_config *cfg;
        unsigned max_cut_text;
        sigset_t mask;
        int r;

        if (viewer && !lease_viewer_valid(viewer)) {
                log_error("Invalid viewer id: use 1-%d bytes without control characters.", LEASE_VIEWER_MAX);
                return EXIT_USAGE;
        }
        cfg = cli_config(a->config, profile, &storage);
        if (!cfg)
                return EXIT_USAGE;
        max_cut_text = cfg->max_cut_text;

        b = calloc(1, sizeof *b);
        if (!b) {
                log_oom();
                return EXIT_FAILED;
        }
        *b = (struct bridge) {
                .profile = profile,
                .dirfd = -EBADF,
                .sock = -EBADF,
                .inotify = -EBADF,
                .in_flags = -1,
                .out_flags = -1,
                .relay = { -EBADF, -EBADF },
                .down = BUFFER_FIXED(b->down_storage),
        };

        if (cfg->remote) {
                /* A VNC server botdesk did not start: its lease lives here, as a local desktop's. */
                if (cli_open_profile(profile, &p, &b->dirfd) < 0)
                        return EXIT_FAILED;
        } else {
                r = running_desktop_open(profile, &p, &b->dirfd);
                if (r != EXIT_OK)
                        return r;
                r = running_desktop_helper(profile, b->dirfd, &rec);
                if (r != EXIT_OK)
                        return r;
        }

        /* Watch before the first read of the lease, so that no change falls
         * in between. The path names the directory we opened, whatever
         * happens to its name. */
        b->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (b->inotify < 0) {
                log_error_errno(errno, "Cannot watch the control lease (inotify): %m");
                return EXIT_FAILED;
        }
        r = lease_watch_add(b->inotify, b->dirfd);
        if (r < 0) {
                log_error_errno(r, "Cannot watch %s for lease changes: %m", p.runtime);
                return EXIT_FAILED;
        }
        rfb_relay_init(&b->rfb, profile, viewer, b->dirfd, max_cut_text);
        rfb_relay_set_buffer(&b->rfb, b->up_storage, sizeof b->up_storage, BRIDGE_READ_MAX);
        update_input(b);
        if (b->evicted) {
                /* Before the server's socket is even opened: no byte of the screen for this viewer. */
                log_error("A human has control of desktop %s (lease epoch %llu); until they hand it back only their "
                          "viewer sees the screen. Refused (botdesk lease %s wait).", profile, b->evicted_epoch, profile);
                return EXIT_REFUSED;
        }

        if (cfg->remote) {
                r = remote_front_open(profile, cfg, b->dirfd, &front);
                if (r != EXIT_OK)
                        return r;
                b->sock = TAKE_FD(front.fd);
                if (fcntl(b->sock, F_SETFL, O_NONBLOCK) < 0) {
                        log_error_errno(errno, "Cannot use the remote desktop's session: %m");
                        return EXIT_FAILED;
                }
        } else
                b->sock = connect_rfb(p.rfb_socket);
        if (b->sock == -ENOENT || b->sock == -ECONNREFUSED) {
                log_error("Desktop %s has no RFB socket at %s yet; wait for `botdesk start %s` to return.", profile,
                          p.rfb_socket, profile);
                return EXIT_NOT_RUNNING;
        }
        if (b->sock < 0) {
                log_error_errno(b->sock, "Cannot connect to %s: %m", p.rfb_socket);
                return EXIT_FAILED;
        }

        /* Termination signals end the stream cleanly, after the flags of the
         * shared stdin/stdout are restored: blocked, and read by the loop. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
                log_error_errno(errno, "Cannot set up signal handling: %m");
                return EXIT_FAILED;
        }
        /* A viewer that goes away makes write() fail with EPIPE instead. */
        (void) signal(SIGPIPE, SIG_IGN);

        r = set_nonblock(STDIN_FILENO, &b->in_flags);
        if (r >= 0)
                r = set_nonblock(STDOUT_FILENO, &b->out_flags);
        if (r >= 0) {
                struct stat out = {};

                b->out_pipe = fstat(STDOUT_FILENO, &out) >= 0 && S_ISFIFO(out.st_mode);
                /* A socket takes no splice from a socket: a pipe in between
                 * does, as big as our buffer (or the default, fine). */
                if (!b->out_pipe && S_ISSOCK(out.st_mode) && pipe2(b->relay, O_CLOEXEC | O_NONBLOCK) >= 0)
                        (void) fcntl(b->relay[1], F_SETPIPE_SZ, BRIDGE_BUF_SIZE);
        }
        if (r < 0) {
                log_error_errno(r, "Cannot use stdin/stdout for the RFB stream (%m); are they open?");
                return EXIT_FAILED;
        }

        rfb_relay_stamp(&b->rfb);
        return bridge_loop(b);
}
