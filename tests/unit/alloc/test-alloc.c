/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Display allocation against fixtures built at run time: a lock dir standing
 * in for /tmp, a /proc/net/unix table, a proc root whose PID/stat files say
 * "running" or "zombie", and a reservation dir. The real /proc serves for the
 * test's own pid and for a child that was reaped.
 */

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "fixture.h"
#include "tap.h"
#include "alloc.h"
#include "procfs.h"
#include "util.h"

/* Fixture pids: see make_proc_root(). */
#define PID_RUNNING 100
#define PID_ZOMBIE 101
#define PID_PAREN 102
#define PID_DEAD_X 103
#define PID_MISSING 104

static char base[PATH_MAX];
static char *lock_dir, *sock_dir, *proc_dir, *res_dir, *unix_path, *run_dir;
static struct alloc_env env;

static const char unix_header[] = "Num       RefCount Protocol Flags    Type St Inode Path\n";

static void write_at(const char *dir, const char *name, const char *text) {
        _cleanup_free_ char *path = path_at(dir, name);
        FILE *f;

        f = fopen(path, "we");
        if (!f)
                die(path);
        fputs(text, f);
        if (fclose(f) != 0)
                die(path);
}

static bool exists_at(const char *dir, const char *name) {
        _cleanup_free_ char *path = path_at(dir, name);
        struct stat st;

        return lstat(path, &st) == 0;
}

static void write_lock(unsigned n, const char *text) {
        char name[32];

        snprintf(name, sizeof(name), ".X%u-lock", n);
        write_at(lock_dir, name, text);
}

static void write_lock_pid(unsigned n, int pid) {
        char text[32];

        /* What X itself writes. */
        snprintf(text, sizeof(text), "%10d\n", pid);
        write_lock(n, text);
}

static bool lock_exists(unsigned n) {
        char name[32];

        snprintf(name, sizeof(name), ".X%u-lock", n);
        return exists_at(lock_dir, name);
}

/* The fake /proc/net/unix: a header plus one line per path ("" = no path). */
static void set_unix_table(const char *const *paths) {
        unsigned inode = 30000;
        FILE *f;

        f = fopen(unix_path, "we");
        if (!f)
                die(unix_path);
        fputs(unix_header, f);
        for (const char *const *p = paths; p && *p; p++)
                fprintf(f, "0000000000000000: 00000002 00000000 00010000 0001 01 %u%s%s\n",
                        inode++, **p ? " " : "", *p);
        if (fclose(f) != 0)
                die(unix_path);
}

/* Every test starts from an empty host: no locks, no sockets, no reservations. */
static void reset(void) {
        dir_empty(lock_dir);
        if (mkdir(sock_dir, 01777) < 0)
                die(sock_dir);
        dir_empty(res_dir);
        set_unix_table(NULL);
        env = (struct alloc_env) {
                .lock_dir = lock_dir,
                .proc_net_unix = unix_path,
                .reservation_dir = res_dir,
                .proc_root = proc_dir,
        };
}

static void make_proc_entry(int pid, const char *comm, char state) {
        _cleanup_free_ char *dir = NULL;
        char text[256];

        snprintf(text, sizeof(text), "%d", pid);
        dir = path_at(proc_dir, text);
        if (mkdir(dir, 0755) < 0)
                die(dir);
        snprintf(text, sizeof(text), "%d (%s) %c 1 %d %d 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 4242 1000000 300\n",
                 pid, comm, state, pid, pid);
        write_at(dir, "stat", text);
}

static void make_fixture(void) {
        scratch_dir_make(base, sizeof base, "test-alloc");

        lock_dir = path_at(base, "lock");
        sock_dir = path_at(lock_dir, ".X11-unix");
        proc_dir = path_at(base, "proc");
        res_dir = path_at(base, "reservations");
        unix_path = path_at(base, "net-unix");
        run_dir = path_at(base, "run");

        if (mkdir(lock_dir, 01777) < 0 || mkdir(proc_dir, 0755) < 0 ||
            mkdir(res_dir, 0755) < 0 || mkdir(run_dir, 0700) < 0)
                die("mkdir");

        make_proc_entry(PID_RUNNING, "Xvnc", 'S');
        make_proc_entry(PID_ZOMBIE, "Xvnc", 'Z');
        /* comm may hold ") Z": only the last ')' ends it. */
        make_proc_entry(PID_PAREN, "evil) Z", 'S');
        make_proc_entry(PID_DEAD_X, "Xvnc", 'X');
}

/* Leave a socket file behind the way a killed X server does. */
static void make_socket_file(unsigned n) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        if (strlen(sock_dir) > sizeof(sa.sun_path) - 16) {
                errno = ENAMETOOLONG;
                die(sock_dir);
        }
        /* The precision only quiets -Wformat-truncation; the length was checked. */
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%.*s/X%u", (int) (sizeof(sa.sun_path) - 16), sock_dir, n);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                die(sa.sun_path);
        close(fd);
}

static bool socket_file_exists(unsigned n) {
        char name[16];

        snprintf(name, sizeof(name), "X%u", n);
        return exists_at(sock_dir, name);
}

static void test_pid_alive(void) {
        tap_ok(pid_alive("/proc", getpid()), "the test's own pid is alive in the real /proc");
        tap_ok(!pid_alive("/proc", reaped_pid()), "a child that exited and was reaped is dead");
        tap_ok(pid_alive(proc_dir, PID_RUNNING), "a sleeping process is alive");
        tap_ok(!pid_alive(proc_dir, PID_ZOMBIE), "a zombie is dead");
        tap_ok(!pid_alive(proc_dir, PID_DEAD_X), "a task in state X is dead");
        tap_ok(!pid_alive(proc_dir, PID_MISSING), "a pid without a proc entry is dead");
        tap_ok(pid_alive(proc_dir, PID_PAREN), "a comm containing \") Z\" does not hide the real state");
        tap_ok(!pid_alive(proc_dir, 0) && !pid_alive(proc_dir, -1) && !pid_alive("/proc", 0),
               "pid 0 and negative pids are never alive");
}

static void test_sockets(void) {
        reset();
        set_unix_table((const char *const[]) { "@/tmp/.X11-unix/X200", "", NULL });
        TAP_EQ_INT(display_in_use(&env, 200), 1, "an abstract socket bound for :200 holds :200");
        TAP_EQ_INT(display_in_use(&env, 20), 0, "a socket bound for :200 does not make :20 in use");
        TAP_EQ_INT(display_in_use(&env, 2), 0, "a socket bound for :200 does not make :2 in use");

        set_unix_table((const char *const[]) { "/tmp/.X11-unix/X2", NULL });
        TAP_EQ_INT(display_in_use(&env, 2), 1, "a path socket bound for :2 holds :2");
        TAP_EQ_INT(display_in_use(&env, 20), 0, "a socket bound for :2 does not make :20 in use");

        set_unix_table((const char *const[]) { "@/tmp/.X11-unix/X020", "/tmp/.X11-unix/X20x",
                                               "/tmp/.X11-unix/X", "/home/u/tmp/.X11-unix/X20",
                                               "@/tmp/.X11-unix/X20/", NULL });
        TAP_EQ_INT(display_in_use(&env, 20), 0, "only the exact socket name of :20 counts, not X020, X20x or other dirs");

        set_unix_table((const char *const[]) { "", "@/tmp/.X11-unix/X21", "/tmp/.X11-unix/X22", "", NULL });
        TAP_EQ_INT(display_in_use(&env, 21), 1, "an abstract X socket counts as in use");
        TAP_EQ_INT(display_in_use(&env, 22), 1, "a filesystem X socket counts as in use");
        TAP_EQ_INT(display_in_use(&env, 23), 0, "lines without a path are ignored");
        TAP_EQ_INT(display_pick(&env, 21, 30, -1, NULL, 0), 23, "display_pick passes over displays whose socket is bound");

        write_at(base, "net-unix", "");
        TAP_EQ_INT(display_in_use(&env, 20), 0, "an empty socket table is read without error");

        env.proc_net_unix = "/nonexistent/net/unix";
        tap_ok(display_in_use(&env, 20) < 0, "an unreadable socket table is an error, not a free display");
        tap_ok(display_pick(&env, 20, 30, -1, NULL, 0) < 0, "display_pick fails rather than guess without a socket table");
}

static void test_lock_without_socket_and_socket_without_lock(void) {
        reset();
        set_unix_table((const char *const[]) { "@/tmp/.X11-unix/X20", NULL });
        tap_ok(!lock_exists(20), "fixture: :20 has no lock file");
        TAP_EQ_INT(display_in_use(&env, 20), 1, "a server whose lock file was removed still holds its display through its socket");

        reset();
        write_lock_pid(21, PID_RUNNING);
        TAP_EQ_INT(display_in_use(&env, 21), 1, "a lock naming a live process holds the display without any socket");
        TAP_EQ_INT(display_in_use(&env, 22), 0, "a display with no lock, socket or reservation is free");
}

static void test_stale_locks(void) {
        static const struct {
                const char *what;
                const char *text;
                size_t len;
        } garbage[] = {
                { "an empty lock",                     "",                        0 },
                { "a lock holding only a newline",     "\n",                      1 },
                { "a lock holding a word",             "junk\n",                  5 },
                { "a lock naming pid 0",               "         0\n",           11 },
                { "a lock naming a negative pid",      "        -5\n",           11 },
                { "a lock holding two numbers",        "12 34\n",                 6 },
                { "a lock with junk after the pid",    "  100x\n",                7 },
                { "a lock with a second newline",      "100\n\n",                5 },
                { "a lock indented with a tab",        "\t100\n",                5 },
                { "a lock with a plus sign",           "+100\n",                  5 },
                { "a lock naming a pid beyond int",    "99999999999999999999\n", 21 },
                { "a lock with a NUL byte",            "100\0\n",                5 },
        };
        pid_t dead = reaped_pid();

        reset();
        env.proc_root = "/proc";
        write_lock_pid(20, dead);
        make_socket_file(20);
        TAP_EQ_INT(display_in_use(&env, 20), 0, "a lock naming a dead pid does not hold the display");
        TAP_EQ_INT(display_pick(&env, 20, 29, -1, NULL, 0), 20, "display_pick reclaims a display whose lock names a dead pid");
        tap_ok(!lock_exists(20), "the dead server's lock file is removed from disk");
        tap_ok(!socket_file_exists(20), "the dead server's unbound socket file is removed as well");

        reset();
        write_lock_pid(20, PID_ZOMBIE);
        TAP_EQ_INT(display_remove_stale_lock(&env, 20), 1, "a zombie's lock is removed");
        tap_ok(!lock_exists(20), "a zombie's lock file is gone from disk");

        reset();
        write_lock_pid(20, PID_ZOMBIE);
        TAP_EQ_INT(display_pick(&env, 20, 29, -1, NULL, 0), 20, "display_pick reclaims a zombie's display");

        for (size_t i = 0; i < ELEMENTSOF(garbage); i++) {
                _cleanup_free_ char *name = path_at(lock_dir, ".X20-lock");
                int fd;

                reset();
                fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
                if (fd < 0 || write(fd, garbage[i].text, garbage[i].len) != (ssize_t) garbage[i].len)
                        die(name);
                close(fd);
                TAP_EQ_INT(display_in_use(&env, 20), 0, "%s does not hold the display", garbage[i].what);
                TAP_EQ_INT(display_pick(&env, 20, 29, -1, NULL, 0), 20, "%s is reclaimed by display_pick", garbage[i].what);
                tap_ok(!lock_exists(20), "%s is removed from disk", garbage[i].what);
        }

        reset();
        write_lock_pid(20, PID_MISSING);
        make_socket_file(20);
        set_unix_table((const char *const[]) { "/tmp/.X11-unix/X20", NULL });
        TAP_EQ_INT(display_remove_stale_lock(&env, 20), 0, "a dead-pid lock is left alone while its display's socket is bound");
        tap_ok(lock_exists(20) && socket_file_exists(20), "a bound display keeps its lock and socket files");

        reset();
        TAP_EQ_INT(display_remove_stale_lock(&env, 20), 0, "removing the stale lock of a display without a lock does nothing");
}

static void test_accepted_lock_formats(void) {
        static const struct {
                const char *what;
                const char *text;
        } good[] = {
                { "X's own right-aligned format",           "       100\n" },
                { "a bare pid and newline",                 "100\n" },
                { "a bare pid without newline",             "100" },
                { "a pid after spaces, without newline",    "  100" },
        };

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                reset();
                write_lock(20, good[i].text);
                TAP_EQ_INT(display_in_use(&env, 20), 1, "a lock in %s naming a live pid holds the display", good[i].what);
        }
}

static void test_live_and_foreign_locks(void) {
        _cleanup_free_ char *target = path_at(base, "target");
        _cleanup_free_ char *lock_path = path_at(lock_dir, ".X20-lock");
        char buf[64] = {};
        FILE *f;

        reset();
        env.proc_root = "/proc";
        write_lock_pid(20, getpid());
        make_socket_file(20);
        TAP_EQ_INT(display_remove_stale_lock(&env, 20), 0, "a live server's lock is not removed");
        tap_ok(lock_exists(20) && socket_file_exists(20), "a live server's lock and socket files stay on disk");
        TAP_EQ_INT(display_pick(&env, 20, 29, 20, NULL, 0), 21, "display_pick passes over a live lock, even when preferred");
        tap_ok(lock_exists(20), "display_pick leaves a live lock in place");

        /* Someone plants a symlink in /tmp: it must be neither followed nor removed. */
        reset();
        write_at(base, "target", "       104\n");
        if (symlink(target, lock_path) < 0)
                die(lock_path);
        TAP_EQ_INT(display_in_use(&env, 20), 1, "a symlink in place of a lock file counts as in use");
        TAP_EQ_INT(display_remove_stale_lock(&env, 20), 0, "a symlinked lock is not removed");
        TAP_EQ_INT(display_pick(&env, 20, 29, -1, NULL, 0), 21, "display_pick passes over a symlinked lock");
        f = fopen(target, "re");
        if (f) {
                if (!fgets(buf, sizeof(buf), f))
                        buf[0] = '\0';
                fclose(f);
        }
        tap_ok(lock_exists(20) && streq(buf, "       104\n"), "the symlink and its target are untouched");
        unlink(target);

        reset();
        if (mkfifo(lock_path, 0644) < 0)
                die(lock_path);
        TAP_EQ_INT(display_in_use(&env, 20), 1, "a FIFO in place of a lock file counts as in use (and does not hang)");
        TAP_EQ_INT(display_remove_stale_lock(&env, 20), 0, "a FIFO lock is not removed");

        reset();
        if (mkdir(lock_path, 0755) < 0)
                die(lock_path);
        TAP_EQ_INT(display_in_use(&env, 20), 1, "a directory in place of a lock file counts as in use");
}

static void test_pick(void) {
        reset();
        TAP_EQ_INT(display_pick(&env, 20, 89, 42, NULL, 0), 42, "the recorded display is reused when free");
        TAP_EQ_INT(display_pick(&env, 20, 89, -1, NULL, 0), 20, "without a recorded display the lowest free one is picked");

        write_lock_pid(42, PID_RUNNING);
        TAP_EQ_INT(display_pick(&env, 20, 89, 42, NULL, 0), 20, "the recorded display is passed over when taken");

        TAP_EQ_INT(display_pick(&env, 20, 89, 90, NULL, 0), 20, "a recorded display above the band is ignored");
        TAP_EQ_INT(display_pick(&env, 20, 89, 5, NULL, 0), 20, "a recorded display below the band is ignored");

        TAP_EQ_INT(display_pick(&env, 20, 89, -1, (const unsigned[]) { 20, 21 }, 2), 22,
                   "displays in the skip list are never picked");
        TAP_EQ_INT(display_pick(&env, 20, 89, 30, (const unsigned[]) { 30, 20 }, 2), 21,
                   "a recorded display in the skip list is not picked");

        reset();
        write_lock_pid(20, PID_RUNNING);
        write_lock_pid(21, PID_RUNNING);
        set_unix_table((const char *const[]) { "@/tmp/.X11-unix/X22", NULL });
        TAP_EQ_INT(display_pick(&env, 20, 22, 21, NULL, 0), -EBUSY, "a full band gives -EBUSY");
        TAP_EQ_INT(display_pick(&env, 23, 24, -1, (const unsigned[]) { 23, 24 }, 2), -EBUSY,
                   "a band entirely skipped gives -EBUSY");
        TAP_EQ_INT(display_pick(&env, 23, 23, -1, NULL, 0), 23, "a band of one free display gives that display");
        TAP_EQ_INT(display_pick(&env, 30, 20, -1, NULL, 0), -EINVAL, "a band with min above max is refused");
}

static void test_reservations(void) {
        _cleanup_free_ char *path = path_at(res_dir, "30");
        char buf[64] = {};

        reset();
        write_at(res_dir, "20", "100\n");
        write_at(res_dir, "21", "104\n");
        write_at(res_dir, "22", "session");
        write_at(res_dir, "23", "");
        TAP_EQ_INT(display_in_use(&env, 20), 1, "a reservation naming a live pid holds the display");
        TAP_EQ_INT(display_in_use(&env, 21), 0, "a reservation naming a dead pid does not hold the display");
        TAP_EQ_INT(display_in_use(&env, 22), 1, "a reservation that is not a pid (logind tier) holds the display");
        TAP_EQ_INT(display_in_use(&env, 23), 1, "an empty reservation holds the display");
        TAP_EQ_INT(display_pick(&env, 20, 29, -1, NULL, 0), 21, "display_pick takes a display whose reservation is dead");
        tap_ok(!exists_at(res_dir, "21"), "display_pick removes the dead reservation");
        tap_ok(exists_at(res_dir, "20") && exists_at(res_dir, "22"), "display_pick keeps live and logind reservations");

        /* What a helper asks once its server has claimed a number. */
        write_lock_pid(24, PID_RUNNING);
        TAP_EQ_INT(display_reserved(&env, 20), 1, "display_reserved: a live pid's reservation holds the display");
        TAP_EQ_INT(display_reserved(&env, 22), 1, "display_reserved: so does a logind marker");
        TAP_EQ_INT(display_reserved(&env, 24), 0, "display_reserved looks at reservations only, not X's lock");
        TAP_EQ_INT(display_reserved(&env, 25), 0, "display_reserved: no reservation, not reserved");

        env.reservation_dir = NULL;
        TAP_EQ_INT(display_in_use(&env, 22), 0, "without a reservation dir reservations are not consulted");
        env.reservation_dir = "/nonexistent/reservations";
        TAP_EQ_INT(display_in_use(&env, 22), 0, "a missing reservation dir means no reservations");

        /* A reservation of the live test process, as a reservation file is written. */
        reset();
        env.proc_root = "/proc";
        snprintf(buf, sizeof(buf), "%d\n", (int) getpid());
        write_at(res_dir, "30", buf);
        TAP_EQ_INT(display_in_use(&env, 30), 1, "a live pid's reservation holds the display");
        if (unlinkat(AT_FDCWD, path, 0) < 0)
                abort();
        TAP_EQ_INT(display_in_use(&env, 30), 0, "an unreserved display is free again");
}

static void test_lock_path(void) {
        _cleanup_free_ char *want = NULL;
        char buf[PATH_MAX];
        struct stat st;
        bool trusted = geteuid() == 0 && lstat("/run/botdesk", &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
                       !(st.st_mode & 022);

        want = trusted ? strdup("/run/botdesk/alloc.lock") : path_at(run_dir, "alloc.lock");
        TAP_EQ_STR(alloc_lock_path(run_dir, buf, sizeof(buf)), want,
                   trusted ? "root's lock lives in a root-owned /run/botdesk"
                           : geteuid() == 0 ? "without a root-owned /run/botdesk root's lock lives in the runtime base"
                                            : "a user's lock lives in its own runtime base, never in /run/botdesk");
        tap_ok(!alloc_lock_path(run_dir, buf, 8), "a lock path that does not fit the buffer is refused");
}

static void test_lock_serialises(void) {
        char path[PATH_MAX], c = 0;
        int to_parent[2], to_child[2], fd, r;
        struct stat st;
        pid_t child;

        if (!alloc_lock_path(run_dir, path, sizeof(path)))
                die("alloc_lock_path");
        if (pipe2(to_parent, O_CLOEXEC) < 0 || pipe2(to_child, O_CLOEXEC) < 0)
                die("pipe");

        child = fork();
        if (child < 0)
                die("fork");
        if (child == 0) {
                int lock = alloc_lock_take(run_dir, ALLOC_LOCK_TIMEOUT_USEC, NULL);

                c = lock >= 0 ? 'L' : 'E';
                if (write(to_parent[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
                        _exit(2);
                _exit(lock >= 0 ? 0 : 1);
        }

        if (read(to_parent[0], &c, 1) != 1)
                die("read");
        tap_ok(c == 'L', "a child takes the allocation lock");

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        r = fd >= 0 ? flock(fd, LOCK_EX | LOCK_NB) : -1;
        tap_ok(r < 0 && errno == EWOULDBLOCK, "while the child holds the allocation lock another process cannot take it");

        if (write(to_child[1], &c, 1) != 1)
                die("write");
        waitpid(child, NULL, 0);
        r = fd >= 0 ? flock(fd, LOCK_EX | LOCK_NB) : -1;
        tap_ok(r == 0, "the allocation lock is free once its holder has exited");
        if (fd >= 0)
                close(fd);

        fd = alloc_lock_take(run_dir, ALLOC_LOCK_TIMEOUT_USEC, NULL);
        tap_ok(fd >= 0, "alloc_lock_take takes a free lock");
        tap_ok(fd > 2 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "the lock fd is close-on-exec and above stdio");
        if (startswith(path, run_dir))
                tap_ok(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) == 0,
                       "the per-user lock file is a private regular file");
        else
                tap_ok(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0,
                       "the host-wide lock file is a root-owned regular file");
        safe_close(fd);

        for (int i = 0; i < 2; i++) {
                close(to_parent[i]);
                close(to_child[i]);
        }
}

struct lock_take {
        const char *path;
        bool read_only;
};

static int take_lock(void *userdata) {
        const struct lock_take *l = userdata;
        /* Read-only, as another user would have to open root's lock. */
        int fd = open(l->path, (l->read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);

        return fd >= 0 && flock(fd, LOCK_EX) == 0 ? 0 : -errno;
}

/* A child that takes path's flock, says so, and holds it for hold_ms (-1: until killed). */
static pid_t lock_holder(const char *path, int hold_ms, bool read_only) {
        return fork_holder(take_lock, &(struct lock_take) { .path = path, .read_only = read_only }, hold_ms);
}

static void test_lock_deadline(void) {
        char path[PATH_MAX];
        unsigned long long t0, elapsed;
        struct stat st, before;
        pid_t holder;
        int fd;

        if (!alloc_lock_path(run_dir, path, sizeof(path)))
                die("alloc_lock_path");
        if (!startswith(path, run_dir)) {
                tap_ok(1, "a lock held forever makes alloc_lock_take fail at its deadline # SKIP /run/botdesk is in use");
                return;
        }
        safe_close(alloc_lock_take(run_dir, ALLOC_LOCK_TIMEOUT_USEC, NULL)); /* creates it */

        holder = lock_holder(path, -1, true);
        t0 = now_usec();
        fd = alloc_lock_take(run_dir, 400 * 1000ULL, NULL);
        elapsed = now_usec() - t0;
        TAP_EQ_INT(fd, -ETIMEDOUT, "a lock held forever (through a read-only fd) gives -ETIMEDOUT at the deadline");
        tap_ok(elapsed >= 400 * 1000ULL && elapsed < 2 * 1000 * 1000ULL,
               "the wait lasted the 0.4 s deadline, no more (%.3f s)", (double) elapsed / 1e6);
        safe_close(fd);
        kill(holder, SIGKILL);
        waitpid(holder, NULL, 0);

        holder = lock_holder(path, 300, false);
        t0 = now_usec();
        fd = alloc_lock_take(run_dir, 5 * 1000 * 1000ULL, NULL);
        elapsed = now_usec() - t0;
        tap_ok(fd >= 0, "a lock released within the deadline is taken");
        tap_ok(elapsed < 1500 * 1000ULL, "once its holder has gone, at once (%.3f s after a 0.3 s hold)",
               (double) elapsed / 1e6);
        safe_close(fd);
        waitpid(holder, NULL, 0);

        /* A stop signal ends the wait, and stays pending for its handler. */
        {
                sigset_t cancel, old, pending;
                pid_t self = getpid(), poker;

                sigemptyset(&cancel);
                sigaddset(&cancel, SIGUSR2);
                sigprocmask(SIG_BLOCK, &cancel, &old);
                holder = lock_holder(path, -1, false);
                poker = fork();
                if (poker == 0) {
                        usleep(200 * 1000);
                        kill(self, SIGUSR2);
                        _exit(0);
                }
                t0 = now_usec();
                fd = alloc_lock_take(run_dir, 5 * 1000 * 1000ULL, &cancel);
                elapsed = now_usec() - t0;
                TAP_EQ_INT(fd, -ECANCELED, "a cancel signal ends the wait for a held lock");
                tap_ok(elapsed < 1500 * 1000ULL, "at once (%.3f s after the signal was sent at 0.2 s)",
                       (double) elapsed / 1e6);
                tap_ok(sigpending(&pending) == 0 && sigismember(&pending, SIGUSR2),
                       "and the signal is left pending for the caller's own handling");
                safe_close(fd);
                waitpid(poker, NULL, 0);
                {
                        struct timespec zero = {};
                        (void) sigtimedwait(&cancel, NULL, &zero);
                }
                sigprocmask(SIG_SETMASK, &old, NULL);
                kill(holder, SIGKILL);
                waitpid(holder, NULL, 0);
        }

        /* An old install's 0644 lock: someone holds it for ever through an
         * fd opened back then. The owner renews the file and goes on. */
        if (chmod(path, 0644) < 0 || stat(path, &before) < 0)
                die("chmod");
        holder = lock_holder(path, -1, true);
        t0 = now_usec();
        fd = alloc_lock_take(run_dir, 5 * 1000 * 1000ULL, NULL);
        elapsed = now_usec() - t0;
        tap_ok(fd >= 0, "a lock file others could open (0644), held through such an fd, does not stop its owner");
        tap_ok(elapsed < 1000 * 1000ULL, "who takes a renewed lock at once (%.3f s)", (double) elapsed / 1e6);
        tap_ok(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_ino != before.st_ino,
               "the renewed lock file is a new inode, mode 0600");
        safe_close(fd);
        kill(holder, SIGKILL);
        waitpid(holder, NULL, 0);
}

static void test_lock_refuses_symlink(void) {
        _cleanup_free_ char *target = path_at(base, "elsewhere");
        char path[PATH_MAX];
        struct stat st;

        if (!alloc_lock_path(run_dir, path, sizeof(path)) || !startswith(path, run_dir)) {
                /* A live host-wide lock is not ours to replace with a symlink. */
                tap_skip_host("a symlink in place of the lock file is refused # SKIP /run/botdesk is in use");
                return;
        }
        unlink(path);
        if (symlink(target, path) < 0)
                die(path);
        tap_ok(alloc_lock_take(run_dir, ALLOC_LOCK_TIMEOUT_USEC, NULL) < 0, "a symlink in place of the lock file is refused");
        tap_ok(lstat(target, &st) < 0 && errno == ENOENT, "the symlink's target is not created");
        unlink(path);

        if (getuid() != 0) {
                tap_skip("a per-user lock file owned by another user is refused # SKIP needs root to chown");
                return;
        }
        write_at(run_dir, "alloc.lock", "");
        if (chown(path, 65534, 65534) < 0)
                die(path);
        TAP_EQ_INT(alloc_lock_take(run_dir, ALLOC_LOCK_TIMEOUT_USEC, NULL), -EPERM, "a per-user lock file owned by another user is refused");
        unlink(path);
}

int main(void) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        make_fixture();

        test_pid_alive();
        test_sockets();
        test_lock_without_socket_and_socket_without_lock();
        test_stale_locks();
        test_accepted_lock_formats();
        test_live_and_foreign_locks();
        test_pick();
        test_reservations();
        test_lock_path();
        test_lock_serialises();
        test_lock_deadline();
        test_lock_refuses_symlink();

        scratch_dir_remove(base);
        free(lock_dir);
        free(sock_dir);
        free(proc_dir);
        free(res_dir);
        free(unix_path);
        free(run_dir);
        return tap_done();
}
