/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scaler's inner loops (thumbnail-kernels.h). Plain loops over bytes:
 * GCC vectorises them at -O3 (meson.build) into whatever the target has,
 * 32 bytes a step with AVX2, where hand-written 16-byte vector types kept
 * even AVX2 machines at SSE2's width.
 */
#include <string.h>

#include "thumbnail-kernels.h"

/* x86 machines differ in vector width beyond the SSE2 baseline: build the
 * loops for both and let the loader pick (an ifunc). Elsewhere one build. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define KERNEL
#endif

KERNEL void thumb_kernel_mul_add(uint16_t *restrict acc, const uint8_t *restrict row, size_t n, uint16_t w,
                                 bool first) {
        if (first)
                for (size_t j = 0; j < n; j++)
                        acc[j] = (uint16_t) (row[j] * w);
        else
                for (size_t j = 0; j < n; j++)
                        acc[j] = (uint16_t) (acc[j] + row[j] * w);
}

KERNEL void thumb_kernel_mul_add_each(uint16_t *restrict acc, const uint8_t *restrict row, size_t n,
                                      const uint16_t *restrict w, bool first) {
        if (first)
                for (size_t j = 0; j < n; j++)
                        acc[j] = (uint16_t) (row[j] * w[j]);
        else
                for (size_t j = 0; j < n; j++)
                        acc[j] = (uint16_t) (acc[j] + row[j] * w[j]);
}

KERNEL void thumb_kernel_narrow(const uint16_t *restrict acc, size_t n, uint8_t *restrict out) {
        /* At most (65280 + 128) >> 8 = 255: no overflow. */
        for (size_t j = 0; j < n; j++)
                out[j] = (uint8_t) ((acc[j] + 128u) >> 8);
}

KERNEL void thumb_kernel_gather(uint32_t *restrict out, const uint8_t *restrict mid, const uint32_t *restrict idx,
                                size_t n) {
        for (size_t x = 0; x < n; x++)
                memcpy(out + x, mid + (size_t) idx[x] * 4, 4);
}

KERNEL void thumb_kernel_pick_rgb(uint8_t *restrict out, const uint8_t *restrict pix, size_t n, unsigned ro,
                                  unsigned go, unsigned bo) {
        /* Xvnc's own layout (BGRX) with constant offsets, which the
         * vectoriser turns into byte shuffles; any other the plain way. */
        if (ro == 2 && go == 1 && bo == 0) {
                for (size_t x = 0; x < n; x++) {
                        out[3 * x] = pix[4 * x + 2];
                        out[3 * x + 1] = pix[4 * x + 1];
                        out[3 * x + 2] = pix[4 * x];
                }
                return;
        }
        for (size_t x = 0; x < n; x++) {
                out[3 * x] = pix[4 * x + ro];
                out[3 * x + 1] = pix[4 * x + go];
                out[3 * x + 2] = pix[4 * x + bo];
        }
}
