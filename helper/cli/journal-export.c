/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "journal-export.h"
#include "find-executable.h"
#include "json.h"
#include "log.h"
#include "util.h"

struct item {
        unsigned long long seq;
        struct json_value *v;
};

struct items {
        struct item *v;
        size_t n, cap;
};

static void items_done(struct items *it) {
        for (size_t i = 0; i < it->n; i++)
                json_value_free(it->v[i].v);
        free(it->v);
}

static int collect(unsigned long long seq, const char *line, size_t len, void *userdata) {
        struct items *it = userdata;
        struct json_value *v = NULL;

        if (json_parse(line, len, &v) < 0)
                return 0;
        if (it->n == it->cap) {
                struct item *nv = reallocarray(it->v, it->cap ? it->cap * 2 : 64, sizeof *nv);
                if (!nv) {
                        json_value_free(v);
                        return -ENOMEM;
                }
                it->v = nv;
                it->cap = it->cap ? it->cap * 2 : 64;
        }
        it->v[it->n++] = (struct item) { seq, v };
        return 0;
}

static void html_escaped(FILE *f, const char *s) {
        for (; s && *s; s++)
                switch (*s) {
                case '<': fputs("&lt;", f); break;
                case '>': fputs("&gt;", f); break;
                case '&': fputs("&amp;", f); break;
                case '"': fputs("&quot;", f); break;
                case '\'': fputs("&#39;", f); break;
                default: fputc(*s, f);
                }
}

/* The frame of an entry (key "frame" or "frame_before"), if it was taken and not dropped: its name under journal/. */
static const char *frame_of_key(struct journal *j, const struct json_value *v, const char *key) {
        const char *name = json_member_string(v, key);

        if (!name || strncmp(name, JOURNAL_FRAMES_DIR "/", strlen(JOURNAL_FRAMES_DIR "/")) != 0 ||
            faccessat(j->fd, name, R_OK, AT_SYMLINK_NOFOLLOW) < 0)
                return NULL;
        return name;
}

static const char *frame_of(struct journal *j, const struct json_value *v) {
        return frame_of_key(j, v, "frame");
}

static int copy_frame(struct journal *j, int out_frames, const char *name) {
        _cleanup_free_ char *data = NULL;
        size_t size = 0;
        int r;

        r = read_full_file_at(j->fd, name, &data, &size, 64u << 20);
        if (r < 0)
                return r;
        /* 0600 like the journal itself: a frame shows whatever was on the agent's screen. */
        return write_file_atomic_at(out_frames, name + strlen(JOURNAL_FRAMES_DIR "/"), data, size, 0600);
}

static const char page_head[] =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width\">\n"
        "<title>botdesk journal</title>\n<style>\n"
        "body{font:14px system-ui,sans-serif;margin:1em;background:#f6f6f6}\n"
        ".entry{background:#fff;border:1px solid #ddd;border-radius:6px;margin:0 0 1em;padding:.5em;max-width:680px}\n"
        ".head{font-family:monospace;margin-bottom:.3em}\n"
        ".refused,.suppressed,.error{color:#a00}\n"
        ".shot{position:relative;display:inline-block;line-height:0}\n"
        ".shot img{max-width:100%}\n"
        ".shot svg{position:absolute;left:0;top:0;width:100%;height:100%}\n"
        ".ring{fill:none;stroke:#e00;stroke-width:3%}\n"
        ".arrow{stroke:#e00;stroke-width:1%;marker-end:url(#head)}\n"
        ".caption{font-family:monospace;background:#ffc;padding:.2em .4em;white-space:pre-wrap}\n"
        ".band{padding:.6em;margin:0 0 1em;border-radius:6px;max-width:680px;font-weight:bold}\n"
        ".band.human{background:#fde2c8;border-left:6px solid #e67e22}\n"
        ".band.returned{background:#d5f5e3;border-left:6px solid #27ae60}\n"
        "code{font-size:12px;color:#555;word-break:break-all}\n"
        "</style></head><body>\n";

static void draw(FILE *f, const struct json_value *args) {
        const struct json_value *screen = args ? json_get(args, "screen") : NULL;
        long long x, y, x2, y2, w, h;

        if (!screen || screen->type != JSON_ARRAY || screen->n != 2 ||
            json_get_int(&screen->items[0], 1, 65535, &w) < 0 || json_get_int(&screen->items[1], 1, 65535, &h) < 0)
                return;
        if (!json_member_int(args, "x", -1000000, 1000000, &x) || !json_member_int(args, "y", -1000000, 1000000, &y))
                return;
        fprintf(f, "<svg viewBox=\"0 0 %lld %lld\" preserveAspectRatio=\"none\">"
                   "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"4\" "
                   "markerHeight=\"4\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#e00\"/></marker></defs>",
                w, h);
        if (json_member_int(args, "x2", -1000000, 1000000, &x2) && json_member_int(args, "y2", -1000000, 1000000, &y2))
                fprintf(f, "<line class=\"arrow\" x1=\"%lld\" y1=\"%lld\" x2=\"%lld\" y2=\"%lld\"/>", x, y, x2, y2);
        else
                fprintf(f, "<circle class=\"ring\" cx=\"%lld\" cy=\"%lld\" r=\"%lld\"/>", x, y, (w > h ? w : h) / 40 + 4);
        fputs("</svg>", f);
}

static void write_entry(FILE *f, struct journal *j, int out_frames, const struct item *it) {
        const struct json_value *v = it->v, *args = json_get(v, "args");
        const char *action = json_member_string(v, "action") ?: "?", *result = json_member_string(v, "result") ?: "?", *frame;
        struct json js;

        if (streq(action, "lease")) {
                const char *event = json_member_string(v, "event") ?: "";
                bool took = streq(event, "human_took");

                fprintf(f, "<div class=\"band %s\" id=\"e%llu\">", took ? "human" : "returned", it->seq);
                if (took) {
                        fputs("Human took control at ", f);
                        html_escaped(f, json_member_string(v, "since") ?: json_member_string(v, "time"));
                        fputs(" (viewer ", f);
                        html_escaped(f, json_member_string(v, "viewer_hash") ?: "?");
                        fputs(")", f);
                } else {
                        fputs("Control returned at ", f);
                        html_escaped(f, json_member_string(v, "since") ?: json_member_string(v, "time"));
                }
                fputs("</div>\n", f);
                return;
        }
        fprintf(f, "<div class=\"entry\" id=\"e%llu\"><div class=\"head\">#%llu ", it->seq, it->seq);
        html_escaped(f, json_member_string(v, "time"));
        fputs(" <b>", f);
        html_escaped(f, action);
        fputs("</b> <span class=\"", f);
        html_escaped(f, result);
        fputs("\">", f);
        html_escaped(f, result);
        fputs("</span>", f);
        if (json_member_string(v, "settle")) {
                fputc(' ', f);
                html_escaped(f, json_member_string(v, "settle"));
        }
        if (json_member_string(v, "message")) {
                fputs(" — ", f);
                html_escaped(f, json_member_string(v, "message"));
        }
        fputs("</div>\n", f);
        frame = frame_of(j, v);
        if (frame && copy_frame(j, out_frames, frame) >= 0) {
                fputs("<a class=\"framelink\" href=\"", f);
                html_escaped(f, frame);
                fputs("\"><span class=\"shot\"><img src=\"", f);
                html_escaped(f, frame);
                fprintf(f, "\" alt=\"frame %llu\">", it->seq);
                draw(f, args);
                fputs("</span></a>\n", f);
                /* The first action after a gap has the screen before it too. */
                if (json_member_string(v, "frame_before") && frame_of_key(j, v, "frame_before") &&
                    copy_frame(j, out_frames, json_member_string(v, "frame_before")) >= 0) {
                        fputs("<p><a class=\"before\" href=\"", f);
                        html_escaped(f, json_member_string(v, "frame_before"));
                        fputs("\">the screen before</a></p>\n", f);
                }
        } else
                fputs("<p>(no frame)</p>\n", f);
        if (json_member_string(args, "text")) {
                fputs("<p class=\"caption\">Typed: ", f);
                html_escaped(f, json_member_string(args, "text"));
                fputs("</p>\n", f);
        }
        if (args) {
                _cleanup_free_ char *text = NULL;
                size_t size = 0;
                FILE *m = open_memstream(&text, &size);

                if (m) {
                        json_init(&js, m);
                        json_value_write(&js, args);
                        if (fclose(m) == 0) {
                                fputs("<code>", f);
                                html_escaped(f, text);
                                fputs("</code>\n", f);
                        }
                }
        }
        fputs("</div>\n", f);
}

static int read_all(struct journal *j, struct items *it) {
        unsigned long long bad = 0;
        int r = journal_read(j, 0, collect, it, NULL, &bad);

        if (r < 0)
                return log_error_errno(r, "Cannot read the journal: %m"), EXIT_FAILED;
        return EXIT_OK;
}

int journal_export_html(struct journal *j, const char *profile, const char *dir) {
        _cleanup_(items_done) struct items it = {};
        _cleanup_close_ int dfd = -EBADF, ffd = -EBADF, out = -EBADF;
        _cleanup_fclose_ FILE *f = NULL;
        int r;

        r = read_all(j, &it);
        if (r != EXIT_OK)
                return r;
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Cannot create %s: %m", dir), EXIT_FAILED;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return log_error_errno(errno, "Cannot open %s: %m", dir), EXIT_FAILED;
        if (mkdirat(dfd, JOURNAL_FRAMES_DIR, 0700) < 0 && errno != EEXIST)
                return log_error_errno(errno, "Cannot create %s/" JOURNAL_FRAMES_DIR ": %m", dir), EXIT_FAILED;
        ffd = openat(dfd, JOURNAL_FRAMES_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (ffd < 0)
                return log_error_errno(errno, "Cannot open %s/" JOURNAL_FRAMES_DIR ": %m", dir), EXIT_FAILED;
        out = openat(dfd, "index.html", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (out < 0)
                return log_error_errno(errno, "Cannot write %s/index.html: %m", dir), EXIT_FAILED;
        f = fdopen(TAKE_FD(out), "w");
        if (!f)
                return log_error_errno(errno, "Cannot write %s/index.html: %m", dir), EXIT_FAILED;
        fputs(page_head, f);
        fputs("<h1>Journal of ", f);
        html_escaped(f, profile);
        fprintf(f, "</h1>\n<p>%zu entries, oldest first.</p>\n", it.n);
        for (size_t i = 0; i < it.n; i++)
                write_entry(f, j, ffd, &it.v[i]);
        fputs("</body></html>\n", f);
        if (fflush(f) != 0 || ferror(f))
                return log_error_errno(errno, "Cannot write %s/index.html: %m", dir), EXIT_FAILED;
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
        _cleanup_(items_done) struct items it = {};
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
                const char *frame = frame_of(j, it.v[i].v);

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
