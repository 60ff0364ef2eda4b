/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * The journal's frame of an action that ends with a screenshot, made from
 * the agent's own picture as its rows come out of the grab: the screen the
 * agent saw, frame_width wide, scaled and encoded as the frame process
 * would (journal-hook.h). The journal then needs no second process reading
 * the screen again, and the next action does not wait for one.
 */
struct agent_frame;

/*
 * For a picture of w x h: the frame fits frame_width (never wider than the
 * picture). -EOPNOTSUPP when the picture is narrower than frame_width (the
 * frame process reads the screen then), -EINVAL, -ENOMEM.
 */
int agent_frame_new(unsigned frame_width, unsigned w, unsigned h, struct agent_frame **ret);
/* The picture's next n rows, packed RGB888 (w * 3 bytes a row), top to bottom. */
int agent_frame_push(struct agent_frame *f, const uint8_t *rgb, unsigned n);
/* The frame as JPEG, handed to the caller, once all h rows were pushed (-EINVAL before). */
int agent_frame_finish(struct agent_frame *f, uint8_t **ret, size_t *ret_size);
struct agent_frame *agent_frame_free(struct agent_frame *f);
