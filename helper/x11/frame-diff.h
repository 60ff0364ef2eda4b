/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Comparing a screen with a journal frame (botdesk journal replay): a JPEG
 * decoded to packed RGB888, and the share of pixels that differ.
 */

/* Decode a baseline or progressive JPEG into new packed RGB888 (w * 3 bytes a row). -EINVAL, -ENOMEM. */
int frame_jpeg_decode(const void *data, size_t size, uint8_t **ret_rgb, unsigned *ret_w, unsigned *ret_h);

/*
 * The per cent of the w x h pixels of a and b (packed RGB888) whose
 * largest channel difference exceeds threshold (0-255): JPEG's own noise
 * stays under a threshold of 32 or so.
 */
double frame_diff_percent(const uint8_t *a, const uint8_t *b, unsigned w, unsigned h, unsigned threshold);

#define FRAME_DIFF_THRESHOLD 48u
#define FRAME_DIFF_TOLERANCE_DEFAULT 1.0      /* per cent of the pixels */
