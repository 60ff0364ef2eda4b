/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web's children for placed profiles (web-placed.c): a job's exit
 * status, stdout and stderr tail reach its callback once; a cancelled job
 * is killed and reaped without its callback; the number of jobs is bounded;
 * at exit every child is killed and reaped. And the far side's lease line:
 * its holder's hash mapped back to a viewer of ours, or to nobody here.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "tap.h"
#include "util.h"
#include "web.h"

extern char **environ;

/* The stream list is web-stream.c's; these tests have no streams. */
struct web_stream *web_stream_next(struct web_stream *st) {
        return NULL;
}

const char *web_stream_viewer(const struct web_stream *st) {
        return "";
}

/* web-profile.c's; the lease a watch line told. */
static struct lease told;
static unsigned n_told;

void web_profile_placed_lease(struct web_profile *p, const struct lease *l, const char *hash) {
        told = *l;
        n_told++;
}

/* As the CLI's spawn, but /bin/sh instead of botdesk itself (argv[0]). */
static int test_spawn(char *const *argv, int stdio_fd, int out_fd, int err_fd, pid_t *ret_pid) {
        char *args[8] = { (char *) "/bin/sh" };
        struct spawn_opts o = SPAWN_OPTS_INIT;

        for (size_t i = 1; argv[i] && i < 7; i++)
                args[i] = argv[i];
        o.argv = args;
        o.envp = environ;
        o.stdin_fd = stdio_fd;
        o.stdout_fd = stdio_fd >= 0 ? stdio_fd : out_fd;
        o.stderr_fd = err_fd;
        o.pdeathsig = true;
        return spawn(&o, ret_pid);
}

struct result {
        int calls, status;
        char out[256], err[256];
};

static void on_done(int status, const char *out, const char *err, void *userdata) {
        struct result *r = userdata;

        r->calls++;
        r->status = status;
        (void) strscpy(r->out, sizeof r->out, out);
        (void) strscpy(r->err, sizeof r->err, err);
}

static char got_lines[4][16];
static unsigned n_lines;

static void on_line(const char *line, void *userdata) {
        if (n_lines < 4)
                (void) strscpy(got_lines[n_lines], sizeof got_lines[n_lines], line);
        n_lines++;
}

static int on_timeout(sd_event_source *src, uint64_t usec, void *userdata) {
        return sd_event_exit(sd_event_source_get_event(src), 0);
}

/* Run the loop until no job is left, or 10 s. */
static void run_until_done(struct web_server *s) {
        sd_event_source *t = NULL;

        (void) sd_event_add_time_relative(s->event, &t, CLOCK_MONOTONIC, 10 * 1000000ULL, 0, on_timeout, NULL);
        while (s->jobs && sd_event_get_state(s->event) != SD_EVENT_FINISHED)
                if (sd_event_run(s->event, 100 * 1000) < 0)
                        break;
        sd_event_source_disable_unref(t);
}

static void test_jobs(void) {
        struct web_server *s = calloc(1, sizeof *s);
        char *say[] = { (char *) "-c", (char *) "echo out; echo 'the error' >&2; exit 3", NULL };
        char *hang[] = { (char *) "-c", (char *) "exec sleep 600", NULL };
        struct result r = {}, never = {};
        struct web_job *job = NULL;
        sigset_t mask;
        pid_t pid;
        int e;

        sigemptyset(&mask);
        sigaddset(&mask, SIGCHLD);
        (void) sigprocmask(SIG_BLOCK, &mask, NULL);
        if (!s || sd_event_new(&s->event) < 0) {
                tap_ok(0, "an event loop");
                free(s);
                return;
        }
        s->spawn = test_spawn;

        e = web_job_start(s, say, -1, on_done, &r, NULL);
        TAP_EQ_INT(e, 0, "a job starts");
        run_until_done(s);
        TAP_EQ_INT(r.calls, 1, "its callback runs once");
        TAP_EQ_INT(r.status, 3, "with its exit status");
        TAP_EQ_STR(r.out, "out\n", "its stdout");
        TAP_EQ_STR(r.err, "the error", "and its stderr's tail, without the last newline");
        TAP_EQ_INT(s->n_jobs, 0u, "an ended job is gone");

        {
                char *lines[] = { (char *) "-c", (char *) "printf 'one\\ntwo\\n'; head -c 5000 /dev/zero | tr '\\0' x; "
                                  "printf '\\nthree\\nunfinished'", NULL };
                struct result lr = {};

                e = web_job_start(s, lines, -1, on_done, &lr, &job);
                TAP_EQ_INT(e, 0, "a job read line by line starts");
                web_job_on_line(job, on_line);
                n_lines = 0;
                run_until_done(s);
                TAP_EQ_INT(n_lines, 3u, "each whole line of its stdout comes as it is written, one too long dropped");
                TAP_EQ_STR(got_lines[0], "one", "the first");
                TAP_EQ_STR(got_lines[2], "three", "and the line after the long one");
                TAP_EQ_INT(lr.calls, 1, "then its end");
        }

        e = web_job_start(s, hang, -1, on_done, &never, &job);
        TAP_EQ_INT(e, 0, "a job that hangs starts");
        web_job_cancel(job);
        run_until_done(s);
        TAP_EQ_INT(never.calls, 0, "a cancelled job's callback never runs");
        TAP_EQ_INT(s->n_jobs, 0u, "a cancelled job is killed and reaped");
        pid = waitpid(-1, NULL, WNOHANG);
        TAP_EQ_INT(pid < 0 && errno == ECHILD, 1, "no child is left, not even a zombie");

        for (unsigned i = 0; i < WEB_JOBS_MAX; i++)
                if (web_job_start(s, hang, -1, on_done, &never, NULL) < 0)
                        break;
        TAP_EQ_INT(s->n_jobs, (unsigned) WEB_JOBS_MAX, "WEB_JOBS_MAX jobs run at once");
        TAP_EQ_INT(web_job_start(s, hang, -1, on_done, &never, NULL), -EAGAIN, "one more is refused (-EAGAIN)");
        web_jobs_done(s);
        TAP_EQ_INT(s->n_jobs, 0u, "at exit every job is gone");
        pid = waitpid(-1, NULL, WNOHANG);
        TAP_EQ_INT(pid < 0 && errno == ECHILD, 1, "killed and reaped at once");
        TAP_EQ_INT(never.calls, 0, "without their callbacks");

        {
                /* At exit SIGTERM comes first and a job may end as it would; one
                 * that ignores it is killed a grace later. */
                char dir[] = "/tmp/botdesk-web-placed.XXXXXX", path[64], ready1[80], ready2[80];
                char *polite[] = { (char *) "-c",
                                   (char *) "trap 'echo term >\"$0\"; kill $!; exit 0' TERM; : >\"$1\"; sleep 600 & wait",
                                   path, ready1, NULL };
                char *stubborn[] = { (char *) "-c", (char *) "trap '' TERM; : >\"$0\"; exec sleep 600", ready2, NULL };
                char got[8] = "";
                unsigned long long t0;
                ssize_t n;
                int fd;

                if (!mkdtemp(dir)) {
                        tap_ok(0, "a scratch dir");
                } else {
                        snprintf(path, sizeof path, "%s/ended", dir);
                        snprintf(ready1, sizeof ready1, "%s/ready1", dir);
                        snprintf(ready2, sizeof ready2, "%s/ready2", dir);
                        TAP_EQ_INT(web_job_start(s, polite, -1, on_done, &never, NULL), 0, "a job that ends on SIGTERM starts");
                        TAP_EQ_INT(web_job_start(s, stubborn, -1, on_done, &never, NULL), 0, "a job that ignores SIGTERM starts");
                        /* Until both shells have set their traps (each says so by a file): at most 10 s. */
                        for (unsigned i = 0; i < 1000 && (access(ready1, F_OK) < 0 || access(ready2, F_OK) < 0); i++)
                                usleep(10 * 1000);
                        TAP_EQ_INT(access(ready1, F_OK) == 0 && access(ready2, F_OK) == 0, 1,
                                   "both have set their traps (waited up to 10 s)");
                        t0 = now_usec();
                        web_jobs_done(s);
                        fd = open(path, O_RDONLY | O_CLOEXEC);
                        n = fd >= 0 ? read(fd, got, sizeof got - 1) : -1;
                        got[n > 0 ? n : 0] = 0;
                        safe_close(fd);
                        TAP_EQ_STR(got, "term\n", "at exit the job got SIGTERM and ended as it would");
                        TAP_EQ_INT(now_usec() - t0 >= 4 * 1000000ULL, 1, "the one that ignored it was killed only a grace later");
                        TAP_EQ_INT(s->n_jobs, 0u, "and both are gone");
                        pid = waitpid(-1, NULL, WNOHANG);
                        TAP_EQ_INT(pid < 0 && errno == ECHILD, 1, "reaped");
                        (void) unlink(path);
                        (void) unlink(ready1);
                        (void) unlink(ready2);
                        (void) rmdir(dir);
                }
        }

        sd_event_unref(s->event);
        free(s);
}

static void test_lease_parse(void) {
        struct lease l;
        char hash[LEASE_HASH_LEN + 1], line[256];

        TAP_EQ_INT(web_placed_lease_parse("{\"holder\": \"agent\", \"viewer_hash\": null, \"since\": null, \"epoch\": 4, "
                                          "\"reason\": \"released\", \"pending\": null}\n", NULL, "alice", &l, NULL), 0,
                   "the agent's lease reads");
        TAP_EQ_INT(l.holder == LEASE_AGENT && l.epoch == 4 && !l.viewer[0], 1, "... as the agent's, at its epoch");
        TAP_EQ_STR(l.reason, "released", "... with its reason");

        lease_viewer_hash("alice", hash);
        snprintf(line, sizeof line, "{\"holder\": \"human\", \"viewer_hash\": \"%s\", \"epoch\": 5}", hash);
        TAP_EQ_INT(web_placed_lease_parse(line, NULL, "alice", &l, NULL), 0, "a human's lease reads");
        TAP_EQ_INT(lease_allows_input(&l, "alice"), 1, "its hash is the asking viewer's: her input passes");
        TAP_EQ_INT(web_placed_lease_parse(line, NULL, "bob", &l, NULL), 0, "the same lease, asked by another viewer");
        TAP_EQ_INT(l.holder == LEASE_HUMAN && !lease_allows_input(&l, "bob") && !lease_allows_input(&l, "alice"), 1,
                   "a human who is nobody here holds it: nobody's input passes");
        snprintf(line, sizeof line, "{\"profile\": \"p\", \"event\": \"lease\", \"status\": \"ready\", "
                 "\"lease\": {\"holder\": \"human\", \"viewer_hash\": \"%s\", \"epoch\": 6}}", hash);
        {
                char h[LEASE_HASH_LEN + 1];

                TAP_EQ_INT(web_placed_lease_parse(line, NULL, "alice", &l, h), 0, "a line of botdesk watch --json reads");
                TAP_EQ_INT(l.epoch == 6 && lease_allows_input(&l, "alice"), 1, "... its lease");
                TAP_EQ_STR(h, hash, "... and its holder's hash");
                web_placed_lease_for(&l, h, "carol", &l);
                TAP_EQ_INT(lease_allows_input(&l, "carol"), 0, "the same lease for another viewer: not hers");
                web_placed_lease_for(&l, h, "alice", &l);
                TAP_EQ_INT(lease_allows_input(&l, "alice"), 1, "and for its holder: hers");
        }
        TAP_EQ_INT(web_placed_lease_parse("{\"holder\": \"root\", \"epoch\": 1}", NULL, NULL, &l, NULL), -EBADMSG,
                   "an unknown holder is refused");
        TAP_EQ_INT(web_placed_lease_parse("{\"holder\": \"agent\"}", NULL, NULL, &l, NULL), -EBADMSG, "a lease without epoch");
        TAP_EQ_INT(web_placed_lease_parse("Cannot lease p: gone", NULL, NULL, &l, NULL), -EBADMSG, "words, not JSON");
        TAP_EQ_INT(web_placed_lease_parse("", NULL, NULL, &l, NULL), -EBADMSG, "nothing at all");
}

int main(void) {
        test_jobs();
        test_lease_parse();
        return tap_done();
}
