/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Display claims (alloc.h): a start holds the allocation lock for a pick
 * and a claim alone, and the claim keeps the starts that share the lock
 * off the number until the X server holds it. Against a fixture lock dir
 * and an empty /proc/net/unix table; liveness from the real /proc.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "alloc.h"
#include "fixture.h"
#include "tap.h"
#include "util.h"

#define BAND_MIN 40u
#define BAND_MAX 59u
#define RACERS 6

static char base[PATH_MAX];
static char *lock_dir, *run_dir, *claim_dir, *unix_path;
static struct alloc_env env;

static void reset(void) {
        dir_empty(lock_dir);
        dir_empty(claim_dir);
        env = (struct alloc_env) {
                .lock_dir = lock_dir,
                .proc_net_unix = unix_path,
                .proc_root = "/proc",
                .claim_dir = claim_dir,
        };
}

static bool claim_exists(unsigned n) {
        char name[16];
        _cleanup_free_ char *p = NULL;
        struct stat st;

        snprintf(name, sizeof name, "%u", n);
        p = path_at(claim_dir, name);
        return lstat(p, &st) == 0;
}

static void test_paths(void) {
        _cleanup_free_ char *want = NULL;
        char buf[PATH_MAX], lock[PATH_MAX];

        tap_ok(alloc_lock_path(run_dir, lock, sizeof lock) != NULL, "the lock has a path");
        *strrchr(lock, '/') = 0;
        want = path_at(lock, "display-claims");
        TAP_EQ_STR(alloc_claim_dir(run_dir, buf, sizeof buf), want, "the claims live beside the allocation lock");
        tap_ok(!alloc_claim_dir(run_dir, buf, 8), "a claim dir that does not fit the buffer is refused");
}

static void test_claim(void) {
        _cleanup_free_ char *text = NULL, *file = path_at(claim_dir, "40");
        char want[32];
        struct stat st;

        reset();
        TAP_EQ_INT(display_claim(&env, 40, getpid()), 0, "a start claims the number it picked");
        tap_ok(stat(claim_dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
               "... the claim dir made 0700");
        snprintf(want, sizeof want, "%d\n", (int) getpid());
        tap_ok(read_full_file_at(AT_FDCWD, file, &text, NULL, 64) >= 0 && streq(text, want),
               "... the claim names the claiming process");
        TAP_EQ_INT(display_in_use(&env, 40), 1, "a live claim holds the number");
        TAP_EQ_INT(display_pick(&env, 40, 45, -1, NULL, 0), 41, "a pick passes over the claimed number");
        TAP_EQ_INT(display_pick(&env, 40, 45, 40, NULL, 0), 41, "... even when it is the one preferred");
        TAP_EQ_INT(display_claim(&env, 40, getpid()), -EEXIST, "a second claim on it is refused");
        env.claim_dir = NULL;
        TAP_EQ_INT(display_in_use(&env, 40), 0, "claims count only for the starts that share the lock");
        env.claim_dir = claim_dir;

        TAP_EQ_INT(display_unclaim(&env, 40, getpid() + 1), 0, "another process's unclaim leaves the claim");
        tap_ok(claim_exists(40), "... which stays");
        TAP_EQ_INT(display_unclaim(&env, 40, getpid()), 1, "the claimer drops it");
        tap_ok(!claim_exists(40), "... and it is gone");
        TAP_EQ_INT(display_pick(&env, 40, 45, -1, NULL, 0), 40, "the number is free again");
        TAP_EQ_INT(display_unclaim(&env, 40, getpid()), 0, "dropping a claim that is gone is nothing");
}

static void test_stale(void) {
        char text[32];

        reset();
        TAP_EQ_INT(display_claim(&env, 40, reaped_pid()), 0, "a claim of a process that then died");
        TAP_EQ_INT(display_in_use(&env, 40), 0, "... does not hold the number");
        TAP_EQ_INT(display_pick(&env, 40, 45, -1, NULL, 0), 40, "... a pick takes it");
        tap_ok(!claim_exists(40), "... and drops the dead claim");

        snprintf(text, sizeof text, "%d\n", (int) getpid());
        if (file_put_at(claim_dir, "41", "not a pid") < 0)
                die("claim 41");
        TAP_EQ_INT(display_in_use(&env, 41), 0, "a claim that names no pid holds nothing");
        TAP_EQ_INT(display_pick(&env, 41, 45, -1, NULL, 0), 41, "... and a pick takes its number and drops it");
        tap_ok(!claim_exists(41), "... gone");
        {
                _cleanup_free_ char *p = path_at(claim_dir, "42");

                if (symlink(text, p) < 0)
                        die("symlink 42");
        }
        TAP_EQ_INT(display_in_use(&env, 42), 1, "a symlink in a claim's place is not ours: the number stays taken");
}

static void test_refused_dir(void) {
        _cleanup_free_ char *loose = path_at(base, "loose"), *link = path_at(base, "link");

        reset();
        if (mkdir(loose, 0755) < 0 || symlink(claim_dir, link) < 0)
                die("fixture dirs");
        env.claim_dir = loose;
        TAP_EQ_INT(display_claim(&env, 40, getpid()), -EPERM, "a claim dir others may enter is refused");
        env.claim_dir = link;
        TAP_EQ_INT(display_claim(&env, 40, getpid()), -EPERM, "a claim dir that is a symlink is refused");
}

/*
 * RACERS processes start at once as supervisors do: lock, pick, claim,
 * unlock, then hold the number as a slow X server would. Each must get a
 * number of its own, and none may hold the lock across the hold.
 */
static void test_race(void) {
        pid_t pids[RACERS];
        int fds[RACERS][2];
        unsigned got[RACERS];
        bool distinct = true, all = true;

        reset();
        for (size_t i = 0; i < RACERS; i++) {
                if (pipe2(fds[i], O_CLOEXEC) < 0)
                        die("pipe");
                pids[i] = fork();
                if (pids[i] < 0)
                        die("fork");
                if (pids[i] == 0) {
                        /* alloc_lock_take() is test-alloc's; as root it would be the host's lock. */
                        _cleanup_free_ char *path = path_at(base, "alloc.lock");
                        int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600), n = -1;

                        if (lock >= 0 && flock(lock, LOCK_EX) >= 0 && (n = display_pick(&env, BAND_MIN, BAND_MAX, -1, NULL, 0)) >= 0 &&
                            display_claim(&env, (unsigned) n, getpid()) < 0)
                                n = -1;
                        safe_close(lock);
                        (void) write_all(fds[i][1], &n, sizeof n);
                        pause();        /* the X server's start, as long as the test wants */
                        _exit(0);
                }
                close(fds[i][1]);
        }
        for (size_t i = 0; i < RACERS; i++) {
                int n = -1;

                if (read(fds[i][0], &n, sizeof n) != (ssize_t) sizeof n || n < 0)
                        all = false;
                got[i] = (unsigned) n;
                close(fds[i][0]);
        }
        for (size_t i = 0; i < RACERS; i++)
                for (size_t j = i + 1; j < RACERS; j++)
                        distinct = distinct && got[i] != got[j];
        tap_ok(all, "%d starts at once each picked and claimed a number, the lock released after each", RACERS);
        tap_ok(all && distinct, "... every number their own, while all of them still hold it");
        for (size_t i = 0; i < RACERS; i++) {
                (void) kill(pids[i], SIGKILL);
                (void) waitpid(pids[i], NULL, 0);
        }
        TAP_EQ_INT(display_pick(&env, BAND_MIN, BAND_MAX, -1, NULL, 0), (long long) BAND_MIN,
                   "once they died, their claims hold nothing");
}

int main(void) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        scratch_dir_make(base, sizeof base, "test-alloc-claims");
        lock_dir = path_at(base, "lock");
        run_dir = path_at(base, "run");
        unix_path = path_at(base, "net-unix");
        if (mkdir(lock_dir, 01777) < 0 || mkdir(run_dir, 0700) < 0 ||
            file_put_at(base, "net-unix", "Num       RefCount Protocol Flags    Type St Inode Path\n") < 0)
                die("fixture");
        claim_dir = path_at(base, "claims");    /* made by the first claim */
        test_paths();
        test_claim();
        test_stale();
        test_refused_dir();
        test_race();

        scratch_dir_remove(base);
        free(lock_dir);
        free(run_dir);
        free(claim_dir);
        free(unix_path);
        return tap_done();
}
