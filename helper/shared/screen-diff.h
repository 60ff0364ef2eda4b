/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

/*
 * What changed between two pictures of a screen of the same size (packed
 * RGB888, width * 3 bytes a row): the box an agent's "changed_region"
 * names, and the part of the new picture it shows. Pure: no X, no files.
 */

/*
 * The smallest box holding every pixel that differs, inclusive corners
 * {x0, y0, x1, y1} in ret_box, widened by margin pixels on each side
 * within the picture (some context around what changed). 1 with the box,
 * 0 when the pictures are equal.
 */
int screen_diff_box(const uint8_t *old_rgb, const uint8_t *new_rgb, unsigned width, unsigned height, unsigned margin,
                    unsigned ret_box[static 4]);

/* The box's pixels of rgb (width pixels a row), packed, in *ret (new). 0 or -ENOMEM, -EINVAL for a box outside. */
int screen_crop(const uint8_t *rgb, unsigned width, unsigned height, const unsigned box[static 4], uint8_t **ret);
