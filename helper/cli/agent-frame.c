/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "agent-frame.h"
#include "thumbnail.h"
#include "thumbnail-kernels.h"
#include "util.h"

/* Rows converted to the scaler's 4-byte pixels at a time: a few KB that stay in the cache. */
#define CHUNK_ROWS 8u

struct agent_frame {
        struct thumb_scaler *scaler;
        unsigned w, h;                  /* the picture */
        unsigned fw, fh;                /* the frame */
        unsigned pushed;
        uint8_t *rgb;                   /* the frame, fw * 3 bytes a row */
        uint8_t *rgbx;                  /* CHUNK_ROWS picture rows as R G B X */
};

struct agent_frame *agent_frame_free(struct agent_frame *f) {
        if (!f)
                return NULL;
        thumb_scaler_free(f->scaler);
        free(f->rgb);
        free(f->rgbx);
        free(f);
        return NULL;
}

static void agent_frame_freep(struct agent_frame **f) {
        agent_frame_free(*f);
}

int agent_frame_new(unsigned frame_width, unsigned w, unsigned h, struct agent_frame **ret) {
        _cleanup_(agent_frame_freep) struct agent_frame *f = NULL;
        int r;

        if (frame_width == 0 || w == 0 || h == 0 || w > THUMB_SIZE_MAX || h > THUMB_SIZE_MAX)
                return -EINVAL;
        if (frame_width > w)
                return -EOPNOTSUPP;
        f = calloc(1, sizeof *f);
        if (!f)
                return -ENOMEM;
        f->w = w;
        f->h = h;
        /* As the frame process fits the screen: frame_width wide, any height. */
        thumb_fit(w, h, frame_width, THUMB_SIZE_MAX, &f->fw, &f->fh);
        f->rgb = malloc((size_t) f->fw * f->fh * 3);
        f->rgbx = malloc((size_t) w * 4 * CHUNK_ROWS);
        if (!f->rgb || !f->rgbx)
                return -ENOMEM;
        r = thumb_scaler_new(THUMB_RGBX8888, w, h, f->rgb, f->fw, f->fh, &f->scaler);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(f);
        return 0;
}

int agent_frame_push(struct agent_frame *f, const uint8_t *rgb, unsigned n) {
        if (!f || !rgb || n > f->h - f->pushed)
                return -EINVAL;
        while (n > 0) {
                unsigned k = n < CHUNK_ROWS ? n : CHUNK_ROWS;
                size_t px = (size_t) f->w * k;
                int r;

                thumb_kernel_rgb_to_rgbx(f->rgbx, rgb, px);
                r = thumb_scaler_push(f->scaler, f->rgbx, (size_t) f->w * 4, k);
                if (r < 0)
                        return r;
                f->pushed += k;
                rgb += px * 3;
                n -= k;
        }
        return 0;
}

int agent_frame_finish(struct agent_frame *f, uint8_t **ret, size_t *ret_size) {
        if (!f || f->pushed != f->h)
                return -EINVAL;
        return thumb_encode_jpeg(f->rgb, f->fw, f->fh, THUMB_JPEG_QUALITY_DEFAULT, ret, ret_size);
}
