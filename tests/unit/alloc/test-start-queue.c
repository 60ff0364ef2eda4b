/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The start queue (start-queue.h): tickets count ahead in the order the
 * starts came, only while their start holds them; a ticket whose start is
 * gone is removed by whoever looks; a wait ends when a ticket ahead
 * leaves (an unlink, or its process's end, which no timer of the wait
 * notices), says how many were ahead, ends -ETIMEDOUT when nothing moves
 * and -ECANCELED on a pending signal. Against a scratch claim dir.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fixture.h"
#include "start-queue.h"
#include "tap.h"
#include "util.h"

static char base[PATH_MAX];
static char *claim_dir;

static int join(void *userdata) {
        struct start_ticket t = START_TICKET_NULL;

        return start_queue_join(claim_dir, &t);
}

/* A child that joins the queue, says so, and holds its ticket until killed. */
static pid_t holder(void) {
        return fork_holder(join, NULL, -1);
}

static void reap(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

static unsigned said_ahead, said_count;

static void on_wait(unsigned ahead, void *userdata) {
        said_ahead = ahead;
        said_count++;
}

static unsigned tickets(void) {
        _cleanup_closedir_ DIR *d = opendir(claim_dir);
        unsigned n = 0;

        for (struct dirent *de; d && (de = readdir(d));)
                n += startswith(de->d_name, "start-") != NULL;
        return n;
}

int main(void) {
        struct start_ticket mine = START_TICKET_NULL, later = START_TICKET_NULL;
        unsigned position = 99;
        sigset_t usr1;
        pid_t a, b;
        int r;

        setvbuf(stdout, NULL, _IOLBF, 0);
        scratch_dir_make(base, sizeof base, "test-start-queue");
        claim_dir = path_at(base, "claims");

        a = holder();
        b = holder();
        TAP_EQ_INT(start_queue_join(claim_dir, &mine), 0, "a third start joins the queue");
        TAP_EQ_INT(start_queue_ahead(&mine, 10, &position), 2, "the two that came before are ahead of it");
        TAP_EQ_INT(position, 2, "... and so is its position");
        TAP_EQ_INT(start_queue_ahead(&mine, 1, &position), 1, "counted up to a limit of 1: 1 live");
        TAP_EQ_INT(position, 2, "... the position counts them all");
        TAP_EQ_INT(start_queue_join(claim_dir, &later), 0, "a fourth joins");
        TAP_EQ_INT(start_queue_ahead(&later, 10, NULL), 3, "... behind the three: the order is arrival's");
        TAP_EQ_INT(start_queue_ahead(&mine, 10, NULL), 2, "... and the third still has two ahead, not the fourth");
        start_queue_leave(&later);
        TAP_EQ_INT(later.fd, -EBADF, "the fourth leaves: its ticket released");

        reap(a);
        TAP_EQ_INT(start_queue_ahead(&mine, 10, &position), 1, "the first start is killed: one live ahead");
        TAP_EQ_INT(tickets(), 2, "... its ticket, held by no one, removed by the look (the second's and ours stay)");

        /* Two slots: one ahead is fewer, the turn comes at once, nothing said. */
        said_count = 0;
        TAP_EQ_INT(start_queue_wait(&mine, 2, 1000000, NULL, on_wait, NULL), 0, "with 2 slots and 1 ahead: its turn at once");
        TAP_EQ_INT(said_count, 0, "... without a word of waiting");

        /* One slot: it waits; the second holder killed (no unlink: only its close) ends the wait. */
        if (fork() == 0) {
                usleep(300 * 1000);
                kill(b, SIGKILL);
                _exit(0);
        }
        {
                unsigned long long t0 = now_usec();

                r = start_queue_wait(&mine, 1, 10 * 1000000ULL, NULL, on_wait, NULL);
                TAP_EQ_INT(r, 0, "with 1 slot it waits, and its turn comes when the start ahead dies");
                tap_ok(now_usec() - t0 >= 250 * 1000 && now_usec() - t0 < 5 * 1000000ULL,
                       "... once it died, 300 ms in, not before and not at the 10 s bound (%llu ms)",
                       (now_usec() - t0) / 1000);
                TAP_EQ_INT(said_count, 1, "... said once that it waited");
                TAP_EQ_INT(said_ahead, 1, "... with 1 ahead");
        }
        (void) waitpid(b, NULL, 0);
        (void) wait(NULL);

        /* Nothing moves: the wait ends at its bound. */
        a = holder();
        start_queue_leave(&mine);
        TAP_EQ_INT(start_queue_join(claim_dir, &mine), 0, "it joins again, behind a new start");
        {
                unsigned long long t0 = now_usec();

                r = start_queue_wait(&mine, 1, 400 * 1000, NULL, NULL, NULL);
                TAP_EQ_INT(r, -ETIMEDOUT, "a start ahead that never leaves: -ETIMEDOUT");
                tap_ok(now_usec() - t0 >= 390 * 1000, "... after its 400 ms (%llu ms)", (now_usec() - t0) / 1000);
        }

        /* A stop while it waits. */
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        sigprocmask(SIG_BLOCK, &usr1, NULL);
        raise(SIGUSR1);
        TAP_EQ_INT(start_queue_wait(&mine, 1, 10 * 1000000ULL, &usr1, NULL, NULL), -ECANCELED,
                   "a pending stop signal ends the wait: -ECANCELED");
        reap(a);

        start_queue_leave(&mine);
        TAP_EQ_INT(tickets(), 1, "after it left, only the killed holder's ticket is there, until someone looks");
        TAP_EQ_INT(start_queue_join(claim_dir, &mine), 0, "one more joins");
        TAP_EQ_INT(start_queue_ahead(&mine, 10, NULL), 0, "... the dead ticket is no one ahead of it");
        start_queue_leave(&mine);
        TAP_EQ_INT(tickets(), 0, "... and once it left, no ticket remains");
        tap_ok(start_queue_default_slots() >= 2, "the default is at least 2 slots (%u)", start_queue_default_slots());

        scratch_dir_remove(base);
        free(claim_dir);
        return tap_done();
}
