/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The agent's pictures of the screen (agent-picture.h). A screenshot is
 * read and scaled strip by strip into the JPEG encoder; once a request
 * asked for changed_region the whole picture is kept instead, so that the
 * next one can be compared with it and only the part that changed handed
 * out.
 */
#include <stdlib.h>

#include "agent-picture.h"
#include "agent-remote.h"
#include "screen-diff.h"
#include "thumbnail.h"
#include "util.h"

void agent_space_for(const struct agent *a, unsigned sw, unsigned sh, struct mcp_space *ret) {
        unsigned w, h;

        mcp_space_fit(sw, sh, a->max_edge, a->max_pixels, ret);
        /* The grab fits its box by its own rounding (thumb_fit): the space
         * is the size it will really return, which never exceeds the box. */
        thumb_fit(sw, sh, ret->image_w, ret->image_h, &w, &h);
        ret->image_w = w;
        ret->image_h = h;
}

void agent_kept_drop(struct agent *a) {
        free(a->kept.rgb);
        a->kept.rgb = NULL;
        a->kept.width = a->kept.height = 0;
}

/*
 * A whole picture encoded: for changed_region, when the last picture kept
 * is the one since_revision names (so that the difference is what the
 * model has not seen) and what changed is small, only that part, its box
 * said in o. Then the picture is kept for the next (ownership of img->rgb
 * moves to a).
 */
static int encode_whole(struct agent *a, const struct mcp_action *act, struct thumb_image *img, struct agent_outcome *o,
                        uint8_t **ret_image, size_t *ret_size) {
        unsigned box[4];
        int r = -EAGAIN;

        if (act->changed_region && act->since.given && !o->revision_reset && a->kept.rgb &&
            a->kept.hash == act->since.hash && a->kept.width == img->width && a->kept.height == img->height &&
            screen_diff_box(a->kept.rgb, img->rgb, img->width, img->height, AGENT_REGION_MARGIN, box) > 0 &&
            (unsigned long long) (box[2] - box[0] + 1) * (box[3] - box[1] + 1) * 100 <=
                    (unsigned long long) img->width * img->height * AGENT_REGION_MAX_PERCENT) {
                _cleanup_free_ uint8_t *crop = NULL;

                r = screen_crop(img->rgb, img->width, img->height, box, &crop);
                if (r >= 0)
                        r = thumb_encode_jpeg(crop, box[2] - box[0] + 1, box[3] - box[1] + 1, AGENT_JPEG_QUALITY,
                                              ret_image, ret_size);
                if (r >= 0) {
                        o->cropped = true;
                        memcpy(o->crop, box, sizeof o->crop);
                }
        }
        if (r < 0)
                r = thumb_encode_jpeg(img->rgb, img->width, img->height, AGENT_JPEG_QUALITY, ret_image, ret_size);
        if (r < 0 || !a->kept.on)
                return r;
        agent_kept_drop(a);
        a->kept.rgb = TAKE_PTR(img->rgb);
        a->kept.width = img->width;
        a->kept.height = img->height;
        a->kept.hash = img->hash;
        return 0;
}

static int finish_image(uint8_t *image, size_t size, struct agent_outcome *o) {
        o->image = image;
        o->image_size = size;
        o->image_base64 = thumb_base64(image, size);
        return o->image_base64 ? 0 : -ENOMEM;
}

/*
 * Whether the screen is still as at since (same run, same pixels): then
 * only its revision, found by a read and a hash with nothing scaled or
 * encoded. A since of another run is a reset: never "unchanged".
 */
static int screen_unchanged(struct agent *a, const struct screen_since *since, struct agent_outcome *o) {
        uint64_t hash;

        o->since_given = since->given;
        if (!since->given)
                return 0;
        if (!streq(since->run_id, a->run_id)) {
                o->revision_reset = true;
                return 0;
        }
        if ((a->remote ? agent_remote_hash(a, &hash) : thumb_grab_hash(a->conn, a->screen, &hash)) < 0)
                return agent_say(o, "Cannot read the screen.") ?: -EIO;
        if (hash != since->hash)
                return 0;
        screen_revision_format(a->run_id, hash, o->revision);
        o->unchanged = true;
        return 1;
}

int agent_screenshot(struct agent *a, const struct mcp_action *act, struct agent_outcome *o) {
        _cleanup_(thumb_image_done) struct thumb_image img = {};
        /* The journal's frame after this action is this grab too: scaled
         * as the helper would scale it, with no second read of the screen
         * and no request for the next action to wait for (journal-hook.h). */
        struct thumb_picture frame = { .box_w = a->frame_width, .box_h = THUMB_SIZE_MAX };
        _cleanup_free_ uint8_t *frame_rgb = NULL;
        struct thumb_jpeg_rows jr = { .quality = AGENT_JPEG_QUALITY };
        struct mcp_space sp;
        uint8_t *image = NULL;
        size_t size = 0;
        int r;

        r = screen_unchanged(a, &act->since, o);
        if (r != 0)
                return r < 0 ? r : 0;
        /* From the first request that asks, every picture is kept for the next to be compared with. */
        if (act->changed_region)
                a->kept.on = true;
        if (a->remote) {
                /* The kept framebuffer, brought up to date: the picture, and the journal's frame from it. */
                r = agent_remote_grab(a, a->space.image_w, a->space.image_h, &img);
                if (r >= 0 && a->frame_width > 0) {
                        _cleanup_(thumb_image_done) struct thumb_image f = {};

                        if (agent_remote_grab(a, a->frame_width, THUMB_SIZE_MAX, &f) >= 0)
                                (void) thumb_encode_jpeg(f.rgb, f.width, f.height, THUMB_JPEG_QUALITY_DEFAULT, &o->frame,
                                                         &o->frame_size);
                }
        } else
                /* Encoded as the strips arrive, unless the whole picture must be kept: then encoded after. */
                r = thumb_grab_scaled_also(a->conn, a->screen, a->space.image_w, a->space.image_h,
                                           a->kept.on ? NULL : thumb_jpeg_rows, &jr, a->frame_width > 0 ? &frame : NULL,
                                           &img);
        frame_rgb = frame.rgb;
        if (r >= 0 && img.rgb)
                r = encode_whole(a, act, &img, o, &image, &size);
        else if (r >= 0)
                r = jr.jpeg ? thumb_jpeg_finish(jr.jpeg, &image, &size) : -EIO;
        /* Without it the helper reads the screen again (journal-hook.h). */
        if (r >= 0 && frame_rgb)
                (void) thumb_encode_jpeg(frame_rgb, frame.width, frame.height, THUMB_JPEG_QUALITY_DEFAULT, &o->frame,
                                         &o->frame_size);
        jr.jpeg = thumb_jpeg_free(jr.jpeg);
        if (r < 0)
                return agent_say(o, "Cannot take the screenshot.") ?: -EIO;
        /* The screen may have been resized (a viewer's RandR): the next coordinates mean this picture's pixels. */
        if (img.screen_width != a->space.screen_w || img.screen_height != a->space.screen_h) {
                agent_space_for(a, img.screen_width, img.screen_height, &sp);
                a->space = sp;
        }
        a->space.image_w = img.width;
        a->space.image_h = img.height;
        o->image_w = img.width;
        o->image_h = img.height;
        o->image_scale = mcp_space_scale(&a->space);
        screen_revision_format(a->run_id, img.hash, o->revision);
        return finish_image(image, size, o);
}

int agent_zoom(struct agent *a, const unsigned region[4], struct agent_outcome *o) {
        _cleanup_(thumb_image_done) struct thumb_image img = {};
        _cleanup_free_ uint8_t *rgbx = NULL, *out = NULL;
        unsigned rw, rh;
        struct mcp_space fit;
        uint8_t *image = NULL;
        size_t size = 0;
        int r;

        /* The whole screen at its own size (box = the screen), then the region cut from it. */
        r = a->remote ? agent_remote_grab(a, a->space.screen_w, a->space.screen_h, &img)
                      : thumb_grab_scaled(a->conn, a->screen, a->space.screen_w, a->space.screen_h, &img);
        if (r < 0 || !img.rgb)
                return agent_say(o, "Cannot read the screen for zoom.") ?: -EIO;
        if (region[2] >= img.width || region[3] >= img.height)
                return agent_say(o, "zoom: the region is outside the screen.") ?: -EINVAL;
        rw = region[2] - region[0] + 1;
        rh = region[3] - region[1] + 1;
        mcp_space_fit(rw, rh, a->max_edge, a->max_pixels, &fit);
        rgbx = malloc((size_t) rw * rh * 4);
        out = malloc((size_t) fit.image_w * fit.image_h * 3);
        if (!rgbx || !out)
                return -ENOMEM;
        for (unsigned y = 0; y < rh; y++)
                for (unsigned x = 0; x < rw; x++) {
                        const uint8_t *s = img.rgb + ((size_t) (region[1] + y) * img.width + region[0] + x) * 3;
                        uint8_t *d = rgbx + ((size_t) y * rw + x) * 4;

                        d[0] = s[0];
                        d[1] = s[1];
                        d[2] = s[2];
                        d[3] = 0;
                }
        r = thumb_scale(rgbx, THUMB_RGBX8888, rw, rh, (size_t) rw * 4, out, fit.image_w, fit.image_h);
        if (r >= 0)
                r = thumb_encode_jpeg(out, fit.image_w, fit.image_h, AGENT_JPEG_QUALITY, &image, &size);
        if (r < 0)
                return agent_say(o, "Cannot scale or encode the zoomed region.") ?: -EIO;
        o->image_w = fit.image_w;
        o->image_h = fit.image_h;
        o->image_scale = mcp_space_scale(&fit);
        memcpy(o->region, region, sizeof o->region);
        o->zoomed = true;
        /* The whole screen was read for it: its revision comes free. */
        screen_revision_format(a->run_id, img.hash, o->revision);
        return finish_image(image, size, o);
}

