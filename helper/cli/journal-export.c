/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "journal-export.h"
#include "journal-page.h"
#include "find-executable.h"
#include "json.h"
#include "log.h"
#include "util.h"

static int read_all(struct journal *j, struct journal_items *it) {
        int r = journal_items_read(j, 0, 0, it);

        if (r < 0)
                return log_error_errno(r, "Cannot read the journal: %m"), EXIT_FAILED;
        return EXIT_OK;
}

/* A directory to write the page into: ours, and nobody else may write in it (a swapped file, a link). */
static int dir_private_enough(int fd) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022) != 0)
                return -EPERM;
        return 0;
}

/* index.html under a temporary name, renamed over the old one once whole: a
 * file or link found there is replaced, never written through. */
static int write_index(int dfd, struct journal *j, const char *profile, const struct journal_items *it, int ffd) {
        _cleanup_fclose_ FILE *f = NULL;
        char tmp[64];
        uint64_t rnd;
        int fd, r = 0;

        if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd)
                return -EIO;
        snprintf(tmp, sizeof tmp, ".#index.html.%016llx", (unsigned long long) rnd);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return negative_errno();
        f = fdopen(fd, "w");
        if (!f) {
                r = negative_errno();
                (void) close(fd);
                (void) unlinkat(dfd, tmp, 0);
                return r;
        }
        journal_page_write(f, j, profile, it, ffd);
        if (fflush(f) != 0 || ferror(f))
                r = errno > 0 ? negative_errno() : -EIO;
        if (fclose(TAKE_PTR(f)) != 0 && r >= 0)
                r = negative_errno();
        if (r >= 0 && renameat(dfd, tmp, dfd, "index.html") < 0)
                r = negative_errno();
        if (r < 0)
                (void) unlinkat(dfd, tmp, 0);
        return r;
}

int journal_export_html(struct journal *j, const char *profile, const char *dir) {
        _cleanup_(journal_items_done) struct journal_items it = {};
        _cleanup_close_ int dfd = -EBADF, ffd = -EBADF;
        int r;

        r = read_all(j, &it);
        if (r != EXIT_OK)
                return r;
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Cannot create %s: %m", dir), EXIT_FAILED;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return log_error_errno(errno, "Cannot open %s: %m", dir), EXIT_FAILED;
        /* The page holds what the agent typed and saw: into a directory of ours that nobody else can change. */
        r = dir_private_enough(dfd);
        if (r == -EPERM) {
                log_error("%s is not a directory of uid %u that only it can write to; export into one of your own.",
                          dir, (unsigned) getuid());
                return EXIT_FAILED;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot check %s: %m", dir), EXIT_FAILED;
        if (mkdirat(dfd, JOURNAL_FRAMES_DIR, 0700) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Cannot create %s/" JOURNAL_FRAMES_DIR ": %m", dir), EXIT_FAILED;
        ffd = openat(dfd, JOURNAL_FRAMES_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (ffd < 0)
                return log_error_errno(errno, "Cannot open %s/" JOURNAL_FRAMES_DIR ": %m", dir), EXIT_FAILED;
        if (dir_private_enough(ffd) < 0) {
                log_error("%s/" JOURNAL_FRAMES_DIR " is not a directory of uid %u that only it can write to.", dir,
                          (unsigned) getuid());
                return EXIT_FAILED;
        }
        r = write_index(dfd, j, profile, &it, ffd);
        if (r < 0)
                return log_error_errno(r, "Cannot write %s/index.html: %m", dir), EXIT_FAILED;
        printf("%s/index.html\n", dir);
        return EXIT_OK;
}

/* "2026-12-02T01:02:03.456Z" in seconds. */
static bool parse_time(const char *s, double *ret) {
        struct tm tm = {};
        unsigned ms = 0;
        const char *rest;

        if (!s)
                return false;
        rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
        if (!rest)
                return false;
        if (*rest == '.' && sscanf(rest + 1, "%3u", &ms) != 1)
                return false;
        *ret = (double) timegm(&tm) + ms / 1000.0;
        return true;
}

int journal_export_video(struct journal *j, const char *out) {
        _cleanup_(journal_items_done) struct journal_items it = {};
        _cleanup_free_ char *ffmpeg = NULL, *list = NULL, *jdir = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        const char *last = NULL;
        double t0 = 0, t;
        size_t frames = 0;
        char tmpl[] = "/tmp/botdesk-journal-XXXXXX";
        int fd, r, status;
        pid_t pid;

        if (find_executable("ffmpeg", NULL, &ffmpeg) < 0) {
                log_error("ffmpeg is not installed; install the package ffmpeg (apt/dnf/pacman install ffmpeg) for --video.");
                return EXIT_FAILED;
        }
        r = read_all(j, &it);
        if (r != EXIT_OK)
                return r;
        /* ffmpeg opens the frames by our fd (it is not inherited): the dir verified, not a path again. */
        jdir = strdup_printf("/proc/%d/fd/%d", (int) getpid(), j->fd);
        fd = mkstemp(tmpl);
        if (!jdir || fd < 0)
                return log_error_errno(errno, "Cannot write the list of frames: %m"), EXIT_FAILED;
        list = strdup(tmpl);
        f = fdopen(fd, "w");
        if (!f || !list) {
                (void) unlink(tmpl);
                return EXIT_FAILED;
        }
        /* ffmpeg's concat list: each frame shown until the next entry's time. */
        fputs("ffconcat version 1.0\n", f);
        for (size_t i = 0; i < it.n; i++) {
                const char *frame = journal_item_frame(j, it.v[i].v, "frame");

                if (!parse_time(json_member_string(it.v[i].v, "time"), &t))
                        continue;
                if (last)
                        fprintf(f, "duration %.3f\n", t - t0 > 0.04 ? t - t0 : 0.04);
                if (!frame) {
                        if (last)
                                t0 = t;
                        continue;
                }
                fprintf(f, "file '%s/%s'\n", jdir, frame);
                last = frame;
                t0 = t;
                frames++;
        }
        if (last)
                fprintf(f, "duration 1\nfile '%s/%s'\n", jdir, last);
        if (fflush(f) != 0) {
                (void) unlink(list);
                return EXIT_FAILED;
        }
        if (frames == 0) {
                (void) unlink(list);
                log_error("The journal holds no frame to make a video of.");
                return EXIT_FAILED;
        }
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
                execl(ffmpeg, "ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i",
                      list, "-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p", "-vsync", "vfr", "-c:v",
                      "libx264", "-movflags", "+faststart", out, (char *) NULL);
                _exit(127);
        }
        r = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        (void) unlink(list);
        if (!r)
                return log_error("ffmpeg could not make %s (it said why above).", out), EXIT_FAILED;
        printf("%s: %zu frames\n", out, frames);
        return EXIT_OK;
}
