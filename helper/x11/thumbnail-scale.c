/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The scaler of thumbnail.h: whole pictures, or strips as they arrive. */
#include <stdlib.h>

#include "thumbnail.h"
#include "thumbnail-kernels.h"
#include "util.h"

/* ---- scaling ---------------------------------------------------------------------------------- */

/*
 * Area averaging, separable, in 16-bit integers. Each output pixel covers an
 * interval of n_src/n_dst source pixels; its taps are the source pixels
 * overlapping that interval, weighted by the overlap in 1/256ths. Weights are
 * rounded cumulatively so those of one output sum to exactly 256: a flat
 * colour stays exact and no tap collects the rounding error of the others.
 *
 * The vertical pass runs first, over whole source rows as bytes (all four
 * channels of a 32-bit pixel alike): a multiply-add of u8 by a weight of at
 * most 256 into u16 over contiguous memory, in thumbnail-kernels.c's loops,
 * vectorised at the CPU's width. Its result is rounded back to bytes, and
 * the horizontal pass does the same per tap on pixels gathered from it, with
 * a weight per byte. The two roundings cost at most one level per channel.
 * Beyond 256:1 some taps weigh 0 and the others sample the area evenly.
 */
#define WEIGHT_ONE 256u

struct taps {
        unsigned *first;        /* per output: first source index */
        unsigned *count;        /* per output: how many source pixels */
        unsigned *offset;       /* per output: its first weight in weight[] */
        uint16_t *weight;
        unsigned max_count;
};

static void taps_done(struct taps *t) {
        free(t->first);
        free(t->count);
        free(t->offset);
        free(t->weight);
}

static int taps_build(unsigned n_src, unsigned n_dst, struct taps *t) {
        size_t k = 0;

        /* Consecutive outputs share at most one boundary source pixel. */
        t->first = malloc(sizeof(unsigned) * n_dst);
        t->count = malloc(sizeof(unsigned) * n_dst);
        t->offset = malloc(sizeof(unsigned) * n_dst);
        t->weight = malloc(sizeof(uint16_t) * ((size_t) n_src + n_dst));
        if (!t->first || !t->count || !t->offset || !t->weight)
                return -ENOMEM;

        t->max_count = 0;
        for (unsigned i = 0; i < n_dst; i++) {
                /* In units where one source pixel is n_dst long and one output pixel n_src. */
                uint64_t lo = (uint64_t) i * n_src, hi = lo + n_src;
                unsigned j0 = (unsigned) (lo / n_dst), j1 = (unsigned) ((hi - 1) / n_dst);
                unsigned done = 0;

                t->first[i] = j0;
                t->count[i] = j1 - j0 + 1;
                t->offset[i] = (unsigned) k;
                if (t->count[i] > t->max_count)
                        t->max_count = t->count[i];
                for (unsigned j = j0; j <= j1; j++) {
                        uint64_t end = (uint64_t) (j + 1) * n_dst;
                        unsigned cum;

                        if (end > hi)
                                end = hi;
                        cum = (unsigned) (((end - lo) * WEIGHT_ONE + n_src / 2) / n_src);
                        t->weight[k++] = (uint16_t) (cum - done);
                        done = cum;
                }
        }
        return 0;
}

/* Where R, G and B sit in a 4-byte pixel (the 565 formats are expanded to R G B X first). */
static void channel_offsets(enum thumb_pixfmt f, unsigned *r, unsigned *g, unsigned *b) {
        static const uint8_t off[][3] = {
                [THUMB_BGRX8888] = { 2, 1, 0 },
                [THUMB_XRGB8888] = { 1, 2, 3 },
                [THUMB_RGBX8888] = { 0, 1, 2 },
                [THUMB_XBGR8888] = { 3, 2, 1 },
                [THUMB_RGB565_LE] = { 0, 1, 2 },
                [THUMB_RGB565_BE] = { 0, 1, 2 },
        };
        *r = off[f][0];
        *g = off[f][1];
        *b = off[f][2];
}

/* One 16-bit row expanded to R G B X bytes; high bits replicated so 0x1f is 255, not 248. */
static void expand565(const uint8_t *row, unsigned n, bool big_endian, uint8_t *out) {
        for (unsigned x = 0; x < n; x++, row += 2, out += 4) {
                unsigned v = big_endian ? (unsigned) row[0] << 8 | row[1] : (unsigned) row[1] << 8 | row[0];
                unsigned r5 = v >> 11, g6 = (v >> 5) & 0x3f, b5 = v & 0x1f;

                out[0] = (uint8_t) (r5 << 3 | r5 >> 2);
                out[1] = (uint8_t) (g6 << 2 | g6 >> 4);
                out[2] = (uint8_t) (b5 << 3 | b5 >> 2);
                out[3] = 0;
        }
}

struct thumb_scaler {
        enum thumb_pixfmt fmt;
        unsigned src_w, src_h, dst_w, dst_h;
        uint8_t *dst;
        unsigned dst_rows;              /* rows dst holds: output row y goes to row y % dst_rows */
        struct taps th, tv;
        unsigned ro, go, bo;
        unsigned T;                     /* horizontal taps of the widest output pixel */
        uint32_t *hindex;               /* T planes of dst_w source indexes */
        uint16_t *hweight;              /* T planes of dst_w * 4 byte weights */
        uint16_t *acc[2];               /* vertical sums of output rows y and y + 1 (by parity) */
        uint16_t *hacc;                 /* horizontal sums of one output row */
        uint8_t *mid;                   /* one vertically filtered row, 4 bytes a pixel */
        uint32_t *gathered;             /* the k-th tap of every output pixel */
        uint8_t *expanded;              /* a 565 row as R G B X */
        unsigned next_row;              /* the source row push expects next */
        unsigned y;                     /* the output row being summed */
};

struct thumb_scaler *thumb_scaler_free(struct thumb_scaler *s) {
        if (!s)
                return NULL;
        taps_done(&s->th);
        taps_done(&s->tv);
        free(s->hindex);
        free(s->hweight);
        for (unsigned i = 0; i < 2; i++)
                free(s->acc[i]);
        free(s->hacc);
        free(s->mid);
        free(s->gathered);
        free(s->expanded);
        free(s);
        return NULL;
}

unsigned thumb_scaler_ring_rows(unsigned src_h, unsigned dst_h, unsigned n) {
        /* Output row y completes with source row ((y + 1) * src_h - 1) / dst_h
         * (taps_build), the floor of points src_h / dst_h apart: k of them fall
         * in n consecutive rows only if (k - 1) * src_h < n * dst_h. */
        uint64_t rows = src_h == 0 || n == 0 ? 1 : ((uint64_t) n * dst_h - 1) / src_h + 1;

        return (unsigned) (rows > dst_h ? dst_h : rows);
}

int thumb_scaler_new_ring(enum thumb_pixfmt fmt, unsigned src_w, unsigned src_h, uint8_t *dst, unsigned dst_rows,
                          unsigned dst_w, unsigned dst_h, struct thumb_scaler **ret) {
        _cleanup_(thumb_scaler_freep) struct thumb_scaler *s = NULL;
        /* Bytes of a source row and of an output row, 4 a pixel. */
        size_t n = (size_t) src_w * 4, m = (size_t) dst_w * 4;
        int r;

        /* X screens are at most 32767 pixels each way; the bound keeps every
         * size computation below far from overflowing. */
        if (!dst || (unsigned) fmt >= _THUMB_PIXFMT_MAX || dst_w == 0 || dst_h == 0 || dst_w > src_w ||
            dst_h > src_h || src_w > UINT16_MAX || src_h > UINT16_MAX || dst_rows == 0 || dst_rows > dst_h)
                return -EINVAL;
        s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        *s = (struct thumb_scaler) {
                .fmt = fmt,
                .src_w = src_w,
                .src_h = src_h,
                .dst_w = dst_w,
                .dst_h = dst_h,
                .dst = dst,
                .dst_rows = dst_rows,
        };
        r = taps_build(src_w, dst_w, &s->th);
        if (r < 0)
                return r;
        r = taps_build(src_h, dst_h, &s->tv);
        if (r < 0)
                return r;

        /* The horizontal taps as T planes: plane k holds, for every output
         * pixel, the index of its k-th source pixel and that tap's weight in
         * both words of the pixel (0 past its own count). */
        s->T = s->th.max_count;
        s->hindex = malloc(sizeof(uint32_t) * s->T * dst_w);
        s->hweight = malloc(sizeof(uint16_t) * s->T * m);
        for (unsigned i = 0; i < 2; i++) {
                s->acc[i] = malloc(sizeof(uint16_t) * n);
                if (!s->acc[i])
                        return -ENOMEM;
        }
        s->hacc = malloc(sizeof(uint16_t) * m);
        s->mid = malloc(n);
        s->gathered = malloc(sizeof(uint32_t) * dst_w);
        if (!s->hindex || !s->hweight || !s->hacc || !s->mid || !s->gathered)
                return -ENOMEM;
        if (fmt == THUMB_RGB565_LE || fmt == THUMB_RGB565_BE) {
                s->expanded = malloc(n);
                if (!s->expanded)
                        return -ENOMEM;
        }
        for (unsigned k = 0; k < s->T; k++)
                for (unsigned x = 0; x < dst_w; x++) {
                        bool used = k < s->th.count[x];
                        uint16_t w = used ? s->th.weight[s->th.offset[x] + k] : 0;

                        s->hindex[(size_t) k * dst_w + x] = used ? s->th.first[x] + k : s->th.first[x];
                        for (unsigned c = 0; c < 4; c++)
                                s->hweight[(size_t) k * m + x * 4 + c] = w;
                }
        channel_offsets(fmt, &s->ro, &s->go, &s->bo);
        *ret = TAKE_PTR(s);
        return 0;
}

/* Output row y is summed vertically in lo/hi[b]: filter it horizontally into dst. */
static void finish_row(const struct thumb_scaler *s, unsigned y, unsigned b) {
        const unsigned n = s->dst_w;
        const size_t m = (size_t) n * 4;

        thumb_kernel_narrow(s->acc[b], (size_t) s->src_w * 4, s->mid);
        for (unsigned k = 0; k < s->T; k++) {
                thumb_kernel_gather(s->gathered, s->mid, s->hindex + (size_t) k * n, n);
                thumb_kernel_mul_add_each(s->hacc, (const uint8_t *) s->gathered, m, s->hweight + (size_t) k * m,
                                          k == 0);
        }
        thumb_kernel_narrow(s->hacc, m, (uint8_t *) s->gathered);
        thumb_kernel_pick_rgb(s->dst + (size_t) (y % s->dst_rows) * n * 3, (const uint8_t *) s->gathered, n, s->ro,
                              s->go, s->bo);
}

/* Source row j adds to the output rows whose taps include it: y and, on a
 * shared boundary, y + 1 (a downscale never spreads a row over more). */
static void push_row(struct thumb_scaler *s, const uint8_t *row) {
        unsigned j = s->next_row++, y0 = s->y;

        if (s->expanded) {
                expand565(row, s->src_w, s->fmt == THUMB_RGB565_BE, s->expanded);
                row = s->expanded;
        }
        for (unsigned y = y0; y < s->dst_h && y <= y0 + 1; y++) {
                unsigned first = s->tv.first[y], count = s->tv.count[y], k;

                if (j < first || j >= first + count)
                        continue;
                k = j - first;
                thumb_kernel_mul_add(s->acc[y & 1], row, (size_t) s->src_w * 4, s->tv.weight[s->tv.offset[y] + k],
                                     k == 0);
                if (k == count - 1) {
                        finish_row(s, y, y & 1);
                        s->y = y + 1;
                }
        }
}

int thumb_scaler_new(enum thumb_pixfmt fmt, unsigned src_w, unsigned src_h, uint8_t *dst, unsigned dst_w,
                     unsigned dst_h, struct thumb_scaler **ret) {
        return thumb_scaler_new_ring(fmt, src_w, src_h, dst, dst_h, dst_w, dst_h, ret);
}

unsigned thumb_scaler_rows_done(const struct thumb_scaler *s) {
        return s ? s->y : 0;
}

int thumb_scaler_push(struct thumb_scaler *s, const uint8_t *rows, size_t stride, unsigned n) {
        if (!s || !rows || n > s->src_h - s->next_row ||
            (n > 0 && stride < (size_t) s->src_w * thumb_pixfmt_bytes(s->fmt)))
                return -EINVAL;
        for (unsigned i = 0; i < n; i++)
                push_row(s, rows + (size_t) i * stride);
        return 0;
}

int thumb_scale(const uint8_t *src, enum thumb_pixfmt fmt, unsigned src_w, unsigned src_h, size_t src_stride,
                uint8_t *dst, unsigned dst_w, unsigned dst_h) {
        _cleanup_(thumb_scaler_freep) struct thumb_scaler *s = NULL;
        int r;

        if (!src || (unsigned) fmt >= _THUMB_PIXFMT_MAX || src_stride < (size_t) src_w * thumb_pixfmt_bytes(fmt))
                return -EINVAL;
        r = thumb_scaler_new(fmt, src_w, src_h, dst, dst_w, dst_h, &s);
        if (r < 0)
                return r;
        return thumb_scaler_push(s, src, src_stride, src_h);
}
