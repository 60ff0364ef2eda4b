/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A start under the user manager waits for its job, as `systemctl start`
 * does, also when the unit is already activating: systemd then hands the
 * second StartUnit the start job under way, and only its JobRemoved ends the
 * wait. A forked child plays the manager on a direct connection (as the
 * manager's private socket is) and sets the sender as systemd does there.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

#include "bus-cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util.h"

#define MANAGER_PATH "/org/freedesktop/systemd1"
#define MANAGER_IFACE "org.freedesktop.systemd1.Manager"
#define OUR_JOB MANAGER_PATH "/job/42"
#define OTHER_JOB MANAGER_PATH "/job/41"

enum ending {
        JOB_DONE,        /* another job ends first ("failed"), then ours: "done" */
        JOB_FAILED,      /* ours ends "failed" */
        JOB_NEVER,       /* ours does not end while the client waits */
        JOB_DONE_EARLY,  /* ours ends before the StartUnit reply is sent */
};

/* The profile lock a start holds until its job is queued. */
static char lock_path[] = "/tmp/test-unit-job.XXXXXX";

/* Can another start take the lock now? */
static bool lock_free(void) {
        _cleanup_close_ int fd = open(lock_path, O_RDONLY | O_CLOEXEC);

        return fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
}

struct fake {
        enum ending ending;
        bool subscribed, subscribed_first, started;
        char unit[128];
};

static int job_removed(sd_bus *bus, uint32_t id, const char *job, const char *unit, const char *result) {
        return sd_bus_emit_signal(bus, MANAGER_PATH, MANAGER_IFACE, "JobRemoved", "uoss", id, job, unit, result);
}

static int method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct fake *f = userdata;

        f->subscribed = true;
        return sd_bus_reply_method_return(m, NULL);
}

static int method_start_unit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct fake *f = userdata;
        const char *unit, *mode;
        int r;

        r = sd_bus_message_read(m, "ss", &unit, &mode);
        if (r < 0)
                return r;
        snprintf(f->unit, sizeof f->unit, "%s", unit);
        f->subscribed_first = f->subscribed;
        f->started = true;
        if (f->ending == JOB_DONE_EARLY && (r = job_removed(sd_bus_message_get_bus(m), 42, OUR_JOB, unit, "done")) < 0)
                return r;
        /* The unit is activating: the start job under way is the answer. */
        return sd_bus_reply_method_return(m, "o", OUR_JOB);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Subscribe", "", "", method_subscribe, 0),
        SD_BUS_METHOD("StartUnit", "ss", "o", method_start_unit, 0),
        SD_BUS_VTABLE_END,
};

/* Serve until the client hangs up (alarm: never longer than 20 s). */
static int serve_until(sd_bus *bus, bool (*done)(const struct fake *), const struct fake *f) {
        for (;;) {
                int r = sd_bus_process(bus, NULL);

                if (r < 0)
                        return r;
                if (done && done(f))
                        return 0;
                if (r > 0)
                        continue;
                r = sd_bus_wait(bus, UINT64_MAX);
                if (r < 0 && r != -EINTR)
                        return r;
        }
}

static bool started(const struct fake *f) {
        return f->started;
}

/* The manager's side. Exit 0: served, Subscribe came before StartUnit. */
_noreturn_ static void play_manager(int fd, enum ending ending) {
        struct fake f = { .ending = ending };
        sd_bus *bus = NULL;
        sd_id128_t id;
        int r;

        alarm(20);
        if (sd_id128_randomize(&id) < 0 || sd_bus_new(&bus) < 0 || sd_bus_set_fd(bus, fd, fd) < 0 ||
            sd_bus_set_server(bus, 1, id) < 0 ||
            /* As systemd on its private socket: clients match on the sender. */
            sd_bus_set_sender(bus, "org.freedesktop.systemd1") < 0 ||
            sd_bus_add_object_vtable(bus, NULL, MANAGER_PATH, MANAGER_IFACE, manager_vtable, &f) < 0 ||
            sd_bus_start(bus) < 0)
                _exit(90);
        if (serve_until(bus, started, &f) < 0)
                _exit(91);
        (void) sd_bus_flush(bus);
        if (ending == JOB_DONE || ending == JOB_FAILED) {
                (void) poll(NULL, 0, 100);
                /* Somebody else's job: not the one to wait for. */
                if (job_removed(bus, 41, OTHER_JOB, "other.service", "failed") < 0)
                        _exit(92);
                (void) sd_bus_flush(bus);
                (void) poll(NULL, 0, 200);
                /* While our job is under way, the start has let go of its lock. */
                if (job_removed(bus, 42, OUR_JOB, f.unit,
                                ending == JOB_FAILED ? "failed" : lock_free() ? "done" : "lock-held") < 0)
                        _exit(92);
                (void) sd_bus_flush(bus);
        }
        r = serve_until(bus, NULL, &f);
        _exit(f.subscribed_first && (r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE) ? 0 : 93);
}

struct outcome {
        int r, lock;
        char *result;
        unsigned long long ms;
        int manager_status;
};

static struct outcome start_against(enum ending ending, unsigned long long timeout_usec) {
        struct unit_start_opts o = { .timeout_usec = timeout_usec };
        struct outcome out = { .manager_status = -1 };
        _cleanup_(bus_flush_close_unrefp) sd_bus *bus = NULL;
        unsigned long long t0;
        int fds[2], status;
        pid_t pid;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
                printf("Bail out! socketpair: %s\n", strerror(errno));
                exit(1);
        }
        pid = fork();
        if (pid == 0) {
                close(fds[0]);
                play_manager(fds[1], ending);
        }
        close(fds[1]);
        /* Opened after the fork: the manager must not share its lock. */
        out.lock = open(lock_path, O_RDONLY | O_CLOEXEC);
        if (out.lock < 0 || flock(out.lock, LOCK_EX) < 0) {
                printf("Bail out! cannot lock %s: %s\n", lock_path, strerror(errno));
                exit(1);
        }
        o.queued_lock = &out.lock;
        if (pid < 0 || sd_bus_new(&bus) < 0 || sd_bus_set_fd(bus, fds[0], fds[0]) < 0 || sd_bus_start(bus) < 0) {
                printf("Bail out! cannot connect to the fake manager\n");
                exit(1);
        }
        t0 = now_usec();
        out.r = unit_start(bus, "botdesk@fixture.service", &o, &out.result);
        out.ms = (now_usec() - t0) / 1000;
        bus = sd_bus_flush_close_unref(bus);
        out.lock = safe_close(out.lock);
        /* Bounded by the manager's alarm. */
        if (waitpid(pid, &status, 0) == pid)
                out.manager_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return out;
}

int main(void) {
        _cleanup_close_ int tmp = mkstemp(lock_path);
        struct outcome o;

        if (tmp < 0) {
                printf("Bail out! mkstemp: %s\n", strerror(errno));
                return 1;
        }

        o = start_against(JOB_DONE, 10 * 1000000ULL);
        TAP_EQ_INT(o.r, 0, "a start that joins the job under way succeeds when that job is done");
        TAP_EQ_STR(o.result, "done",
                   "its result is the job's, and the start let go of its lock once the job was queued "
                   "(\"lock-held\": a start after it would wait for the lock, not join the job)");
        tap_ok(o.ms >= 300 && o.ms < 5000,
               "it returned once the job was removed (after %llu ms; removed at 300), not at another job's end",
               o.ms);
        TAP_EQ_INT(o.manager_status, 0,
                   "it subscribed to job signals before it asked for the start, and stayed for the job's end "
                   "(the manager's exit: 93 not subscribed first, 92 the client had gone)");
        free(o.result);

        o = start_against(JOB_FAILED, 10 * 1000000ULL);
        TAP_EQ_INT(o.r, -EIO, "the job under way fails: so does the start");
        TAP_EQ_STR(o.result, "failed", "with the job's result");
        tap_ok(o.ms >= 300 && o.ms < 5000, "once the job was removed (after %llu ms; removed at 300)", o.ms);
        free(o.result);

        o = start_against(JOB_DONE_EARLY, 10 * 1000000ULL);
        TAP_EQ_INT(o.r, 0, "a job removed before the StartUnit reply arrived is still seen");
        TAP_EQ_STR(o.result, "done", "with its result");
        tap_ok(o.ms < 5000, "at once (%llu ms)", o.ms);
        free(o.result);

        o = start_against(JOB_NEVER, 500000);
        TAP_EQ_INT(o.r, -ETIMEDOUT, "a job that outlasts the timeout ends the wait at the timeout");
        TAP_EQ_STR(o.result, "timeout", "said as \"timeout\"");
        tap_ok(o.ms >= 500 && o.ms < 5000, "at the timeout (after %llu ms; timeout 500 ms)", o.ms);
        free(o.result);

        (void) unlink(lock_path);
        return tap_done();
}
