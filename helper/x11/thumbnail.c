/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <setjmp.h>
#include <stdio.h>
#include <sys/mman.h>

#include <jpeglib.h>
#include <nettle/base64.h>
#include <xcb/shm.h>
#include <xcb/xcb.h>

#include "screen-revision.h"
#include "thumbnail.h"
#include "util.h"

/* ---- pixel formats and small parsers ---------------------------------------------------------- */

int thumb_pixfmt_from_x(unsigned bits_per_pixel, unsigned depth, bool msb_first,
                        uint32_t red_mask, uint32_t green_mask, uint32_t blue_mask) {
        if (bits_per_pixel == 32 && (depth == 24 || depth == 32) && green_mask == 0x00ff00) {
                if (red_mask == 0xff0000 && blue_mask == 0x0000ff)
                        return msb_first ? THUMB_XRGB8888 : THUMB_BGRX8888;
                if (red_mask == 0x0000ff && blue_mask == 0xff0000)
                        return msb_first ? THUMB_XBGR8888 : THUMB_RGBX8888;
        }
        if (bits_per_pixel == 16 && depth == 16 && red_mask == 0xf800 && green_mask == 0x07e0 && blue_mask == 0x001f)
                return msb_first ? THUMB_RGB565_BE : THUMB_RGB565_LE;
        return -EOPNOTSUPP;
}

unsigned thumb_pixfmt_bytes(enum thumb_pixfmt f) {
        return f == THUMB_RGB565_LE || f == THUMB_RGB565_BE ? 2 : 4;
}

int thumb_parse_size(const char *s, unsigned *ret_width, unsigned *ret_height) {
        unsigned long long w, h;
        char buf[32];
        const char *x;
        int r;

        if (!s || !(x = strchr(s, 'x')) || (size_t) (x - s) >= sizeof buf)
                return -EINVAL;
        memcpy(buf, s, (size_t) (x - s));
        buf[x - s] = 0;
        /* parse_uint refuses signs, spaces and junk; a huge number is -ERANGE. */
        r = parse_uint(buf, THUMB_SIZE_MAX, &w);
        if (r < 0)
                return r;
        r = parse_uint(x + 1, THUMB_SIZE_MAX, &h);
        if (r < 0)
                return r;
        if (w == 0 || h == 0)
                return -ERANGE;
        *ret_width = (unsigned) w;
        *ret_height = (unsigned) h;
        return 0;
}

const char *thumb_encoding_mime(enum thumb_encoding e) {
        return e == THUMB_JPEG ? "image/jpeg" : "image/png";
}

void thumb_fit(unsigned src_w, unsigned src_h, unsigned box_w, unsigned box_h, unsigned *ret_w, unsigned *ret_h) {
        uint64_t w, h;

        if (src_w <= box_w && src_h <= box_h) {
                *ret_w = src_w;
                *ret_h = src_h;
                return;
        }
        if ((uint64_t) src_w * box_h >= (uint64_t) src_h * box_w) {
                /* Wider than the box (or the same shape): the width decides. */
                w = box_w;
                h = ((uint64_t) src_h * box_w + src_w / 2) / src_w;
        } else {
                h = box_h;
                w = ((uint64_t) src_w * box_h + src_h / 2) / src_h;
        }
        *ret_w = (unsigned) (w < 1 ? 1 : w > src_w ? src_w : w);
        *ret_h = (unsigned) (h < 1 ? 1 : h > src_h ? src_h : h);
}

/* ---- JPEG ------------------------------------------------------------------------------------- */

struct jpeg_error {
        struct jpeg_error_mgr mgr;
        jmp_buf jump;
};

/* The default error_exit calls exit(): jump back instead. */
static void jpeg_error_exit_cb(j_common_ptr c) {
        longjmp(((struct jpeg_error *) c->err)->jump, 1);
}

static void jpeg_output_message_cb(_unused_ j_common_ptr c) {
}

/* The encoder's state lives on the heap: libjpeg keeps pointers to it (the
 * error manager, the output buffer) from one call to the next. */
struct thumb_jpeg {
        struct jpeg_compress_struct cinfo;
        struct jpeg_error err;
        unsigned char *buf;
        unsigned long size;
        unsigned width, height;
        bool failed;
};

struct thumb_jpeg *thumb_jpeg_free(struct thumb_jpeg *j) {
        if (!j)
                return NULL;
        jpeg_destroy_compress(&j->cinfo);
        free(j->buf);
        free(j);
        return NULL;
}

static void thumb_jpeg_freep(struct thumb_jpeg **j) {
        thumb_jpeg_free(*j);
}

/* Apart from thumb_jpeg_new, so that nothing set after setjmp() lives in a register. */
static int jpeg_setup(struct thumb_jpeg *j, int quality) {
        j->cinfo.err = jpeg_std_error(&j->err.mgr);
        j->err.mgr.error_exit = jpeg_error_exit_cb;
        j->err.mgr.output_message = jpeg_output_message_cb;
        if (setjmp(j->err.jump))
                return -EIO;
        jpeg_create_compress(&j->cinfo);
        jpeg_mem_dest(&j->cinfo, &j->buf, &j->size);
        j->cinfo.image_width = j->width;
        j->cinfo.image_height = j->height;
        j->cinfo.input_components = 3;
        j->cinfo.in_color_space = JCS_RGB;
        jpeg_set_defaults(&j->cinfo);
        jpeg_set_quality(&j->cinfo, quality, TRUE);
        /* 4:2:0 (the library default, said out loud) and the fast integer DCT:
         * at thumbnail qualities its error is below the quantisation's. */
        j->cinfo.comp_info[0].h_samp_factor = 2;
        j->cinfo.comp_info[0].v_samp_factor = 2;
        j->cinfo.comp_info[1].h_samp_factor = j->cinfo.comp_info[1].v_samp_factor = 1;
        j->cinfo.comp_info[2].h_samp_factor = j->cinfo.comp_info[2].v_samp_factor = 1;
        j->cinfo.dct_method = JDCT_IFAST;
        jpeg_start_compress(&j->cinfo, TRUE);
        return 0;
}

int thumb_jpeg_new(unsigned w, unsigned h, int quality, struct thumb_jpeg **ret) {
        _cleanup_(thumb_jpeg_freep) struct thumb_jpeg *j = NULL;
        int r;

        if (w == 0 || h == 0 || w > JPEG_MAX_DIMENSION || h > JPEG_MAX_DIMENSION || quality < 1 || quality > 100)
                return -EINVAL;
        j = calloc(1, sizeof *j);
        if (!j)
                return -ENOMEM;
        j->width = w;
        j->height = h;
        r = jpeg_setup(j, quality);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(j);
        return 0;
}

int thumb_jpeg_push(struct thumb_jpeg *j, const uint8_t *rgb, unsigned n) {
        if (!j || !rgb || j->failed || n > j->height - j->cinfo.next_scanline)
                return -EINVAL;
        if (setjmp(j->err.jump)) {
                j->failed = true;
                return -EIO;
        }
        for (unsigned done = 0; done < n;) {
                JSAMPROW rows[16];
                unsigned k = 0;

                for (; k < ELEMENTSOF(rows) && done + k < n; k++)
                        /* libjpeg reads the rows only; its API is not const. */
                        rows[k] = (JSAMPROW) (uintptr_t) (rgb + (size_t) (done + k) * j->width * 3);
                done += jpeg_write_scanlines(&j->cinfo, rows, k);
        }
        return 0;
}

int thumb_jpeg_finish(struct thumb_jpeg *j, uint8_t **ret, size_t *ret_size) {
        if (!j || j->failed || j->cinfo.next_scanline != j->height)
                return -EINVAL;
        if (setjmp(j->err.jump)) {
                j->failed = true;
                return -EIO;
        }
        jpeg_finish_compress(&j->cinfo);
        *ret = TAKE_PTR(j->buf);
        *ret_size = j->size;
        return 0;
}

int thumb_jpeg_rows(const uint8_t *rows, unsigned width, unsigned height, unsigned y0, unsigned y1, void *userdata) {
        struct thumb_jpeg_rows *jr = userdata;
        int r = 0;

        if (!jr->jpeg)
                r = thumb_jpeg_new(width, height, jr->quality, &jr->jpeg);
        if (r >= 0 && y1 > y0)
                r = thumb_jpeg_push(jr->jpeg, rows, y1 - y0);
        return r;
}

int thumb_encode_jpeg(const uint8_t *rgb, unsigned w, unsigned h, int quality, uint8_t **ret, size_t *ret_size) {
        _cleanup_(thumb_jpeg_freep) struct thumb_jpeg *j = NULL;
        int r;

        if (!rgb)
                return -EINVAL;
        r = thumb_jpeg_new(w, h, quality, &j);
        if (r < 0)
                return r;
        r = thumb_jpeg_push(j, rgb, h);
        if (r < 0)
                return r;
        return thumb_jpeg_finish(j, ret, ret_size);
}

/* ---- base64 ----------------------------------------------------------------------------------- */

/* nettle writes the padded encoding; the NUL is ours. */
static void base64_encode(const uint8_t *in, size_t size, char *out) {
        base64_encode_raw(out, size, in);
        out[BASE64_ENCODE_RAW_LENGTH(size)] = 0;
}

static char *base64_with_prefix(const char *prefix, const void *data, size_t size) {
        size_t l = strlen(prefix), n;
        char *s;

        if (size > (SIZE_MAX - l - 1) / 4 * 3 - 2)
                return NULL;
        n = (size + 2) / 3 * 4;
        s = malloc(l + n + 1);
        if (!s)
                return NULL;
        memcpy(s, prefix, l);
        base64_encode(data, size, s + l);
        return s;
}

char *thumb_base64(const void *data, size_t size) {
        return base64_with_prefix("", data, size);
}

char *thumb_data_url(enum thumb_encoding e, const void *data, size_t size) {
        char prefix[64];

        snprintf(prefix, sizeof prefix, "data:%s;base64,", thumb_encoding_mime(e));
        return base64_with_prefix(prefix, data, size);
}

/* ---- X: the grab ------------------------------------------------------------------------------ */

void thumb_image_done(struct thumb_image *i) {
        free(i->rgb);
        *i = (struct thumb_image) {};
}

/*
 * The thumbnail's pixels, 2 MiB aligned and advised as a transparent huge
 * page: one fault instead of hundreds (a page fault costs microseconds in a
 * VM, and a 960x600 thumbnail is 420 pages). Freed with free().
 */
static uint8_t *buffer_alloc(size_t size) {
        const size_t huge = 2u << 20;
        void *p;

        if (size < huge / 2)
                return malloc(size);
        size = (size + huge - 1) / huge * huge;
        if (posix_memalign(&p, huge, size) != 0)
                return NULL;
        (void) madvise(p, size, MADV_HUGEPAGE);
        return p;
}

static const xcb_screen_t *screen_of(const xcb_setup_t *setup, int n) {
        for (xcb_screen_iterator_t it = xcb_setup_roots_iterator(setup); it.rem; xcb_screen_next(&it), n--)
                if (n == 0)
                        return it.data;
        return NULL;
}

static const xcb_visualtype_t *visual_of(const xcb_screen_t *s, xcb_visualid_t id) {
        for (xcb_depth_iterator_t d = xcb_screen_allowed_depths_iterator(s); d.rem; xcb_depth_next(&d))
                for (xcb_visualtype_iterator_t v = xcb_depth_visuals_iterator(d.data); v.rem; xcb_visualtype_next(&v))
                        if (v.data->visual_id == id)
                                return v.data;
        return NULL;
}

static const xcb_format_t *format_of(const xcb_setup_t *setup, uint8_t depth) {
        const xcb_format_t *f = xcb_setup_pixmap_formats(setup);

        for (int i = 0; i < xcb_setup_pixmap_formats_length(setup); i++)
                if (f[i].depth == depth)
                        return f + i;
        return NULL;
}

/*
 * The screen is read in horizontal strips, a few requests in flight, each
 * strip pushed into the scaler as it arrives: the server copies the next
 * strip while we scale this one (two cores work at once), and no buffer of
 * the whole screen is ever touched (5 MB of fresh pages at 1440x900).
 * The first requests go out before the scaler is built, so that the
 * server's first copy (the slowest: it maps the segment) overlaps that.
 */
#define STRIP_BYTES (128u * 1024u)
#define IN_FLIGHT 3u

struct grab {
        xcb_connection_t *c;
        xcb_window_t root;
        unsigned width, height;
        size_t stride;
        unsigned rows;                  /* per strip */
        unsigned strips;
        bool shm;                       /* the requests in flight are MIT-SHM's */
        unsigned seq[IN_FLIGHT];        /* the requests in flight, by slot */
        unsigned issued;                /* strips asked for so far */
        unsigned received;              /* strips whose reply was read */
        /* MIT-SHM: one segment, IN_FLIGHT slots of rows * stride bytes */
        xcb_shm_seg_t seg;
        uint8_t *map;
        size_t map_size, slot_size;
        xcb_shm_query_version_cookie_t version;
        bool version_pending;           /* its reply not read yet */
        struct thumb_scaler *also;      /* a second picture of the same strips, or NULL */
        /* The screen's hash (screen-revision.h), row by row as the strips
         * arrive: the pixels of each row, never the stride's padding. */
        uint64_t hash;
        size_t row_bytes;
        /* Output rows handed on as they complete */
        thumb_rows_fn on_rows;
        void *userdata;
        const uint8_t *rgb;
        unsigned out_w, out_h, ring_rows, rows_sent;
};

/* The output rows the last strip completed, to the caller's on_rows: one
 * call per run of rows that lie one after the other in the ring. */
static int emit_rows(struct grab *g, const struct thumb_scaler *s) {
        unsigned done = thumb_scaler_rows_done(s);

        if (!g->on_rows)
                return 0;
        while (g->rows_sent < done) {
                unsigned at = g->rows_sent % g->ring_rows, n = done - g->rows_sent;
                int r;

                if (n > g->ring_rows - at)
                        n = g->ring_rows - at;
                r = g->on_rows(g->rgb + (size_t) at * g->out_w * 3, g->out_w, g->out_h, g->rows_sent,
                               g->rows_sent + n, g->userdata);
                if (r < 0)
                        return r;
                g->rows_sent += n;
        }
        return 0;
}

static unsigned strip_rows(const struct grab *g, unsigned i) {
        unsigned y = i * g->rows;
        return g->height - y < g->rows ? g->height - y : g->rows;
}

/* Ask for the next strip, into the slot it will be read from. */
static void issue(struct grab *g) {
        unsigned i = g->issued++;
        int16_t y = (int16_t) (i * g->rows);
        uint16_t h = (uint16_t) strip_rows(g, i);

        if (g->shm)
                g->seq[i % IN_FLIGHT] =
                        xcb_shm_get_image(g->c, g->root, 0, y, (uint16_t) g->width, h, UINT32_MAX,
                                          XCB_IMAGE_FORMAT_Z_PIXMAP, g->seg, (uint32_t) ((i % IN_FLIGHT) * g->slot_size))
                                .sequence;
        else
                g->seq[i % IN_FLIGHT] =
                        xcb_get_image(g->c, XCB_IMAGE_FORMAT_Z_PIXMAP, g->root, 0, y, (uint16_t) g->width, h,
                                      UINT32_MAX)
                                .sequence;
}

/* The first IN_FLIGHT strips, sent now. */
static void issue_first(struct grab *g) {
        g->issued = g->received = 0;
        while (g->issued < g->strips && g->issued < IN_FLIGHT)
                issue(g);
        xcb_flush(g->c);
}

/* Replies that will never be read would otherwise wait in xcb's queue. */
static void discard_in_flight(struct grab *g) {
        for (unsigned j = g->received; j < g->issued; j++)
                xcb_discard_reply(g->c, g->seq[j % IN_FLIGHT]);
        g->issued = g->received = 0;
}

/* A strip into the hash, then to the scaler (none: a grab for the hash alone), and to the second picture's. */
static int push_strip(struct grab *g, struct thumb_scaler *s, const uint8_t *rows, unsigned h,
                      unsigned long long *scale_usec) {
        unsigned long long t;
        int r = 0;

        for (unsigned y = 0; y < h; y++)
                g->hash = screen_hash64(rows + (size_t) y * g->stride, g->row_bytes, g->hash);
        if (!s)
                return 0;
        t = now_usec();
        r = thumb_scaler_push(s, rows, g->stride, h);
        if (r >= 0 && g->also)
                r = thumb_scaler_push(g->also, rows, g->stride, h);
        *scale_usec += now_usec() - t;
        return r;
}

/* -EOPNOTSUPP when the first strip fails (nothing was pushed: the caller may
 * try the other way), -EIO when a later one does, on_rows' error. The first
 * strips are in flight already (issue_first). */
static int grab_strips(struct grab *g, struct thumb_scaler *s, unsigned long long *scale_usec) {
        int r = 0;

        for (unsigned i = 0; i < g->strips; i++) {
                _cleanup_free_ xcb_generic_error_t *err = NULL;
                unsigned h = strip_rows(g, i), slot = i % IN_FLIGHT;

                g->received = i + 1;
                if (g->shm) {
                        _cleanup_free_ xcb_shm_get_image_reply_t *reply =
                                xcb_shm_get_image_reply(g->c, (xcb_shm_get_image_cookie_t) { g->seq[slot] }, &err);
                        if (reply)
                                r = push_strip(g, s, g->map + slot * g->slot_size, h, scale_usec);
                        else
                                r = i == 0 ? -EOPNOTSUPP : -EIO;
                } else {
                        _cleanup_free_ xcb_get_image_reply_t *reply =
                                xcb_get_image_reply(g->c, (xcb_get_image_cookie_t) { g->seq[slot] }, &err);
                        if (!reply)
                                r = i == 0 ? -EOPNOTSUPP : -EIO;
                        else if ((size_t) xcb_get_image_data_length(reply) < g->stride * h)
                                r = -EIO;
                        else
                                r = push_strip(g, s, xcb_get_image_data(reply), h, scale_usec);
                }
                if (r >= 0 && s)
                        r = emit_rows(g, s);
                if (r < 0) {
                        discard_in_flight(g);
                        return r;
                }
                if (g->issued < g->strips)
                        issue(g);
        }
        return 0;
}

/*
 * MIT-SHM into a memfd (SHM 1.2 passes the fd over the socket): nothing
 * named, no SysV segment to leak if we die. Sends the version query, the
 * attach and the first strips in one go: an older server fails the attach
 * and the strips, and shm_check() then says so. -EOPNOTSUPP when nothing
 * could be sent; the caller then reads with GetImage.
 */
static int shm_begin(struct grab *g) {
        _cleanup_close_ int fd = -EBADF;
        const xcb_query_extension_reply_t *ext;
        void *map;

        ext = xcb_get_extension_data(g->c, &xcb_shm_id);
        if (!ext || !ext->present)
                return -EOPNOTSUPP;

        g->slot_size = g->stride * g->rows;
        g->map_size = g->slot_size * IN_FLIGHT;
        fd = memfd_create("botdesk-thumbnail", MFD_CLOEXEC);
        if (fd < 0)
                return -EOPNOTSUPP;
        /* Sized only: the server's first copies allocate the pages, on its
         * core while we build the scaler, and our reads find them there
         * (allocating them here, fallocate or MAP_POPULATE, put 200-300 us
         * of zeroing in front of the first request). */
        if (ftruncate(fd, (off_t) g->map_size) < 0)
                return -EOPNOTSUPP;
        map = mmap(NULL, g->map_size, PROT_READ, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED)
                return -EOPNOTSUPP;

        g->map = map;
        g->version = xcb_shm_query_version(g->c);
        g->version_pending = true;
        g->seg = xcb_generate_id(g->c);
        /* xcb closes the fd once it is sent. */
        xcb_shm_attach_fd(g->c, g->seg, TAKE_FD(fd), 0);
        g->shm = true;
        issue_first(g);
        return 0;
}

static void shm_end(struct grab *g) {
        if (!g->map)
                return;
        discard_in_flight(g);
        if (g->version_pending)
                xcb_discard_reply(g->c, g->version.sequence);
        g->version_pending = false;
        xcb_shm_detach(g->c, g->seg);
        xcb_flush(g->c);
        munmap(g->map, g->map_size);
        g->map = NULL;
        g->shm = false;
}

/* Whether the server speaks SHM 1.2 (fd passing): else the strips asked for fail. */
static bool shm_check(struct grab *g) {
        _cleanup_free_ xcb_shm_query_version_reply_t *ver = xcb_shm_query_version_reply(g->c, g->version, NULL);

        g->version_pending = false;
        return ver && (ver->major_version > 1 || (ver->major_version == 1 && ver->minor_version >= 2));
}

static void grab_done(struct grab *g) {
        shm_end(g);
        discard_in_flight(g);
}

/*
 * The screen's layout into g, and the first strips asked for (MIT-SHM when
 * it can): an enum thumb_pixfmt, -ENXIO, -EOPNOTSUPP, -EIO.
 */
static int grab_begin(struct grab *g, int screen) {
        const xcb_setup_t *setup = xcb_get_setup(g->c);
        const xcb_screen_t *scr = screen_of(setup, screen);
        const xcb_visualtype_t *v;
        const xcb_format_t *pf;
        int fmt;

        if (!scr)
                return -ENXIO;
        v = visual_of(scr, scr->root_visual);
        pf = format_of(setup, scr->root_depth);
        if (!v || !pf || pf->scanline_pad == 0 || pf->scanline_pad % 8 != 0)
                return -EOPNOTSUPP;
        fmt = thumb_pixfmt_from_x(pf->bits_per_pixel, scr->root_depth,
                                  setup->image_byte_order == XCB_IMAGE_ORDER_MSB_FIRST, v->red_mask, v->green_mask,
                                  v->blue_mask);
        if (fmt < 0)
                return fmt;

        g->root = scr->root;
        g->width = scr->width_in_pixels;
        g->height = scr->height_in_pixels;
        if (g->width == 0 || g->height == 0)
                return -EIO;
        /* ZPixmap rows are padded to the format's scanline_pad bits. */
        g->stride = ((size_t) g->width * pf->bits_per_pixel + pf->scanline_pad - 1) / pf->scanline_pad *
                    pf->scanline_pad / 8;
        g->row_bytes = (size_t) g->width * thumb_pixfmt_bytes((enum thumb_pixfmt) fmt);
        g->hash = screen_hash_begin(g->width, g->height, thumb_pixfmt_bytes((enum thumb_pixfmt) fmt));
        g->rows = (unsigned) (STRIP_BYTES / g->stride) ?: 1;
        g->strips = (g->height + g->rows - 1) / g->rows;

        if (shm_begin(g) < 0)
                issue_first(g);
        return fmt;
}

/* The strips read with s (NULL: hashed only), the SHM way first, GetImage when the server refuses it. */
static int grab_all(struct grab *g, struct thumb_scaler *s, unsigned long long *scale_usec) {
        int r = -EOPNOTSUPP;

        if (g->shm && shm_check(g))
                r = grab_strips(g, s, scale_usec);
        if (r == -EOPNOTSUPP && g->shm) {
                shm_end(g);
                issue_first(g);
        }
        if (r == -EOPNOTSUPP)
                r = grab_strips(g, s, scale_usec);
        return r == -EOPNOTSUPP ? -EIO : r;
}

int thumb_grab_hash(xcb_connection_t *c, int screen, uint64_t *ret_hash) {
        _cleanup_(grab_done) struct grab g = { .c = c };
        unsigned long long unused = 0;
        int r;

        r = grab_begin(&g, screen);
        if (r < 0)
                return r;
        r = grab_all(&g, NULL, &unused);
        if (r < 0)
                return r;
        *ret_hash = g.hash;
        return 0;
}

int thumb_grab_scaled_stream(xcb_connection_t *c, int screen, unsigned box_w, unsigned box_h, thumb_rows_fn on_rows,
                             void *userdata, struct thumb_image *ret) {
        return thumb_grab_scaled_also(c, screen, box_w, box_h, on_rows, userdata, NULL, ret);
}

int thumb_grab_scaled_also(xcb_connection_t *c, int screen, unsigned box_w, unsigned box_h, thumb_rows_fn on_rows,
                           void *userdata, struct thumb_picture *also, struct thumb_image *ret) {
        _cleanup_(thumb_scaler_freep) struct thumb_scaler *s = NULL, *s_also = NULL;
        _cleanup_free_ uint8_t *rgb = NULL, *rgb_also = NULL;
        _cleanup_(grab_done) struct grab g = { .c = c, .on_rows = on_rows, .userdata = userdata };
        unsigned long long scale_usec = 0;
        unsigned w, h;
        int fmt, r;

        if (box_w == 0 || box_h == 0 || (also && (also->box_w == 0 || also->box_h == 0)))
                return -EINVAL;
        if (also)
                also->rgb = NULL;
        fmt = grab_begin(&g, screen);
        if (fmt < 0)
                return fmt;

        thumb_fit(g.width, g.height, box_w, box_h, &w, &h);
        /* A caller that takes the rows as they come gets them through a
         * ring that holds what one strip completes, which stays in the
         * cache; otherwise the whole thumbnail. */
        g.ring_rows = on_rows ? thumb_scaler_ring_rows(g.height, h, g.rows) : h;
        rgb = on_rows ? malloc((size_t) w * g.ring_rows * 3) : buffer_alloc((size_t) w * h * 3);
        if (!rgb)
                return -ENOMEM;
        r = thumb_scaler_new_ring((enum thumb_pixfmt) fmt, g.width, g.height, rgb, g.ring_rows, w, h, &s);
        if (r < 0)
                return r;
        if (also) {
                unsigned aw, ah;

                thumb_fit(g.width, g.height, also->box_w, also->box_h, &aw, &ah);
                rgb_also = buffer_alloc((size_t) aw * ah * 3);
                if (!rgb_also)
                        return -ENOMEM;
                r = thumb_scaler_new((enum thumb_pixfmt) fmt, g.width, g.height, rgb_also, aw, ah, &s_also);
                if (r < 0)
                        return r;
                also->width = aw;
                also->height = ah;
                g.also = s_also;
        }
        g.rgb = rgb;
        g.out_w = w;
        g.out_h = h;
        /* The size, before the first strip is back: the caller sets up its
         * encoder while the server copies. */
        if (on_rows) {
                r = on_rows(rgb, w, h, 0, 0, userdata);
                if (r < 0)
                        return r;
        }

        r = grab_all(&g, s, &scale_usec);
        if (r < 0)
                return r;

        if (also)
                also->rgb = TAKE_PTR(rgb_also);
        *ret = (struct thumb_image) {
                .rgb = on_rows ? NULL : TAKE_PTR(rgb),
                .width = w,
                .height = h,
                .screen_width = g.width,
                .screen_height = g.height,
                .shm = g.shm,
                .scale_usec = scale_usec,
                .hash = g.hash,
        };
        return 0;
}

int thumb_grab_scaled(xcb_connection_t *c, int screen, unsigned box_w, unsigned box_h, struct thumb_image *ret) {
        return thumb_grab_scaled_stream(c, screen, box_w, box_h, NULL, NULL, ret);
}
