/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-browser --cdp-socket PATH -- BROWSER [ARG...]
 *
 * The dock's browser launcher. It starts the browser with
 * --remote-debugging-pipe, so DevTools are on fds 3 and 4 and never on a
 * TCP port that any local user could connect to, and relays them to a 0600
 * Unix socket at PATH, in a directory that must be private to the caller.
 * The agent attaches there to the browser a human started.
 *
 * Up to CDP_CLIENTS_MAX clients at once, each with a view of its own: the
 * relay (cdp-relay.h) attaches a browser session for each client
 * (Target.attachToBrowserTarget) and makes it the client's root
 * connection, so that two Playwright connectOverCDP() or Puppeteer clients
 * each set up auto-attach, see the targets and get the answers and events
 * of their own sessions only, never the other's; a message naming a
 * session of another client is refused. One more client gets one error
 * message naming the limit and is closed. Command ids are rewritten so
 * that late answers to a departed client never reach another one, and a
 * departed client's browser session is detached.
 *
 * The fence: PATH lies in the profile's runtime dir, beside the control
 * lease. While a human holds it, the agent must not drive the browser the
 * human may be using: every message is answered with a CDP error
 * (human_has_control, cdp-relay.h) for every client, a connection opened
 * meanwhile gets that error and is closed, the browser's events are kept
 * from the agent. The lease is watched with inotify and read again before
 * every client's bytes are taken, so that nothing sent after a take
 * reaches the browser.
 *
 * While one launcher owns PATH (its lock PATH.lock), another start of the
 * launcher runs the browser plainly: Chromium hands the request to the
 * running instance of the same profile, which opens a window and exits.
 *
 * Exits with the browser's status (128+N when it was killed by signal N).
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>

#include "cdp-relay.h"
#include "find-executable.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "snapshot.h"
#include "socket-util.h"
#include "spawn.h"
#include "util.h"

#define READ_CHUNK (256 * 1024)
/* A client that reads nothing cannot make the launcher hold the browser's
 * whole output: past this much unsent, it is dropped (a screenshot answer
 * can be large; each of the clients has this much). */
#define CLIENT_BACKLOG_MAX (512U * 1024 * 1024)
/* Stop reading a client while this much waits for the browser. */
#define BROWSER_BACKLOG_MAX (64U * 1024 * 1024)

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
static const char limit_message[] =
        "{\"error\":{\"code\":-32000,\"message\":\"Too many DevTools clients: this browser serves at most "
        STRINGIFY(CDP_CLIENTS_MAX) " at once.\"}}";
static const char fenced_message[] = "{\"error\": {\"code\": -32000, \"message\": \"" CDP_FENCE_MESSAGE "\"}}";

struct launcher;

/* A connection, in the slot the relay gave it. */
struct client {
        struct launcher *launcher;
        unsigned slot;
        int fd;                                 /* -EBADF: the slot is free */
        sd_event_source *src;
};

struct launcher {
        sd_event *event;
        struct cdp_relay relay;
        pid_t browser;
        int to_browser, from_browser;           /* our ends of the pipes */
        int listen_fd;
        struct client clients[CDP_CLIENTS_MAX];
        int lease_dir, lease_watch;             /* the socket's dir, where the lease is; inotify on it */
        sd_event_source *listen_src, *to_src, *from_src, *child_src, *lease_src;
        struct stat socket_st;                  /* what we bound, so we only unlink our own */
        const char *socket_path;
        char buf[READ_CHUNK];
};

static void client_close(struct client *c) {
        if (c->fd < 0)
                return;
        c->src = sd_event_source_disable_unref(c->src);
        c->fd = safe_close(c->fd);
        cdp_relay_client_gone(&c->launcher->relay, c->slot);
}

static void clients_close(struct launcher *l) {
        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++)
                client_close(&l->clients[i]);
}

/* After the relay worked: drop the clients it failed or that do not read, write to the others. */
static void clients_flush(struct launcher *l) {
        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++) {
                struct client *c = &l->clients[i];
                struct cdp_client *rc = &l->relay.clients[i];

                if (c->fd < 0)
                        continue;
                if (rc->error < 0) {
                        log_warning_errno(rc->error, "Dropping DevTools client %u: %m", i);
                        client_close(c);
                } else if (buffer_len(&rc->to_client) > CLIENT_BACKLOG_MAX) {
                        log_warning("Dropping DevTools client %u: it does not read its messages.", i);
                        client_close(c);
                } else if (buffer_send(c->fd, &rc->to_client) < 0)
                        client_close(c);
        }
}

/* The fence up while a human holds the lease (an unreadable one counts as a human's). */
static void fence_update(struct launcher *l) {
        struct lease lease;
        bool human;

        (void) lease_read_at(l->lease_dir, &lease);
        human = lease.holder == LEASE_HUMAN;
        if (human == l->relay.fenced)
                return;
        log_info("%s", human ? "A human has control: DevTools answer every agent message with human_has_control."
                             : "The agent has control again: DevTools pass messages to the browser.");
        /* A client the relay could not answer (out of memory) would wait
         * forever: clients_flush() drops it. */
        (void) cdp_relay_fence(&l->relay, human);
        clients_flush(l);
}

/* The desktop is about to be dumped, and CRIU cannot keep a connection from outside it: our DevTools
 * clients let go (they see the end, and connect again once it runs), and the helper told so. */
static void let_clients_go(struct launcher *l) {
        unsigned n = 0;
        int r;

        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++)
                if (l->clients[i].fd >= 0) {
                        client_close(&l->clients[i]);
                        n++;
                }
        log_info("The desktop is being dumped: %u DevTools client(s) let go.", n);
        r = write_file_atomic_at(l->lease_dir, SNAPSHOT_DUMPING_DEVTOOLS_DONE, "", 0, 0600);
        if (r < 0)
                log_warning_errno(r, "Cannot tell the helper the DevTools clients are gone: %m");
}

/* Whatever changed in the lease's dir by now: read the lease again when it may have changed. */
static void lease_changes(struct launcher *l) {
        union {
                struct inotify_event ev;
                uint8_t raw[4096];
        } buf;
        bool relevant = false, dumping = false;

        for (;;) {
                ssize_t n = read(l->lease_watch, &buf, sizeof buf);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                for (uint8_t *p = buf.raw; p < buf.raw + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;

                        if ((ev->mask & IN_Q_OVERFLOW) || (ev->len > 0 && streq(ev->name, LEASE_FILE)))
                                relevant = true;
                        if ((ev->mask & (IN_MOVED_TO | IN_CREATE)) && ev->len > 0 &&
                            streq(ev->name, SNAPSHOT_DUMPING_FILE))
                                dumping = true;
                        p += sizeof *ev + ev->len;
                }
        }
        if (relevant)
                fence_update(l);
        if (dumping)
                let_clients_go(l);
}

/* Ask for the events that have work: output pending, room for input. */
static void update_events(struct launcher *l) {
        if (l->to_src)
                (void) sd_event_source_set_enabled(l->to_src, buffer_len(&l->relay.to_browser) ? SD_EVENT_ON
                                                                                                 : SD_EVENT_OFF);
        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++) {
                uint32_t ev = 0;

                if (!l->clients[i].src)
                        continue;
                if (buffer_len(&l->relay.to_browser) < BROWSER_BACKLOG_MAX)
                        ev |= EPOLLIN;
                if (buffer_len(&l->relay.clients[i].to_client))
                        ev |= EPOLLOUT;
                (void) sd_event_source_set_io_events(l->clients[i].src, ev);
        }
}

static int on_client(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct client *c = userdata;
        struct launcher *l = c->launcher;
        int r;

        (void) s;
        if (revents & EPOLLIN) {
                ssize_t n;

                /* A take that finished before these bytes are read applies to them. */
                lease_changes(l);
                if (c->fd < 0)
                        goto done;      /* the fence's answers could not be queued: dropped */
                n = read(fd, l->buf, sizeof l->buf);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                        client_close(c);
                        goto done;
                }
                if (n > 0) {
                        r = cdp_relay_from_client(&l->relay, c->slot, l->buf, (size_t) n);
                        if (r < 0) {
                                log_warning_errno(r, "Dropping DevTools client %u: %m", c->slot);
                                client_close(c);
                                goto done;
                        }
                }
        } else if (revents & (EPOLLHUP | EPOLLERR)) {
                client_close(c);
                goto done;
        }
        if (buffer_send(fd, &l->relay.clients[c->slot].to_client) < 0)
                client_close(c);
done:
        update_events(l);
        return 0;
}

static int on_listen(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct launcher *l = userdata;
        _cleanup_close_ int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        int r, slot;

        (void) s;
        (void) revents;
        if (c < 0)
                return 0;
        lease_changes(l);
        if (l->relay.fenced) {
                (void) !send(c, fenced_message, sizeof fenced_message, MSG_NOSIGNAL | MSG_DONTWAIT);
                return 0;
        }
        slot = cdp_relay_client_open(&l->relay);
        if (slot == -EUSERS) {
                /* Tell it why before closing; it is a fresh socket with room. */
                (void) !send(c, limit_message, sizeof limit_message, MSG_NOSIGNAL | MSG_DONTWAIT);
                return 0;
        }
        if (slot < 0)
                return log_warning_errno(slot, "Cannot serve a DevTools client: %m"), 0;
        r = sd_event_add_io(l->event, &l->clients[slot].src, c, EPOLLIN, on_client, &l->clients[slot]);
        if (r < 0) {
                cdp_relay_client_gone(&l->relay, (unsigned) slot);
                update_events(l);
                return log_warning_errno(r, "Cannot watch the DevTools client: %m"), 0;
        }
        l->clients[slot].fd = TAKE_FD(c);
        update_events(l);
        return 0;
}

static int on_lease(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct launcher *l = userdata;

        (void) s;
        (void) fd;
        (void) revents;
        lease_changes(l);
        clients_flush(l);
        update_events(l);
        return 0;
}

/* Watch the lease beside the socket (dir, verified private), before its first read. */
static int lease_watch_open(struct launcher *l, const char *dir) {
        int r;

        l->lease_dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (l->lease_dir < 0)
                return negative_errno();
        l->lease_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (l->lease_watch < 0)
                return negative_errno();
        r = inotify_add_watch_fd(l->lease_watch, l->lease_dir,
                                 IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ONLYDIR);
        if (r < 0)
                return r;
        fence_update(l);
        return 0;
}

static void drain_browser(struct launcher *l) {
        for (;;) {
                ssize_t n = read(l->from_browser, l->buf, sizeof l->buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        if (n == 0 || errno != EAGAIN)
                                l->from_src = sd_event_source_disable_unref(l->from_src);
                        return;
                }
                if (cdp_relay_from_browser(&l->relay, l->buf, (size_t) n) < 0) {
                        /* A message lost: whichever client waits for it would wait forever. */
                        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++)
                                if (l->clients[i].fd >= 0)
                                        log_warning("Dropping DevTools client %u: the browser's message is too large "
                                                    "or memory ran out.", i);
                        clients_close(l);
                }
                clients_flush(l);
        }
}

static int on_from_browser(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct launcher *l = userdata;

        (void) s;
        (void) fd;
        (void) revents;
        drain_browser(l);
        clients_flush(l);
        update_events(l);
        return 0;
}

static int on_to_browser(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        struct launcher *l = userdata;

        (void) revents;
        if (buffer_send(fd, &l->relay.to_browser) < 0) {
                /* The browser closed its end: it is exiting, and its exit ends us. */
                buffer_clear(&l->relay.to_browser);
                l->to_src = sd_event_source_disable_unref(l->to_src);
                (void) s;
        }
        update_events(l);
        return 0;
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *userdata) {
        struct launcher *l = userdata;

        (void) s;
        /* Its last answers (to Browser.close, say) are still in the pipe. */
        if (l->from_src)
                drain_browser(l);
        clients_flush(l);
        l->browser = 0;
        return sd_event_exit(l->event, si->si_code == CLD_EXITED ? si->si_status : 128 + si->si_status);
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        struct launcher *l = userdata;

        (void) s;
        /* The browser is our unreaped child: its pid cannot have been reused. */
        if (l->browser > 0)
                (void) kill(l->browser, si->ssi_signo == SIGINT ? SIGINT : SIGTERM);
        return 0;
}

static int bind_private(const char *path, struct stat *ret_st) {
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_un sa;
        int r;

        r = sockaddr_un_set_path(&sa, path);
        if (r < 0)
                return r;
        /* We hold the lock: whatever is at the path is a dead launcher's. */
        if (unlink(path) < 0 && errno != ENOENT)
                return negative_errno();
        fd = socket_listen_private(path, SOCK_STREAM | SOCK_NONBLOCK, 8);
        if (fd < 0)
                return fd;
        if (stat(path, ret_st) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

static void unlink_own_socket(const struct launcher *l) {
        struct stat st;

        if (l->socket_path && stat(l->socket_path, &st) == 0 && st.st_ino == l->socket_st.st_ino &&
            st.st_dev == l->socket_st.st_dev)
                (void) unlink(l->socket_path);
}

static int usage(FILE *f, int status) {
        fputs("Usage: botdesk-browser --cdp-socket PATH -- BROWSER [ARG...]\n"
              "Start BROWSER with --remote-debugging-pipe and serve its DevTools on the Unix socket PATH\n"
              "(mode 0600, in a directory private to the caller): NUL-terminated JSON messages, up to\n"
              STRINGIFY(CDP_CLIENTS_MAX) " clients at once, each on a browser session of its own.\n",
              f);
        return status;
}

/* The browser, as given; a bare name is looked up in PATH (spawn execs a path). */
static int browser_argv(char **args, bool with_pipe, char ***ret) {
        _cleanup_strv_free_ char **argv = NULL;
        char *exe = NULL;
        int r;

        if ((r = find_executable(args[0], NULL, &exe)) < 0)
                return r;
        if ((r = strv_push(&argv, exe)) < 0)
                return r;
        /* Right after the program: Chromium stops reading switches at a bare "--". */
        if (with_pipe && (r = strv_push(&argv, strdup("--remote-debugging-pipe"))) < 0)
                return r;
        for (char **a = args + 1; *a; a++)
                if ((r = strv_push(&argv, strdup(*a))) < 0)
                        return r;
        *ret = TAKE_PTR(argv);
        return 0;
}

/* The directory of path, verified private, in *ret (new). */
static int socket_dir_private(const char *path, char **ret) {
        _cleanup_free_ char *dir = strdup(path);
        char *slash;
        int r;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return -EINVAL;
        *slash = 0;
        r = dir_is_private(dir, getuid());
        if (r < 0)
                return r;
        *ret = TAKE_PTR(dir);
        return 0;
}

static void launcher_done(struct launcher *l) {
        clients_close(l);
        l->listen_src = sd_event_source_disable_unref(l->listen_src);
        l->to_src = sd_event_source_disable_unref(l->to_src);
        l->from_src = sd_event_source_disable_unref(l->from_src);
        l->child_src = sd_event_source_disable_unref(l->child_src);
        l->lease_src = sd_event_source_disable_unref(l->lease_src);
        l->lease_watch = safe_close(l->lease_watch);
        l->lease_dir = safe_close(l->lease_dir);
        unlink_own_socket(l);
        l->listen_fd = safe_close(l->listen_fd);
        l->to_browser = safe_close(l->to_browser);
        l->from_browser = safe_close(l->from_browser);
        cdp_relay_done(&l->relay);
        l->event = sd_event_unref(l->event);
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "cdp-socket", required_argument, NULL, 's' },
                {}
        };
        _cleanup_(launcher_done) struct launcher l = {
                .to_browser = -EBADF, .from_browser = -EBADF, .listen_fd = -EBADF,
                .lease_dir = -EBADF, .lease_watch = -EBADF,
        };
        _cleanup_strv_free_ char **cmd = NULL;
        _cleanup_free_ char *lock_path = NULL, *dir = NULL;
        _cleanup_close_ int lock = -EBADF;
        struct spawn_opts o = SPAWN_OPTS_INIT;
        int to[2] = { -EBADF, -EBADF }, from[2] = { -EBADF, -EBADF };
        extern char **environ;
        sigset_t mask;
        int c, r;

        log_setup("botdesk-browser");
        for (unsigned i = 0; i < CDP_CLIENTS_MAX; i++)
                l.clients[i] = (struct client) { .launcher = &l, .slot = i, .fd = -EBADF };
        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        return usage(stdout, EXIT_SUCCESS);
                case 's':
                        l.socket_path = optarg;
                        break;
                default:
                        return usage(stderr, 2);
                }
        }
        if (!l.socket_path || l.socket_path[0] != '/' || optind >= argc)
                return usage(stderr, 2);

        lock_path = strdup_printf("%s.lock", l.socket_path);
        if (!lock_path)
                return EXIT_FAILURE;
        r = socket_dir_private(l.socket_path, &dir);
        if (r < 0) {
                log_error_errno(r, "The directory of %s is not private to uid %u (%m); refusing to serve DevTools there.",
                                l.socket_path, (unsigned) getuid());
                return EXIT_FAILURE;
        }
        lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
        if (lock < 0) {
                log_error_errno(errno, "Cannot open %s: %m", lock_path);
                return EXIT_FAILURE;
        }
        if (flock(lock, LOCK_EX | LOCK_NB) < 0) {
                if (errno != EWOULDBLOCK) {
                        log_error_errno(errno, "Cannot lock %s: %m", lock_path);
                        return EXIT_FAILURE;
                }
                /* The browser runs, served by another launcher: hand over. */
                r = browser_argv(argv + optind, false, &cmd);
                if (r < 0) {
                        log_error_errno(r, "Cannot find %s: %m", argv[optind]);
                        return 127;
                }
                execve(cmd[0], cmd, environ);
                log_error_errno(errno, "Cannot execute %s: %m", cmd[0]);
                return 127;
        }
        r = browser_argv(argv + optind, true, &cmd);
        if (r < 0) {
                log_error_errno(r, "Cannot find %s: %m", argv[optind]);
                return 127;
        }

        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        (void) signal(SIGPIPE, SIG_IGN);
        cdp_relay_init(&l.relay);
        r = lease_watch_open(&l, dir);
        if (r < 0) {
                log_error_errno(r, "Cannot watch the control lease in %s: %m", dir);
                return EXIT_FAILURE;
        }

        l.listen_fd = bind_private(l.socket_path, &l.socket_st);
        if (l.listen_fd < 0) {
                log_error_errno(l.listen_fd, "Cannot listen on %s: %m", l.socket_path);
                return EXIT_FAILURE;
        }
        if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
                log_error_errno(errno, "Cannot make the DevTools pipes: %m");
                return EXIT_FAILURE;
        }
        o.argv = cmd;
        o.envp = environ;
        o.pipe_fds[0] = to[0];
        o.pipe_fds[1] = from[1];
        o.stdin_fd = STDIN_FILENO;
        r = spawn(&o, &l.browser);
        safe_close(to[0]);
        safe_close(from[1]);
        l.to_browser = to[1];
        l.from_browser = from[0];
        if (r < 0) {
                log_error_errno(r, "Cannot start %s: %m", cmd[0]);
                return r == -ENOENT ? 127 : 126;
        }
        if (fcntl(l.to_browser, F_SETFL, O_NONBLOCK) < 0 || fcntl(l.from_browser, F_SETFL, O_NONBLOCK) < 0)
                return log_error_errno(errno, "Cannot set up the DevTools pipes: %m"), EXIT_FAILURE;

        if ((r = sd_event_default(&l.event)) < 0 ||
            (r = sd_event_add_child(l.event, &l.child_src, l.browser, WEXITED, on_child, &l)) < 0 ||
            (r = sd_event_add_signal(l.event, NULL, SIGTERM, on_signal, &l)) < 0 ||
            (r = sd_event_add_signal(l.event, NULL, SIGINT, on_signal, &l)) < 0 ||
            (r = sd_event_add_signal(l.event, NULL, SIGHUP, on_signal, &l)) < 0 ||
            (r = sd_event_add_io(l.event, &l.lease_src, l.lease_watch, EPOLLIN, on_lease, &l)) < 0 ||
            (r = sd_event_add_io(l.event, &l.listen_src, l.listen_fd, EPOLLIN, on_listen, &l)) < 0 ||
            (r = sd_event_add_io(l.event, &l.from_src, l.from_browser, EPOLLIN, on_from_browser, &l)) < 0 ||
            (r = sd_event_add_io(l.event, &l.to_src, l.to_browser, EPOLLOUT, on_to_browser, &l)) < 0) {
                log_error_errno(r, "Cannot set up the event loop: %m");
                (void) kill(l.browser, SIGTERM);
                return EXIT_FAILURE;
        }
        /* The child exit comes after every pipe event of the same iteration. */
        (void) sd_event_source_set_priority(l.child_src, SD_EVENT_PRIORITY_IDLE);
        update_events(&l);

        r = sd_event_loop(l.event);
        if (r < 0) {
                log_error_errno(r, "The event loop failed: %m");
                if (l.browser > 0)
                        (void) kill(l.browser, SIGTERM);
                return EXIT_FAILURE;
        }
        return r;
}
