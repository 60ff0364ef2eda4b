/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk thumbnail: the verb. The desktop must be running (a live helper
 * and a published env) before any X connection is made; the picture is the
 * root window scaled to fit a box, as PNG or JPEG, to a file (atomically),
 * to stdout, or as a data: URL; with --json, one line that also says the
 * screen's revision (screen-revision.h), and with --since-revision only
 * that the screen is unchanged when it is, with no picture made. Refused
 * or voided by the lease, --json's line is the gate's own ("suppressed",
 * cli.h), so an agent reads one shape from every verb that looks or acts.
 *
 * A profile that fronts a VNC server botdesk did not start (remote =) has
 * no X server here: its picture is the server's framebuffer, read over
 * botdesk's own RFB session with it (remote-screen.h), behind the same
 * lease gate.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <xcb/xcb.h>

#include "cli.h"
#include "cli-desktop.h"
#include "verbs.h"
#include "envfile.h"
#include "journal-hook.h"
#include "json.h"
#include "record.h"
#include "screen-revision.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "remote-screen.h"
#include "thumbnail.h"
#include "util.h"

struct thumbnail_options {
        const char *profile;
        const char *output;             /* NULL: stdout */
        unsigned box_w, box_h;
        enum thumb_encoding encoding;
        int quality;                    /* JPEG only; 0: THUMB_JPEG_QUALITY_DEFAULT */
        bool data_url;
        bool start;                     /* --start: start the desktop first when it is not running */
        bool timings;                   /* hidden: phase times on stderr, for tests/bench */
        bool json;
        struct screen_since since;      /* --since-revision */
};

/* Its words as main.c's parser left them (verb-table.c: its row and usage),
 * judged in the order its loop judged them once every word was read. */
static int parse_options(const struct cli_args *args, struct thumbnail_options *o) {
        const char *size = args->size, *quality = args->quality;
        int r;

        *o = (struct thumbnail_options) {
                .profile = args->operand,
                .output = args->output,
                .box_w = THUMB_DEFAULT_WIDTH,
                .box_h = THUMB_DEFAULT_HEIGHT,
                .encoding = THUMB_PNG,
                .data_url = args->data_url,
                .start = args->start,
                .timings = args->timings,
                .json = args->json,
        };
        if (o->output && !*o->output) {
                log_error("-o needs a file name.");
                return EXIT_USAGE;
        }
        if (size) {
                r = thumb_parse_size(size, &o->box_w, &o->box_h);
                if (r < 0) {
                        log_error("Invalid --size \"%s\": give WIDTHxHEIGHT, each 1-%u, like 960x600.", size,
                                  THUMB_SIZE_MAX);
                        return EXIT_USAGE;
                }
        }
        if (args->format == CLI_FORMAT_JPEG)
                o->encoding = THUMB_JPEG;
        if (quality) {
                unsigned long long q;

                if (parse_uint(quality, 100, &q) < 0 || q == 0) {
                        log_error("Invalid --quality \"%s\": give a whole number 1-100.", quality);
                        return EXIT_USAGE;
                }
                if (o->encoding != THUMB_JPEG) {
                        log_error("--quality applies to JPEG only; add --format jpeg.");
                        return EXIT_USAGE;
                }
                o->quality = (int) q;
        }
        if (args->since_revision) {
                if (screen_revision_parse(args->since_revision, o->since.run_id, &o->since.hash) < 0) {
                        log_error("Invalid --since-revision \"%s\": give %s.", args->since_revision,
                                  SCREEN_REVISION_FORM);
                        return EXIT_USAGE;
                }
                /* Only JSON can say "unchanged" instead of an image. */
                if (!o->json) {
                        log_error("--since-revision needs --json: the answer is a line that says unchanged, or the new "
                                  "revision with the image.");
                        return EXIT_USAGE;
                }
                o->since.given = true;
        }
        return EXIT_OK;
}

/* The directory of FILE, opened, and its last component, so the write is a rename in that directory. */
static int open_output_dir(const char *output, int *ret_fd, char **ret_name) {
        _cleanup_free_ char *d = NULL;
        const char *slash = strrchr(output, '/'), *name = slash ? slash + 1 : output;
        int fd;

        /* Split by hand: basename() and dirname() differ between libcs and may modify their argument. */
        if (!*name || streq(name, ".") || streq(name, ".."))
                return -EISDIR;
        d = !slash ? strdup(".") : slash == output ? strdup("/") : strndup(output, (size_t) (slash - output));
        if (!d)
                return -ENOMEM;
        fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        *ret_name = strdup(name);
        if (!*ret_name) {
                safe_close(fd);
                return -ENOMEM;
        }
        *ret_fd = fd;
        return 0;
}

static int write_stdout(const void *data, size_t size) {
        if (fwrite(data, 1, size, stdout) != size || fflush(stdout) != 0)
                return negative_errno();
        return 0;
}

/* A JPEG encoded strip by strip while the grab goes on (thumb_jpeg_rows), timed for --timings. */
struct jpeg_stream {
        struct thumb_jpeg_rows rows;
        unsigned long long usec;        /* spent encoding */
        int error;                      /* the encoder's, which stopped the grab */
};

static void jpeg_stream_done(struct jpeg_stream *js) {
        js->rows.jpeg = thumb_jpeg_free(js->rows.jpeg);
}

static int jpeg_stream_rows(const uint8_t *rows, unsigned width, unsigned height, unsigned y0, unsigned y1,
                            void *userdata) {
        struct jpeg_stream *js = userdata;
        unsigned long long t = now_usec();
        int r = thumb_jpeg_rows(rows, width, height, y0, y1, &js->rows);

        js->usec += now_usec() - t;
        if (r < 0)
                js->error = r;
        return r;
}

static double ms_since(unsigned long long t) {
        return (double) (now_usec() - t) / 1000.0;
}

static void journal_args(struct json *j, const struct journal_redact *redact, const void *userdata) {
        const struct thumb_image *img = userdata;

        json_kv_int(j, "width", img->width);
        json_kv_int(j, "height", img->height);
}

/* --json's line: the revision, how since judged it, and the picture (NULL img: unchanged, none). */
static int write_json(const struct thumbnail_options *o, const char *revision, bool reset, const struct thumb_image *img,
                      const char *url) {
        struct json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "revision", revision);
        if (o->since.given)
                json_kv_bool(&j, "unchanged", !img);
        if (reset)
                json_kv_bool(&j, "revision_reset", true);
        if (img) {
                json_kv_int(&j, "width", img->width);
                json_kv_int(&j, "height", img->height);
                json_key(&j, "screen");
                json_array_begin(&j);
                json_int(&j, img->screen_width);
                json_int(&j, img->screen_height);
                json_array_end(&j);
                json_kv_string(&j, "mime", thumb_encoding_mime(o->encoding));
                if (o->output)
                        json_kv_string(&j, "file", o->output);
                else
                        json_kv_string(&j, "data_url", url);
        }
        json_object_end(&j);
        fputc('\n', stdout);
        if (ferror(stdout) || fflush(stdout) != 0)
                return negative_errno();
        return 0;
}

/*
 * The data URL the options ask for, new in *ret (NULL when none): with
 * --json (and no -o) for its line; with --data-url alone as what is
 * written, one line of text like every other output of the CLI.
 */
static int make_data_url(const struct thumbnail_options *o, const uint8_t *image, size_t size, char **ret) {
        _cleanup_free_ char *url = NULL;
        size_t n;
        char *line;

        *ret = NULL;
        if (!o->data_url && !(o->json && !o->output))
                return 0;
        url = thumb_data_url(o->encoding, image, size);
        if (!url)
                return -ENOMEM;
        if (o->data_url && !o->json) {
                n = strlen(url);
                line = realloc(url, n + 2);
                if (!line)
                        return -ENOMEM;
                url = line;
                url[n] = '\n';
                url[n + 1] = 0;
        }
        *ret = TAKE_PTR(url);
        return 0;
}

/* The picture where the options say, once the gate let it out (img NULL: unchanged, --json's line alone):
 * -o's file (0600: it shows whatever is on the agent's screen) and --json's line, --json's line with the data
 * URL, or the image (the data URL's line with --data-url) on stdout. */
static int write_picture(const struct thumbnail_options *o, int out_fd, const char *out_name, const void *image,
                         size_t image_size, const char *url, const char *revision, bool reset,
                         const struct thumb_image *img) {
        const void *data = o->data_url && !o->json ? (const void *) url : image;
        size_t size = o->data_url && !o->json ? strlen(url) : image_size;
        int r;

        if (!img)
                return write_json(o, revision, false, NULL, NULL);
        if (o->output)
                r = write_file_atomic_at(out_fd, out_name, data, size, 0600);
        else if (o->json)
                return write_json(o, revision, reset, img, url);
        else
                return write_stdout(data, size);
        if (r >= 0 && o->json)
                r = write_json(o, revision, reset, img, NULL);
        return r;
}

/* The remote desktop's framebuffer, as verb_thumbnail() makes a local screen's picture. */
static int remote_thumbnail(const struct cli_args *args, const struct thumbnail_options *o, const struct bd_config *c) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF, out_fd = -EBADF;
        _cleanup_free_ char *out_name = NULL, *url = NULL;
        _cleanup_free_ uint8_t *image = NULL;
        _cleanup_(remote_screen_close) struct remote_screen scr = { .session.fd = -EBADF };
        _cleanup_(thumb_image_done) struct thumb_image img = {};
        const struct rfb_framebuffer *fb = &scr.fb;
        struct lease admitted;
        size_t image_size = 0;
        int r;

        if (o->since.given) {
                log_error("--since-revision is for a desktop botdesk runs; profile %s fronts a VNC server (remote = %s).",
                          o->profile, c->remote);
                return EXIT_USAGE;
        }
        /* Its runtime dir holds its lease, as a local desktop's does. */
        if (cli_open_profile(o->profile, &p, &dirfd) < 0)
                return EXIT_FAILED;
        r = cli_action_admit(dirfd, o->profile, "thumbnail", o->json, &admitted);
        if (r != EXIT_OK)
                return r;
        if (o->output) {
                r = open_output_dir(o->output, &out_fd, &out_name);
                if (r < 0) {
                        log_error_errno(r, "Cannot write %s: %m", o->output);
                        return r == -EISDIR ? EXIT_USAGE : EXIT_FAILED;
                }
        }
        r = remote_screen_open(o->profile, c, dirfd, &scr);
        if (r != EXIT_OK)
                return r;

        thumb_fit(fb->width, fb->height, o->box_w, o->box_h, &img.width, &img.height);
        img.screen_width = fb->width;
        img.screen_height = fb->height;
        img.rgb = malloc((size_t) img.width * img.height * 3);
        if (!img.rgb)
                return log_oom(), EXIT_FAILED;
        /* 0x00RRGGBB words in this host's order: the bytes of a little-endian X server's 32-bit ZPixmap. */
        r = thumb_scale((const uint8_t *) fb->pixels, THUMB_BGRX8888, fb->width, fb->height, (size_t) fb->width * 4, img.rgb,
                        img.width, img.height);
        if (r >= 0)
                r = o->encoding == THUMB_JPEG
                    ? thumb_encode_jpeg(img.rgb, img.width, img.height, o->quality ?: THUMB_JPEG_QUALITY_DEFAULT, &image,
                                        &image_size)
                    : thumb_encode_png(img.rgb, img.width, img.height, THUMB_PNG_LEVEL_DEFAULT, &image, &image_size);
        if (r < 0) {
                log_error_errno(r, "Cannot make the picture of profile %s: %m", o->profile);
                return EXIT_FAILED;
        }
        if (make_data_url(o, image, image_size, &url) < 0)
                return log_oom(), EXIT_FAILED;

        /* A picture read across a takeover may show what the human typed: never written. */
        r = cli_action_done(dirfd, o->profile, "thumbnail", &admitted, o->json);
        cli_journal_record(o->profile, &(const struct cli_journal_action) {
                .action = "thumbnail", .admitted = &admitted, .config = args->config,
                .result = r == EXIT_OK ? "ok" : "suppressed",
                .args = journal_args, .userdata = &img,
        });
        if (r != EXIT_OK)
                return r;
        r = write_picture(o, out_fd, out_name, image, image_size, url, NULL, false, &img);
        if (r < 0) {
                log_error_errno(r, "Cannot write %s: %m", o->output ?: "the thumbnail to standard output");
                return EXIT_FAILED;
        }
        activity_stamp(dirfd);
        return EXIT_OK;
}

int verb_thumbnail(const struct cli_args *args) {
        struct thumbnail_options o;
        _cleanup_free_ char *display = NULL, *xauthority = NULL, *out_name = NULL, *url = NULL;
        char run_id[SCREEN_RUN_ID_LEN + 1], revision[SCREEN_REVISION_LEN + 1];
        bool unchanged = false, reset = false;
        _cleanup_free_ uint8_t *image = NULL;
        _cleanup_close_ int dirfd = -EBADF, out_fd = -EBADF;
        _cleanup_(thumb_image_done) struct thumb_image img = {};
        xcb_connection_t *c = NULL;
        struct lease admitted;
        _cleanup_(jpeg_stream_done) struct jpeg_stream js = {};
        unsigned long long t0 = now_usec(), t_checks, t_connect, t_grab, t_encode, t_write;
        size_t image_size = 0;
        int screen, r;

        r = parse_options(args, &o);
        if (r != EXIT_OK)
                return r;
        if (!o.output && !o.data_url && !o.json && isatty(STDOUT_FILENO)) {
                log_error("Refusing to write a binary image to a terminal; use -o FILE or --data-url.");
                return EXIT_USAGE;
        }
        {
                _cleanup_(config_done) struct bd_config storage = {};
                const struct bd_config *cfg = cli_config(args->config, o.profile, &storage);

                if (cfg && cfg->remote)
                        return remote_thumbnail(args, &o, cfg);
        }

        r = cli_start_on_demand(o.profile, o.start);
        if (r != EXIT_OK)
                return r;
        r = cli_running_display(o.profile, &dirfd, &display, &xauthority);
        if (r != EXIT_OK)
                return r;

        r = cli_action_admit(dirfd, o.profile, "thumbnail", o.json, &admitted);
        if (r != EXIT_OK)
                return r;

        /* A bad FILE fails before the screen is grabbed. */
        if (o.output) {
                r = open_output_dir(o.output, &out_fd, &out_name);
                if (r == -EISDIR) {
                        log_error("Invalid -o \"%s\": name a file, not a directory.", o.output);
                        return EXIT_USAGE;
                }
                if (r < 0) {
                        log_error_errno(r, "Cannot write %s: %m", o.output);
                        return EXIT_FAILED;
                }
        }

        t_checks = now_usec();
        r = cli_connect_desktop(o.profile, display, xauthority, &c, &screen);
        if (r != EXIT_OK)
                return r;
        /* Read after connecting: the run the connection reached (agent.c says the same). */
        r = cli_desktop_run_id(o.profile, dirfd, run_id);
        if (r != EXIT_OK) {
                xcb_disconnect(c);
                return r;
        }
        t_connect = now_usec();
        reset = o.since.given && !streq(o.since.run_id, run_id);
        if (o.since.given && !reset) {
                uint64_t hash;

                /* A read and a hash, nothing scaled or encoded: the price of "unchanged". */
                r = thumb_grab_hash(c, screen, &hash);
                if (r >= 0 && hash == o.since.hash) {
                        xcb_disconnect(c);
                        screen_revision_format(run_id, hash, revision);
                        unchanged = true;
                        t_grab = t_encode = now_usec();
                        goto done;
                }
        }
        if (o.encoding == THUMB_JPEG) {
                js.rows.quality = o.quality ?: THUMB_JPEG_QUALITY_DEFAULT;
                r = thumb_grab_scaled_stream(c, screen, o.box_w, o.box_h, jpeg_stream_rows, &js, &img);
        } else
                r = thumb_grab_scaled(c, screen, o.box_w, o.box_h, &img);
        xcb_disconnect(c);
        if (r == -EOPNOTSUPP) {
                log_error("The screen of display %s has a pixel format botdesk cannot read (depth 16, 24 and 32 are supported).",
                          display);
                return EXIT_FAILED;
        }
        if (r < 0) {
                if (js.error < 0)
                        log_error_errno(r, "Cannot encode the thumbnail as JPEG: %m");
                else
                        log_error_errno(r, "Cannot read the screen of display %s: %m", display);
                return EXIT_FAILED;
        }
        t_grab = now_usec();
        screen_revision_format(run_id, img.hash, revision);

        if (o.encoding == THUMB_JPEG) {
                /* Every row went to the encoder as it was scaled: only the end is left. */
                r = js.rows.jpeg ? thumb_jpeg_finish(js.rows.jpeg, &image, &image_size) : -EIO;
        } else
                r = thumb_encode_png(img.rgb, img.width, img.height, THUMB_PNG_LEVEL_DEFAULT, &image, &image_size);
        if (r < 0) {
                log_error_errno(r, "Cannot encode the thumbnail as %s: %m", o.encoding == THUMB_JPEG ? "JPEG" : "PNG");
                return EXIT_FAILED;
        }
        t_encode = now_usec();

        if (make_data_url(&o, image, image_size, &url) < 0) {
                log_error("Out of memory for the data URL.");
                return EXIT_FAILED;
        }

done:
        /* A screen grabbed across a takeover may show what the human typed: never written. */
        r = cli_action_done(dirfd, o.profile, "thumbnail", &admitted, o.json);
        cli_journal_record(o.profile, &(const struct cli_journal_action) {
                .action = "thumbnail", .admitted = &admitted, .config = args->config,
                .result = r == EXIT_OK ? "ok" : "suppressed",
                .args = journal_args, .userdata = &img,
        });
        if (r != EXIT_OK)
                return r;

        r = write_picture(&o, out_fd, out_name, image, image_size, url, revision, reset, unchanged ? NULL : &img);
        if (r < 0) {
                log_error_errno(r, "Cannot write %s: %m", o.output ?: "the thumbnail to standard output");
                return EXIT_FAILED;
        }

        activity_stamp(dirfd);
        t_write = now_usec();
        /* One line the bench parses: phase names and microseconds. */
        if (o.timings)
                fprintf(stderr, "timings: checks %llu connect %llu grab %llu scale %llu encode %llu write %llu total %llu\n",
                        t_checks - t0, t_connect - t_checks, t_grab - t_connect - img.scale_usec - js.usec,
                        img.scale_usec, t_encode - t_grab + js.usec, t_write - t_encode, t_write - t0);
        log_debug("thumbnail %ux%u -> %ux%u %s, %zu bytes: checks+connect %.2f ms, read+scale %.2f ms (%s), encode %.2f ms, total %.2f ms",
                  img.screen_width, img.screen_height, img.width, img.height, o.encoding == THUMB_JPEG ? "JPEG" : "PNG",
                  image_size, (double) (t_connect - t0) / 1000.0, (double) (t_grab - t_connect - js.usec) / 1000.0,
                  img.shm ? "MIT-SHM" : "GetImage", (double) (t_encode - t_grab + js.usec) / 1000.0, ms_since(t0));
        return EXIT_OK;
}
