/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The scaler's inner loops over bytes (every channel of a pixel alike),
 * written as plain loops for the compiler to vectorise at the widest the
 * CPU offers (thumbnail-kernels.c is built with -O3, and on x86 once for
 * AVX2 and once for the SSE2 baseline, picked at load time).
 *
 * Sums carry 8 fractional bits: a weight is 0..256, at most 256 in all
 * over one output, so a sum never exceeds 255 * 256.
 */

/* acc[j] = (first ? 0 : acc[j]) + row[j] * w, for j < n. */
void thumb_kernel_mul_add(uint16_t *restrict acc, const uint8_t *restrict row, size_t n, uint16_t w, bool first);

/* The same with a weight per byte, w[j]. */
void thumb_kernel_mul_add_each(uint16_t *restrict acc, const uint8_t *restrict row, size_t n,
                               const uint16_t *restrict w, bool first);

/* out[j] = acc[j] / 256, rounded. */
void thumb_kernel_narrow(const uint16_t *restrict acc, size_t n, uint8_t *restrict out);

/* out[x] = the 4 bytes at mid + idx[x] * 4, for x < n. */
void thumb_kernel_gather(uint32_t *restrict out, const uint8_t *restrict mid, const uint32_t *restrict idx, size_t n);

/* Packed R G B from n 4-byte pixels, whose R, G and B sit at byte ro, go, bo. */
void thumb_kernel_pick_rgb(uint8_t *restrict out, const uint8_t *restrict pix, size_t n, unsigned ro, unsigned go,
                           unsigned bo);
