/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * PNG thumbnails (thumb_encode_png in thumbnail.h) through libpng, loaded
 * with dlopen() the first time a PNG is asked for, as systemd loads its
 * optional libraries: a JPEG thumbnail and the input verbs, which live in
 * the same module, then never map libpng and zlib (165 us of every such
 * process, measured by dlopen on this machine's 2 cores).
 */
#include <png.h>
#include <setjmp.h>

#include "buffer.h"
#include "dlopen-util.h"
#include "thumbnail.h"
#include "util.h"

#define PNG_STR2(x) #x
#define PNG_STR(x) PNG_STR2(x)
/* The library the header belongs to, by its soname: libpng16.so.16. */
#define PNG_SONAME "libpng" PNG_STR(PNG_LIBPNG_VER_DLLNUM) ".so." PNG_STR(PNG_LIBPNG_VER_SONUM)

#define PNG_SYMBOLS(X)                  \
        X(png_create_write_struct)      \
        X(png_create_info_struct)       \
        X(png_destroy_write_struct)     \
        X(png_set_longjmp_fn)           \
        X(png_longjmp)                  \
        X(png_error)                    \
        X(png_get_io_ptr)               \
        X(png_set_write_fn)             \
        X(png_set_IHDR)                 \
        X(png_set_compression_level)    \
        X(png_set_filter)               \
        X(png_write_info)               \
        X(png_write_row)                \
        X(png_write_end)

/* Loaded once and never unloaded: the process ends with its verb. */
static struct {
#define PNG_FIELD(name) typeof(name) *name;
        PNG_SYMBOLS(PNG_FIELD)
#undef PNG_FIELD
} libpng;
static bool libpng_loaded;

/* 0, or -ELIBACC when libpng cannot be loaded. */
static int libpng_load(void) {
        static const struct dlopen_symbol syms[] = {
#define PNG_ROW(name) DLOPEN_SYMBOL(name, libpng.name),
                PNG_SYMBOLS(PNG_ROW)
#undef PNG_ROW
        };
        int r;

        if (libpng_loaded)
                return 0;
        r = dlopen_symbols(PNG_SONAME, syms, ELEMENTSOF(syms));
        libpng_loaded = r >= 0;
        return r;
}

/* An encoded picture is never bigger than its rows stored uncompressed (zlib's stored blocks add 5 bytes in
 * 16 KiB): twice that and a margin is a cap no valid PNG reaches, and a bound on what a failing encoder costs. */
static size_t png_cap(unsigned w, unsigned h) {
        return (size_t) h * ((size_t) w * 3 + 1) * 2 + 64 * 1024;
}

static void png_write_cb(png_structp p, png_bytep data, size_t len) {
        struct buffer *m = libpng.png_get_io_ptr(p);

        if (buffer_append(m, data, len) < 0)
                libpng.png_error(p, "out of memory");
}

static void png_flush_cb(_unused_ png_structp p) {
}

/* libpng prints errors and warnings on stderr by default; the caller reports. */
static void png_error_cb(png_structp p, _unused_ png_const_charp msg) {
        libpng.png_longjmp(p, 1);
}

static void png_warning_cb(_unused_ png_structp p, _unused_ png_const_charp msg) {
}

int thumb_encode_png(const uint8_t *rgb, unsigned w, unsigned h, int level, uint8_t **ret, size_t *ret_size) {
        struct buffer m;
        png_structp p;
        png_infop info;
        int r;

        if (!rgb || w == 0 || h == 0 || level < 0 || level > 9)
                return -EINVAL;
        r = libpng_load();
        if (r < 0)
                return r;
        m = BUFFER_GROWABLE(png_cap(w, h));
        p = libpng.png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_cb, png_warning_cb);
        if (!p)
                return -ENOMEM;
        info = libpng.png_create_info_struct(p);
        if (!info) {
                libpng.png_destroy_write_struct(&p, NULL);
                return -ENOMEM;
        }
        /* m lives in memory (its address is handed to libpng), so it is
         * current after the longjmp. png_jmpbuf() by hand: it names the
         * library's function directly. */
        if (setjmp(*libpng.png_set_longjmp_fn(p, longjmp, sizeof(jmp_buf)))) {
                libpng.png_destroy_write_struct(&p, &info);
                buffer_done(&m);
                return -EIO;
        }
        libpng.png_set_write_fn(p, &m, png_write_cb, png_flush_cb);
        libpng.png_set_IHDR(p, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                         PNG_FILTER_TYPE_DEFAULT);
        libpng.png_set_compression_level(p, level);
        /* No row filter: on a screen of flat areas and text it is both the
         * fastest and (measured on Xfce screenshots) the smallest; adaptive
         * filtering costs four times the time for bigger files. */
        libpng.png_set_filter(p, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
        libpng.png_write_info(p, info);
        for (unsigned y = 0; y < h; y++)
                libpng.png_write_row(p, (png_const_bytep) (rgb + (size_t) y * w * 3));
        libpng.png_write_end(p, info);
        libpng.png_destroy_write_struct(&p, &info);

        *ret = buffer_steal(&m, ret_size);
        return 0;
}
