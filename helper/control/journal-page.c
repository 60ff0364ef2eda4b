/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal-page.h"
#include "json.h"
#include "util.h"

void journal_items_done(struct journal_items *it) {
        for (size_t i = 0; i < it->n; i++)
                json_value_free(it->v[i].v);
        free(it->v);
}

static int collect(unsigned long long seq, const char *line, size_t len, void *userdata) {
        struct journal_items *it = userdata;
        struct json_value *v = NULL;

        if (it->to && seq > it->to)
                return 1;       /* past the range: nothing after it is read */
        /* Those before a seq: the newest of them kept, the oldest let go to stay in bounds. */
        while (it->keep_newest && it->n > 0 && it->bytes + len > it->max_bytes) {
                it->bytes -= it->v[0].len;
                json_value_free(it->v[0].v);
                memmove(it->v, it->v + 1, --it->n * sizeof *it->v);
        }
        if ((it->max_n && it->n >= it->max_n) || (it->max_bytes && it->n > 0 && it->bytes + len > it->max_bytes)) {
                it->more = true;
                return 1;
        }
        if (json_parse(line, len, &v) < 0)
                return 0;
        it->bytes += len;
        if (ARRAY_GROW(it->v, it->n, it->cap, 64) < 0) {
                json_value_free(v);
                return -ENOMEM;
        }
        it->v[it->n++] = (struct journal_item) { seq, v, len };
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

const char *journal_item_frame(struct journal *j, const struct json_value *v, const char *key) {
        const char *name = json_member_string(v, key);

        /* Exactly a name the journal gives: never "..", a quote or a newline (the video's list). */
        if (!name || !journal_frame_name_valid(name) || faccessat(j->fd, name, R_OK, AT_SYMLINK_NOFOLLOW) < 0)
                return NULL;
        return name;
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

static void write_entry(FILE *f, struct journal *j, int out_frames, const struct journal_item *it) {
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
        frame = journal_item_frame(j, v, "frame");
        if (frame && (out_frames < 0 || copy_frame(j, out_frames, frame) >= 0)) {
                fputs("<a class=\"framelink\" href=\"", f);
                html_escaped(f, frame);
                fputs("\"><span class=\"shot\"><img src=\"", f);
                html_escaped(f, frame);
                fprintf(f, "\" alt=\"frame %llu\">", it->seq);
                draw(f, args);
                fputs("</span></a>\n", f);
                /* The first action after a gap has the screen before it too. */
                if (json_member_string(v, "frame_before") && journal_item_frame(j, v, "frame_before") &&
                    (out_frames < 0 || copy_frame(j, out_frames, json_member_string(v, "frame_before")) >= 0)) {
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

int journal_items_read(struct journal *j, unsigned long long from, unsigned long long to, struct journal_items *ret) {
        unsigned long long bad = 0;

        ret->to = to;
        return journal_read(j, from, collect, ret, NULL, &bad);
}

int journal_items_read_page(struct journal *j, unsigned long long from, unsigned long long before,
                            struct journal_items *ret) {
        unsigned long long first, next, bad = 0;
        int r;

        r = journal_bounds(j, &first, &next);
        if (r < 0)
                return r;
        if (from == 0) {
                if (before == 0 || before > next)
                        before = next;
                if (before <= first)
                        from = next;    /* nothing kept before it: an empty page */
                else {
                        from = before > JOURNAL_PAGE_ENTRIES ? before - JOURNAL_PAGE_ENTRIES : 1;
                        ret->to = before - 1;
                        ret->keep_newest = true;
                }
        }
        if (from < first)
                from = first;
        ret->paged = true;
        ret->max_n = JOURNAL_PAGE_ENTRIES;
        ret->max_bytes = JOURNAL_PAGE_BYTES;
        r = journal_read(j, from, collect, ret, NULL, &bad);
        if (r < 0)
                return r;
        if (ret->n > 0) {
                ret->older = ret->v[0].seq > first ? ret->v[0].seq : 0;
                ret->newer = ret->v[ret->n - 1].seq + 1 < next ? ret->v[ret->n - 1].seq + 1 : 0;
        } else {
                ret->older = from > first ? from : 0;
                ret->newer = 0;
        }
        return 0;
}

static void page_links(FILE *f, const struct journal_items *it) {
        fputs("<p class=\"nav\">", f);
        if (it->older)
                fprintf(f, "<a class=\"older\" href=\"?before=%llu\">older</a> ", it->older);
        if (it->newer)
                fprintf(f, "<a class=\"newer\" href=\"?from=%llu\">newer</a> ", it->newer);
        fputs("<a class=\"newest\" href=\"./\">newest</a></p>\n", f);
}

void journal_page_write(FILE *f, struct journal *j, const char *profile, const struct journal_items *it,
                        int copy_frames_fd) {
        fputs(page_head, f);
        fputs("<h1>Journal of ", f);
        html_escaped(f, profile);
        if (it->paged && it->n > 0)
                fprintf(f, "</h1>\n<p>Entries %llu to %llu, oldest first.</p>\n", it->v[0].seq, it->v[it->n - 1].seq);
        else
                fprintf(f, "</h1>\n<p>%zu entries, oldest first.</p>\n", it->n);
        if (it->paged)
                page_links(f, it);
        for (size_t i = 0; i < it->n; i++)
                write_entry(f, j, copy_frames_fd, &it->v[i]);
        if (it->paged)
                page_links(f, it);
        fputs("</body></html>\n", f);
}
