/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_botdesk.so, the built module, driven through libpam: pam_start_confdir
 * with service files written at run time into a temporary directory, and a
 * conversation that refuses to converse (the module must never prompt).
 * The module path comes from BOTDESK_PAM_MODULE (meson sets it).
 *
 * No logind runs here: the module must treat "no logind, no system bus" as
 * nothing to do. Cases that need a configuration file run only as root,
 * because in root context the module refuses any file not owned by root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "tap.h"

#define BAND_MIN 20
#define BAND_MAX 89

static const char *module;
static const char *user;
static char tmp[PATH_MAX - 64], confdir[PATH_MAX], rundir[PATH_MAX], resdir[PATH_MAX], config[PATH_MAX];

static int conv_refuse(int n, const struct pam_message **msg, struct pam_response **resp, void *userdata) {
        *resp = NULL;
        return PAM_CONV_ERR;
}

static const struct pam_conv conv = { conv_refuse, NULL };

static void write_file(const char *path, const char *text, mode_t mode) {
        FILE *f = fopen(path, "we");

        if (!f) {
                printf("Bail out! cannot write %s: %m\n", path);
                exit(1);
        }
        fputs(text, f);
        fclose(f);
        chmod(path, mode);
}

static void write_services(void) {
        char path[PATH_MAX + 32], text[3 * PATH_MAX];

        /* The plain stack: pam_open_session returns what the module returns. */
        snprintf(path, sizeof path, "%s/botdesk-test", confdir);
        snprintf(text, sizeof text, "session required %s rundir=%s config=%s debug frobnicate\n",
                 module, rundir, config);
        write_file(path, text, 0644);

        /* libpam turns a stack where every module ignored into PAM_PERM_DENIED;
         * this one succeeds if and only if the module said PAM_IGNORE. */
        snprintf(path, sizeof path, "%s/botdesk-ignore", confdir);
        snprintf(text, sizeof text,
                 "session [ignore=1 default=ignore] %s rundir=%s config=%s\n"
                 "session requisite pam_deny.so\n"
                 "session required pam_permit.so\n",
                 module, rundir, config);
        write_file(path, text, 0644);
}

static int count_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        int n = 0;

        if (!d)
                return -1;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n - 1; /* the directory's own fd */
}

/* Entries of a directory (0 when it does not exist). */
static int count_entries(const char *path) {
        DIR *d = opendir(path);
        struct dirent *de;
        int n = 0;

        if (!d)
                return 0;
        while ((de = readdir(d)))
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        n++;
        closedir(d);
        return n;
}

static void rm_rf(const char *path) {
        DIR *d = opendir(path);
        struct dirent *de;

        if (!d) {
                unlink(path);
                return;
        }
        while ((de = readdir(d))) {
                char sub[PATH_MAX * 2];

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
                rm_rf(sub);
        }
        closedir(d);
        rmdir(path);
}

static void clear_reservations(void) {
        rm_rf(resdir);
}

/* Start a handle for profile (NULL: no BOTDESK_PROFILE) on service. */
static pam_handle_t *start(const char *service, const char *profile) {
        pam_handle_t *h = NULL;
        char env[128];
        int r;

        r = pam_start_confdir(service, user, &conv, confdir, &h);
        if (r != PAM_SUCCESS) {
                printf("Bail out! pam_start_confdir: %d\n", r);
                exit(1);
        }
        if (profile) {
                snprintf(env, sizeof env, "BOTDESK_PROFILE=%s", profile);
                if (pam_putenv(h, env) != PAM_SUCCESS) {
                        printf("Bail out! pam_putenv failed\n");
                        exit(1);
                }
        }
        return h;
}

static int open_close(const char *profile) {
        pam_handle_t *h = start("botdesk-test", profile);
        int r = pam_open_session(h, 0);

        if (r == PAM_SUCCESS)
                (void) pam_close_session(h, 0);
        pam_end(h, r);
        return r;
}

/* The display number of an open handle, or -1. */
static int handle_display(pam_handle_t *h) {
        const void *item = NULL;
        const char *s;
        char *end;
        long v;

        if (pam_get_item(h, PAM_XDISPLAY, &item) != PAM_SUCCESS || !item)
                return -1;
        s = item;
        if (s[0] != ':')
                return -1;
        v = strtol(s + 1, &end, 10);
        return *end || end == s + 1 ? -1 : (int) v;
}

static bool reservation_exists(int n) {
        char path[PATH_MAX + 32];

        snprintf(path, sizeof path, "%s/%d", resdir, n);
        return access(path, F_OK) == 0;
}

static char *reservation_text(int n) {
        char path[PATH_MAX + 32], buf[256];
        ssize_t k;
        int fd;

        snprintf(path, sizeof path, "%s/%d", resdir, n);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        k = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (k < 0)
                return NULL;
        buf[k] = '\0';
        return strdup(buf);
}

static void write_reservation(int n, const char *text) {
        char path[PATH_MAX + 32];

        mkdir(rundir, 0755);
        mkdir(resdir, 0755);
        snprintf(path, sizeof path, "%s/%d", resdir, n);
        write_file(path, text, 0644);
}

static pid_t dead_pid(void) {
        pid_t pid = fork();

        if (pid == 0)
                _exit(0);
        waitpid(pid, NULL, 0);
        return pid;
}

/* ---- cases -------------------------------------------------------------------------------- */

static void test_ignore(void) {
        pam_handle_t *h = start("botdesk-ignore", NULL);
        int r = pam_open_session(h, 0);

        TAP_EQ_INT(r, PAM_SUCCESS, "a session without BOTDESK_PROFILE is not botdesk's: the module returns PAM_IGNORE");
        TAP_EQ_STR(pam_getenv(h, "BOTDESK_DISPLAY"), NULL, "a session that is not botdesk's gets no BOTDESK_DISPLAY");
        r = pam_close_session(h, 0);
        TAP_EQ_INT(r, PAM_SUCCESS, "closing a session that is not botdesk's is ignored too");
        pam_end(h, r);

        h = start("botdesk-ignore", "work");
        r = pam_open_session(h, 0);
        /* Not ignored: the stack goes on to pam_deny. */
        tap_ok(r != PAM_SUCCESS, "a botdesk session is not ignored (got %d)", r);
        pam_end(h, r);
        clear_reservations();
}

/* The shipped /etc/pam.d/botdesk: systemd never authenticates a PAMName=
 * service, so anyone else asking this stack to authenticate is refused. */
static void test_shipped_denies_auth(void) {
        const char *from = getenv("BOTDESK_PAM_SERVICE");
        char to[PATH_MAX + 32], buf[4096];
        pam_handle_t *h = NULL;
        ssize_t k;
        int in, out, r;

        if (!from || from[0] != '/') {
                tap_ok(0, "the shipped PAM service denies authentication: BOTDESK_PAM_SERVICE is not set");
                return;
        }
        snprintf(to, sizeof to, "%s/botdesk", confdir);
        in = open(from, O_RDONLY | O_CLOEXEC);
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (in < 0 || out < 0) {
                printf("Bail out! cannot copy %s to %s: %m\n", from, to);
                exit(1);
        }
        while ((k = read(in, buf, sizeof buf)) > 0)
                if (write(out, buf, (size_t) k) != k) {
                        printf("Bail out! cannot write %s: %m\n", to);
                        exit(1);
                }
        close(in);
        close(out);

        r = pam_start_confdir("botdesk", user, &conv, confdir, &h);
        if (r != PAM_SUCCESS) {
                printf("Bail out! pam_start_confdir(botdesk): %d\n", r);
                exit(1);
        }
        r = pam_authenticate(h, 0);
        tap_ok(r != PAM_SUCCESS, "the shipped %s refuses pam_authenticate (got %d: %s)", from, r, pam_strerror(h, r));
        pam_end(h, r);
}

static void test_bad_profile(void) {
        static const char *const bad[] = { "", "../etc", "a/b", "-x", "with space", "héllo",
                                           "abcdefghijklmnopqrstuvwxyz0123456" };

        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                TAP_EQ_INT(open_close(bad[i]), PAM_SESSION_ERR, "profile name \"%s\" is refused", bad[i]);
        TAP_EQ_INT(count_entries(resdir), 0, "a refused profile name reserves nothing");
}

static void test_success(void) {
        pam_handle_t *h = start("botdesk-test", "work");
        char expect[32], *text;
        int r, n;

        r = pam_open_session(h, 0);
        TAP_EQ_INT(r, PAM_SUCCESS, "a botdesk session opens");
        n = handle_display(h);
        tap_ok(n >= BAND_MIN && n <= BAND_MAX, "PAM_XDISPLAY is \":N\" with N in the band %d-%d (got %d)",
               BAND_MIN, BAND_MAX, n);
        TAP_EQ_STR(pam_getenv(h, "XDG_SESSION_TYPE"), "x11", "XDG_SESSION_TYPE=x11 for pam_systemd");
        TAP_EQ_STR(pam_getenv(h, "XDG_SESSION_CLASS"), "user", "XDG_SESSION_CLASS=user for pam_systemd");
        TAP_EQ_STR(pam_getenv(h, "XDG_SESSION_DESKTOP"), "botdesk", "XDG_SESSION_DESKTOP=botdesk for pam_systemd");
        snprintf(expect, sizeof expect, "%d", n);
        TAP_EQ_STR(pam_getenv(h, "BOTDESK_DISPLAY"), expect, "BOTDESK_DISPLAY names the reserved number for the helper");
        tap_ok(reservation_exists(n), "the reservation %s/%d exists while the session is open", resdir, n);

        text = reservation_text(n);
        snprintf(expect, sizeof expect, "%d\nprofile=work\n", (int) getpid());
        tap_ok(text && strncmp(text, expect, strlen(expect)) == 0,
               "the reservation names the opening pid and the profile");
        if (text && strncmp(text, expect, strlen(expect)) != 0)
                printf("#   got \"%s\"\n", text);
        free(text);

        r = pam_close_session(h, 0);
        TAP_EQ_INT(r, PAM_SUCCESS, "the session closes");
        tap_ok(!reservation_exists(n), "close removes the reservation");
        r = pam_close_session(h, 0);
        TAP_EQ_INT(r, PAM_PERM_DENIED, "a second close finds nothing to do (PAM_IGNORE)");
        pam_end(h, r);
        clear_reservations();
}

static void test_two_handles(void) {
        pam_handle_t *a = start("botdesk-test", "one"), *b = start("botdesk-test", "two");
        int ra, rb, na, nb;

        ra = pam_open_session(a, 0);
        rb = pam_open_session(b, 0);
        TAP_EQ_INT(ra, PAM_SUCCESS, "first of two concurrent sessions opens");
        TAP_EQ_INT(rb, PAM_SUCCESS, "second of two concurrent sessions opens");
        na = handle_display(a);
        nb = handle_display(b);
        tap_ok(na >= 0 && nb >= 0 && na != nb, "two sessions of different profiles get different numbers (%d, %d)", na, nb);
        (void) pam_close_session(a, 0);
        tap_ok(!reservation_exists(na) && reservation_exists(nb), "closing one session leaves the other's reservation");
        (void) pam_close_session(b, 0);
        tap_ok(!reservation_exists(nb), "closing the other removes its reservation");
        pam_end(a, PAM_SUCCESS);
        pam_end(b, PAM_SUCCESS);
        clear_reservations();
}

#define N_CHILDREN 6

static void test_concurrent_processes(void) {
        int numbers[N_CHILDREN], results[2], go[2];
        pid_t pids[N_CHILDREN];
        bool distinct = true, all = true;

        if (pipe(results) < 0 || pipe(go) < 0) {
                printf("Bail out! pipe: %m\n");
                exit(1);
        }
        for (int i = 0; i < N_CHILDREN; i++) {
                pids[i] = fork();
                if (pids[i] == 0) {
                        char profile[16], c;
                        pam_handle_t *h;
                        int n = -1;

                        close(results[0]);
                        close(go[1]);
                        snprintf(profile, sizeof profile, "par%d", i);
                        h = start("botdesk-test", profile);
                        if (pam_open_session(h, 0) == PAM_SUCCESS)
                                n = handle_display(h);
                        (void) !write(results[1], &n, sizeof n);
                        /* Hold the number until every child has one. */
                        (void) !read(go[0], &c, 1);
                        if (n >= 0)
                                (void) pam_close_session(h, 0);
                        pam_end(h, PAM_SUCCESS);
                        close(results[1]);
                        close(go[0]);
                        _exit(0);
                }
        }
        close(results[1]);
        close(go[0]);
        for (int i = 0; i < N_CHILDREN; i++)
                if (read(results[0], &numbers[i], sizeof numbers[i]) != sizeof numbers[i])
                        numbers[i] = -1;
        close(go[1]); /* EOF releases every child */
        close(results[0]);
        for (int i = 0; i < N_CHILDREN; i++)
                waitpid(pids[i], NULL, 0);

        for (int i = 0; i < N_CHILDREN; i++) {
                if (numbers[i] < 0)
                        all = false;
                for (int j = 0; j < i; j++)
                        if (numbers[i] >= 0 && numbers[i] == numbers[j])
                                distinct = false;
        }
        tap_ok(all, "%d processes opening sessions at once all get a number", N_CHILDREN);
        tap_ok(distinct, "%d processes opening sessions at once get %d different numbers", N_CHILDREN, N_CHILDREN);
        for (int i = 0; i < N_CHILDREN; i++)
                if (numbers[i] >= 0 && reservation_exists(numbers[i]))
                        all = false;
        tap_ok(all, "every one of their reservations is gone after their close");
        clear_reservations();
}

static void test_leftover(void) {
        pam_handle_t *old = start("botdesk-test", "work"), *new;
        int n_old, n_new, r;

        r = pam_open_session(old, 0);
        n_old = handle_display(old);
        TAP_EQ_INT(r, PAM_SUCCESS, "a session whose close never comes opens");
        /* The "old" session never closes (its sd-pam was SIGKILLed, say). */
        pam_end(old, PAM_SUCCESS | PAM_DATA_SILENT);

        new = start("botdesk-test", "work");
        r = pam_open_session(new, 0);
        n_new = handle_display(new);
        TAP_EQ_INT(r, PAM_SUCCESS, "the next session of the same profile opens");
        TAP_EQ_INT(n_new, n_old, "it takes over its leftover's number");
        (void) pam_close_session(new, 0);
        tap_ok(!reservation_exists(n_new), "and its close leaves nothing reserved");
        pam_end(new, PAM_SUCCESS);
        clear_reservations();
}

static void test_stale(void) {
        char text[128];
        pam_handle_t *h;
        int r;

        snprintf(text, sizeof text, "%d\nprofile=ghost\nuid=0\n", (int) dead_pid());
        write_reservation(BAND_MAX, text);
        snprintf(text, sizeof text, "%d\nprofile=alive\nuid=0\n", (int) getppid());
        write_reservation(BAND_MAX - 1, text);
        write_reservation(BAND_MAX - 2, "not a reservation of ours\n");

        h = start("botdesk-test", "work");
        r = pam_open_session(h, 0);
        TAP_EQ_INT(r, PAM_SUCCESS, "a session opens beside other reservations");
        tap_ok(!reservation_exists(BAND_MAX), "a reservation whose opener and session are gone is dropped");
        tap_ok(reservation_exists(BAND_MAX - 1), "a reservation whose opener lives is kept");
        tap_ok(reservation_exists(BAND_MAX - 2), "a file that is not a logind-tier reservation is left to alloc.c");
        tap_ok(handle_display(h) != BAND_MAX - 1 && handle_display(h) != BAND_MAX - 2,
               "numbers held by reservations are not handed out");
        (void) pam_close_session(h, 0);
        pam_end(h, PAM_SUCCESS);
        clear_reservations();
}

static void test_full_band(bool root) {
        char text[64];
        int r;

        if (root) {
                /* band = 50-50 and 50 reserved by a live process. */
                write_file(config, "[display]\nband = 50-50\n", 0644);
                snprintf(text, sizeof text, "%d\nprofile=other\nuid=0\n", (int) getppid());
                write_reservation(50, text);
        } else {
                /* No config can be used unprivileged: fill the default band. */
                for (int n = BAND_MIN; n <= BAND_MAX; n++)
                        write_reservation(n, "held\n");
        }
        r = open_close("work");
        TAP_EQ_INT(r, PAM_SESSION_ERR, "a full band refuses the session");
        unlink(config);
        clear_reservations();
}

static void test_config(bool root) {
        static const char *const names[] = {
                "a broken configuration (band min above max)",
                "a configuration with an unknown key",
                "a line longer than the parser allows",
        };
        char longline[400];

        if (!root) {
                tap_skip("configuration cases # SKIP not root: the module only trusts a root-owned config");
                return;
        }

        memset(longline, 'x', sizeof longline);
        memcpy(longline, "[session]\nwallpaper = ", 22);
        longline[sizeof longline - 2] = '\n';
        longline[sizeof longline - 1] = '\0';
        const char *texts[] = { "[display]\nband = 60-50\n", "[display]\nnonsense = 1\n", longline };
        for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
                write_file(config, texts[i], 0644);
                TAP_EQ_INT(open_close("work"), PAM_SESSION_ERR, "%s refuses the session", names[i]);
        }

        write_file(config, "[display]\nband = 30-31\n", 0664);
        TAP_EQ_INT(open_close("work"), PAM_SESSION_ERR, "a group-writable configuration is refused");
        chmod(config, 0646);
        TAP_EQ_INT(open_close("work"), PAM_SESSION_ERR, "an other-writable configuration is refused");
        chmod(config, 0644);
        if (chown(config, 1, 0) < 0)
                printf("# chown: %m\n");
        TAP_EQ_INT(open_close("work"), PAM_SESSION_ERR, "a configuration not owned by root is refused");
        if (chown(config, 0, 0) < 0)
                printf("# chown: %m\n");

        write_file(config, "[display]\nband = 30-31\n[profile.work]\nuser = someone-else\n", 0644);
        TAP_EQ_INT(open_close("work"), PAM_SESSION_ERR, "a profile that belongs to another user is refused");
        {
                char text[256];
                pam_handle_t *h;
                int n, r;

                snprintf(text, sizeof text, "[display]\nband = 30-31\n[profile.work]\nuser = %s\n", user);
                write_file(config, text, 0644);
                h = start("botdesk-test", "work");
                r = pam_open_session(h, 0);
                n = handle_display(h);
                TAP_EQ_INT(r, PAM_SUCCESS, "the profile's own user gets a session");
                tap_ok(n == 30 || n == 31, "the configured band is used (got %d)", n);
                (void) pam_close_session(h, 0);
                pam_end(h, PAM_SUCCESS);
        }

        write_file(config, "[display]\nband = 30-31\n", 0644);
        {
                pam_handle_t *h = NULL;
                int r;

                r = pam_start_confdir("botdesk-test", "root", &conv, confdir, &h);
                if (r == PAM_SUCCESS) {
                        (void) pam_putenv(h, "BOTDESK_PROFILE=work");
                        r = pam_open_session(h, 0);
                        TAP_EQ_INT(r, PAM_SESSION_ERR, "a session as root without `user =` for the profile is refused");
                        pam_end(h, r);
                }
        }
        unlink(config);
        clear_reservations();
}

int main(void) {
        const struct passwd *pw;
        bool root = geteuid() == 0;
        int fds_before, fds_after;

        module = getenv("BOTDESK_PAM_MODULE");
        if (!module || module[0] != '/' || access(module, R_OK) < 0) {
                return tap_skip_all("BOTDESK_PAM_MODULE does not name the built pam_botdesk.so");
        }
        /* Any user but root: a root session needs `user = root` in a config. */
        pw = root ? getpwnam("nobody") : getpwuid(getuid());
        if (!pw) {
                return tap_skip_all("no user to open sessions for");
        }
        user = strdup(pw->pw_name);

        snprintf(tmp, sizeof tmp, "%s/test-pam.XXXXXX", getenv("TMPDIR") ?: "/tmp");
        if (!mkdtemp(tmp)) {
                printf("Bail out! mkdtemp: %m\n");
                return 1;
        }
        snprintf(confdir, sizeof confdir, "%s/pam.d", tmp);
        snprintf(rundir, sizeof rundir, "%s/run", tmp);
        snprintf(resdir, sizeof resdir, "%s/run/reservations", tmp);
        snprintf(config, sizeof config, "%s/botdesk.ini", tmp);
        mkdir(confdir, 0755);
        write_services();

        fds_before = count_fds();

        test_ignore();
        test_shipped_denies_auth();
        test_bad_profile();
        test_success();
        test_two_handles();
        test_concurrent_processes();
        test_leftover();
        test_stale();
        test_full_band(root);
        test_config(root);

        fds_after = count_fds();
        TAP_EQ_INT(fds_after, fds_before, "no file descriptor is left open by the module");

        rm_rf(tmp);
        free((char *) user);
        return tap_done();
}
