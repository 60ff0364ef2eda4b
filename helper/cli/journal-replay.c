/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk journal PROFILE replay: each recorded action run again as the
 * agent verb it maps to (botdesk input, exec), in a process of its own so
 * that it passes the lease gate like any agent action; the screen after it
 * compared with the recorded frame.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli-desktop.h"
#include "cli.h"
#include "frame-diff.h"
#include "journal-page.h"
#include "journal-replay.h"
#include "json.h"
#include "log.h"
#include "thumbnail.h"
#include "util.h"

static bool screen_of(const struct json_value *args, unsigned *w, unsigned *h) {
        const struct json_value *s = args ? json_get(args, "screen") : NULL;
        long long a, b;

        if (!s || s->type != JSON_ARRAY || s->n != 2 || json_get_int(&s->items[0], 1, 65535, &a) < 0 ||
            json_get_int(&s->items[1], 1, 65535, &b) < 0)
                return false;
        *w = (unsigned) a;
        *h = (unsigned) b;
        return true;
}

/* The words of a command, growing. */
struct words {
        char *v[64];
        size_t n;
};

static void words_done(struct words *w) {
        for (size_t i = 0; i < w->n; i++)
                free(w->v[i]);
        w->n = 0;
}

static int push(struct words *w, const char *s) {
        if (w->n + 1 >= ELEMENTSOF(w->v))
                return -E2BIG;
        w->v[w->n] = strdup(s);
        if (!w->v[w->n])
                return -ENOMEM;
        w->n++;
        w->v[w->n] = NULL;
        return 0;
}

static int pushf(struct words *w, long long v) {
        char b[32];

        snprintf(b, sizeof b, "%lld", v);
        return push(w, b);
}

struct scale {
        double x, y;
};

static long long sx(const struct scale *s, long long v) { return (long long) (v * s->x + 0.5); }
static long long sy(const struct scale *s, long long v) { return (long long) (v * s->y + 0.5); }

/* botdesk input's words again, the coordinates scaled (the word after --button or --window is none). */
static int input_words(const struct json_value *args, const struct scale *sc, struct words *w) {
        const struct json_value *words = json_get(args, "words");
        unsigned coord = 0;
        bool skip = false;

        if (!words || words->type != JSON_ARRAY || words->n == 0)
                return -ENODATA;
        for (size_t i = 0; i < words->n; i++) {
                const char *t = words->items[i].type == JSON_STRING ? words->items[i].string : NULL;
                unsigned long long v;
                int r;

                if (!t)
                        return -EINVAL;
                if (i > 0 && !skip && coord < 4 && parse_uint(t, 65535, &v) >= 0)
                        r = pushf(w, coord++ % 2 == 0 ? sx(sc, (long long) v) : sy(sc, (long long) v));
                else
                        r = push(w, t);
                if (r < 0)
                        return r;
                skip = streq(t, "--button") || streq(t, "--window");
        }
        return 0;
}

/* An agent action (act, mcp) as the botdesk input that does the same, or -ENODATA (nothing to send). */
static int agent_words(const char *name, const struct json_value *args, const struct scale *sc, struct words *w) {
        long long x = 0, y = 0, x2, y2, button = 1, v;
        bool xy = json_member_int(args, "x", -1000000, 1000000, &x) && json_member_int(args, "y", -1000000, 1000000, &y);
        const char *text = json_member_string(args, "text"), *keys = json_member_string(args, "keys");
        int r = 0;

        (void) json_member_int(args, "button", -1000000, 1000000, &button);
        if (strstr(name, "drag") && xy && json_member_int(args, "x2", -1000000, 1000000, &x2) && json_member_int(args, "y2", -1000000, 1000000, &y2)) {
                r = push(w, "drag");
                r = r ?: pushf(w, sx(sc, x)) ?: pushf(w, sy(sc, y)) ?: pushf(w, sx(sc, x2)) ?: pushf(w, sy(sc, y2));
        } else if (strstr(name, "click") || streq(name, "click")) {
                r = push(w, "click");
                if (xy)
                        r = r ?: pushf(w, sx(sc, x)) ?: pushf(w, sy(sc, y));
                r = r ?: push(w, "--button") ?: pushf(w, button);
                if (strstr(name, "double") || (json_member_int(args, "clicks", -1000000, 1000000, &v) && v == 2))
                        r = r ?: push(w, "--double");
        } else if ((streq(name, "mouse_move") || streq(name, "move")) && xy) {
                r = push(w, "move");
                r = r ?: pushf(w, sx(sc, x)) ?: pushf(w, sy(sc, y));
        } else if (streq(name, "type") && text) {
                r = push(w, "type");
                r = r ?: push(w, "--") ?: push(w, text);
        } else if ((streq(name, "key") || streq(name, "keypress")) && keys) {
                _cleanup_free_ char *copy = strdup(keys);
                char *save = NULL;

                if (!copy)
                        return -ENOMEM;
                r = push(w, "key");
                for (char *k = strtok_r(copy, " ", &save); k && r >= 0; k = strtok_r(NULL, " ", &save))
                        r = push(w, k);
        } else if (streq(name, "scroll") && json_member_int(args, "dx", -1000000, 1000000, &x) && json_member_int(args, "dy", -1000000, 1000000, &y)) {
                r = push(w, "scroll");
                r = r ?: pushf(w, x) ?: pushf(w, y);
        } else
                return -ENODATA;
        return r;
}

/* Run `botdesk VERB PROFILE WORDS...` (this binary) and wait: its exit code. */
static int run_verb(const char *verb, const char *profile, struct words *w, bool exec_sep) {
        char *argv[ELEMENTSOF(w->v) + 5];
        size_t n = 0;
        int status;
        pid_t pid;

        argv[n++] = (char *) "botdesk";
        argv[n++] = (char *) verb;
        argv[n++] = (char *) profile;
        if (exec_sep)
                argv[n++] = (char *) "--";
        for (size_t i = 0; i < w->n; i++)
                argv[n++] = w->v[i];
        argv[n] = NULL;
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0)
                return EXIT_FAILED;
        if (pid == 0) {
                /* Only the replay's own lines on stdout (and what an exec'd command says). */
                if (!exec_sep) {
                        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                        if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
                                _exit(127);
                }
                execv("/proc/self/exe", argv);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
                return EXIT_FAILED;
        return WEXITSTATUS(status);
}

/* The screen now against the recorded frame: the per cent of pixels that differ, or < 0. */
static double compare(struct journal *j, xcb_connection_t *c, int screen, const char *frame) {
        _cleanup_free_ char *data = NULL;
        _cleanup_free_ uint8_t *rec = NULL;
        struct thumb_image img = {};
        unsigned w, h;
        size_t size = 0;
        double d = -1;

        if (!frame || !journal_frame_name_valid(frame) || read_full_file_at(j->fd, frame, &data, &size, 64u << 20) < 0 ||
            frame_jpeg_decode(data, size, &rec, &w, &h) < 0)
                return -1;
        if (thumb_grab_scaled(c, screen, w, THUMB_SIZE_MAX, &img) >= 0 && img.width == w && img.height == h)
                d = frame_diff_percent(rec, img.rgb, w, h, FRAME_DIFF_THRESHOLD);
        thumb_image_done(&img);
        return d;
}

int journal_replay(struct journal *j, const char *profile, const struct replay_options *o) {
        _cleanup_(journal_items_done) struct journal_items st = {};
        _cleanup_free_ char *display = NULL, *xauthority = NULL;
        _cleanup_close_ int dirfd = -EBADF;
        xcb_connection_t *c = NULL;
        struct scale sc = { 1, 1 };
        unsigned sw = 0, sh = 0, rw, rh, ran = 0, matched = 0, differed = 0;
        int screen = 0, r, ret = EXIT_OK;

        r = journal_items_read(j, o->from, o->to, &st);
        if (r < 0)
                return log_error_errno(r, "Cannot read the journal: %m"), EXIT_FAILED;
        if (!o->dry_run) {
                r = cli_running_display(profile, &dirfd, &display, &xauthority);
                if (r != EXIT_OK)
                        return r;
                r = cli_connect_desktop(profile, display, xauthority, &c, &screen);
                if (r != EXIT_OK)
                        return r;
                {
                        xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));

                        for (int i = 0; i < screen && it.rem > 0; i++)
                                xcb_screen_next(&it);
                        sw = it.data->width_in_pixels;
                        sh = it.data->height_in_pixels;
                }
                /* A journal of another screen size: its coordinates mean other pixels. */
                for (size_t i = 0; i < st.n; i++)
                        if (screen_of(json_get(st.v[i].v, "args"), &rw, &rh)) {
                                if (rw != sw || rh != sh) {
                                        if (!o->scale) {
                                                log_error("The journal was recorded on a %ux%u screen, this desktop's is %ux%u; "
                                                          "replay --scale maps the coordinates.", rw, rh, sw, sh);
                                                xcb_disconnect(c);
                                                return EXIT_FAILED;
                                        }
                                        sc = (struct scale) { (double) sw / rw, (double) sh / rh };
                                }
                                break;
                        }
        }
        for (size_t i = 0; i < st.n; i++) {
                const struct json_value *v = st.v[i].v, *args = json_get(v, "args");
                const char *action = json_member_string(v, "action") ?: "?", *result = json_member_string(v, "result"), *verb = "input", *skip = NULL;
                struct words w = {};
                double d;

                if (streq(action, "lease"))
                        skip = "a change of control";
                else if (streq(action, "fork"))
                        skip = "where the desktop came from";
                else if (!result || !streq(result, "ok"))
                        skip = "it did not succeed then";
                else if (json_get(v, "truncated"))
                        skip = "it was cut when recorded";
                else if (startswith(action, "input ")) {
                        r = input_words(args, &sc, &w);
                        if (r == -ENODATA)
                                skip = "its text was not recorded";
                } else if (startswith(action, "agent ")) {
                        r = agent_words(action + strlen("agent "), args, &sc, &w);
                        if (r == -ENODATA && json_get(args, "text_length"))
                                skip = "its text was not recorded";
                        else if (r == -ENODATA)
                                verb = NULL;    /* screenshot, wait, zoom: nothing to send, the screen to compare */
                } else if (streq(action, "exec")) {
                        const struct json_value *argv = json_get(args, "argv");

                        verb = "exec";
                        r = argv && argv->type == JSON_ARRAY ? 0 : -ENODATA;
                        for (size_t k = 0; r >= 0 && k < argv->n; k++)
                                r = argv->items[k].type == JSON_STRING ? push(&w, argv->items[k].string) : -EINVAL;
                        if (r < 0)
                                skip = "its argv is not whole";
                } else if (streq(action, "thumbnail"))
                        verb = NULL;
                else
                        skip = "its content is not recorded";
                if (skip) {
                        printf("%llu %s: skipped (%s)\n", st.v[i].seq, action, skip);
                        words_done(&w);
                        continue;
                }
                if (o->dry_run) {
                        printf("%llu %s: botdesk %s %s", st.v[i].seq, action, verb ?: "(nothing)", verb ? profile : "");
                        for (size_t k = 0; k < w.n; k++)
                                printf(" %s", w.v[k]);
                        putchar('\n');
                        words_done(&w);
                        continue;
                }
                if (verb) {
                        r = run_verb(verb, profile, &w, streq(verb, "exec"));
                        if (r == EXIT_REFUSED) {
                                printf("%llu %s: refused; replay stops here\n", st.v[i].seq, action);
                                words_done(&w);
                                ret = EXIT_REFUSED;
                                break;
                        }
                        if (r != EXIT_OK) {
                                printf("%llu %s: failed (exit %d)\n", st.v[i].seq, action, r);
                                words_done(&w);
                                ret = EXIT_FAILED;
                                continue;
                        }
                        /* The screen as the frame was taken: once it is quiet. */
                        struct words q = {};
                        if (push(&q, "--quiet") >= 0 && push(&q, "150") >= 0 && push(&q, "--timeout") >= 0 &&
                            push(&q, "2000") >= 0)
                                (void) run_verb("settle", profile, &q, false);
                        words_done(&q);
                }
                words_done(&w);
                ran++;
                d = compare(j, c, screen, json_member_string(v, "frame"));
                if (d < 0)
                        printf("%llu %s: ran; no frame to compare\n", st.v[i].seq, action);
                else if (d <= o->tolerance) {
                        printf("%llu %s: ran; screen matches (%.2f %% of pixels differ)\n", st.v[i].seq, action, d);
                        matched++;
                } else {
                        printf("%llu %s: ran; screen differs (%.2f %% of pixels differ)\n", st.v[i].seq, action, d);
                        differed++;
                }
        }
        if (c)
                xcb_disconnect(c);
        if (!o->dry_run)
                printf("replayed %u steps: %u match, %u differ\n", ran, matched, differed);
        return ret;
}
