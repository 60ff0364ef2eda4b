/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <xcb/randr.h>

#include "randr.h"
#include "util.h"

static int request_check(xcb_connection_t *c, xcb_void_cookie_t cookie) {
        xcb_generic_error_t *e = xcb_request_check(c, cookie);

        if (!e)
                return 0;
        free(e);
        return -EIO;
}

static uint16_t mm_of(unsigned px, unsigned dpi) {
        return (uint16_t) (((unsigned long long) px * 254 + dpi * 5) / (dpi * 10ULL));
}

static int set_screen_size(xcb_connection_t *c, xcb_window_t root, unsigned w, unsigned h, unsigned dpi) {
        return request_check(c, xcb_randr_set_screen_size_checked(c, root, (uint16_t) w, (uint16_t) h, mm_of(w, dpi),
                                                                  mm_of(h, dpi)));
}

static int set_crtc(xcb_connection_t *c, xcb_randr_crtc_t crtc, xcb_timestamp_t config_ts, xcb_randr_mode_t mode,
                    const xcb_randr_output_t *outputs, uint16_t n_outputs) {
        _cleanup_free_ xcb_randr_set_crtc_config_reply_t *r = NULL;

        r = xcb_randr_set_crtc_config_reply(c,
                                            xcb_randr_set_crtc_config(c, crtc, XCB_CURRENT_TIME, config_ts, 0, 0, mode,
                                                                      XCB_RANDR_ROTATION_ROTATE_0, n_outputs, outputs),
                                            NULL);
        if (!r || r->status != XCB_RANDR_SET_CONFIG_SUCCESS)
                return -EIO;
        return 0;
}

/* TigerVNC's Xvnc names its outputs VNC-0, VNC-1...: the first is the screen a
 * viewer's single-screen layout lands on. */
static int pick_output(xcb_connection_t *c, const xcb_randr_get_screen_resources_current_reply_t *res,
                       xcb_randr_output_t *ret, xcb_randr_get_output_info_reply_t **ret_info) {
        xcb_randr_output_t *outputs = xcb_randr_get_screen_resources_current_outputs(res);
        int n = xcb_randr_get_screen_resources_current_outputs_length(res);
        xcb_randr_get_output_info_reply_t *fallback = NULL;
        xcb_randr_output_t fallback_id = XCB_NONE;

        for (int i = 0; i < n; i++) {
                xcb_randr_get_output_info_reply_t *info = xcb_randr_get_output_info_reply(
                        c, xcb_randr_get_output_info(c, outputs[i], res->config_timestamp), NULL);
                const char *name;
                int len;

                if (!info)
                        continue;
                name = (const char *) xcb_randr_get_output_info_name(info);
                len = xcb_randr_get_output_info_name_length(info);
                if (len == 5 && memcmp(name, "VNC-0", 5) == 0) {
                        free(fallback);
                        *ret = outputs[i];
                        *ret_info = info;
                        return 0;
                }
                if (!fallback && info->connection == XCB_RANDR_CONNECTION_CONNECTED &&
                    xcb_randr_get_output_info_crtcs_length(info) > 0) {
                        fallback = info;
                        fallback_id = outputs[i];
                } else
                        free(info);
        }
        if (!fallback)
                return -EOPNOTSUPP;
        *ret = fallback_id;
        *ret_info = fallback;
        return 0;
}

static const xcb_randr_mode_info_t *mode_by_id(const xcb_randr_get_screen_resources_current_reply_t *res,
                                               xcb_randr_mode_t id) {
        const xcb_randr_mode_info_t *modes = xcb_randr_get_screen_resources_current_modes(res);
        int n = xcb_randr_get_screen_resources_current_modes_length(res);

        for (int i = 0; i < n; i++)
                if (modes[i].id == id)
                        return &modes[i];
        return NULL;
}

/* A mode of w x h the output can use: one it lists, one the server knows
 * (added to the output), or a new one. */
static int find_or_make_mode(xcb_connection_t *c, xcb_window_t root,
                             const xcb_randr_get_screen_resources_current_reply_t *res, xcb_randr_output_t output,
                             const xcb_randr_get_output_info_reply_t *info, unsigned w, unsigned h,
                             xcb_randr_mode_t *ret) {
        const xcb_randr_mode_t *ids = xcb_randr_get_output_info_modes(info);
        int n_ids = xcb_randr_get_output_info_modes_length(info);
        const xcb_randr_mode_info_t *modes = xcb_randr_get_screen_resources_current_modes(res);
        int n_modes = xcb_randr_get_screen_resources_current_modes_length(res);
        _cleanup_free_ xcb_randr_create_mode_reply_t *created = NULL;
        xcb_randr_mode_info_t mi = {};
        char name[32];

        for (int i = 0; i < n_ids; i++) {
                const xcb_randr_mode_info_t *m = mode_by_id(res, ids[i]);
                if (m && m->width == w && m->height == h) {
                        *ret = ids[i];
                        return 0;
                }
        }
        for (int i = 0; i < n_modes; i++)
                if (modes[i].width == w && modes[i].height == h) {
                        if (request_check(c, xcb_randr_add_output_mode_checked(c, output, modes[i].id)) < 0)
                                return -EIO;
                        *ret = modes[i].id;
                        return 0;
                }
        /* Timings as Xvnc gives its own modes: no blanking, 60 Hz; a
         * virtual screen has no monitor to care. */
        mi.width = (uint16_t) w;
        mi.height = (uint16_t) h;
        mi.htotal = (uint16_t) w;
        mi.vtotal = (uint16_t) h;
        mi.dot_clock = (uint32_t) w * h * 60;
        /* Xvnc drops its mode of the old size from the output when a viewer
         * resizes, but keeps it under its name, which it no longer lists:
         * a new mode then needs a name of its own (BadName otherwise). */
        for (unsigned i = 0; !created && i < 16; i++) {
                xcb_generic_error_t *e = NULL;

                if (i == 0)
                        snprintf(name, sizeof name, "%ux%u", w, h);
                else
                        snprintf(name, sizeof name, "%ux%u-%u", w, h, i);
                mi.name_len = (uint16_t) strlen(name);
                created = xcb_randr_create_mode_reply(c, xcb_randr_create_mode(c, root, mi, mi.name_len, name), &e);
                if (!created && (!e || e->error_code != XCB_NAME)) {
                        free(e);
                        return -EIO;
                }
                free(e);
        }
        if (!created)
                return -EEXIST;
        if (request_check(c, xcb_randr_add_output_mode_checked(c, output, created->mode)) < 0)
                return -EIO;
        *ret = created->mode;
        return 0;
}

int randr_restore(xcb_connection_t *c, xcb_window_t root, unsigned width, unsigned height, unsigned dpi) {
        const xcb_query_extension_reply_t *ext = xcb_get_extension_data(c, &xcb_randr_id);
        _cleanup_free_ xcb_randr_query_version_reply_t *version = NULL;
        _cleanup_free_ xcb_randr_get_screen_resources_current_reply_t *res = NULL;
        _cleanup_free_ xcb_randr_get_output_info_reply_t *info = NULL;
        _cleanup_free_ xcb_randr_get_crtc_info_reply_t *current = NULL;
        _cleanup_free_ xcb_get_geometry_reply_t *geo = NULL;
        const xcb_randr_crtc_t *crtcs;
        const xcb_randr_mode_info_t *cur_mode;
        xcb_randr_output_t output;
        xcb_randr_crtc_t crtc;
        xcb_randr_mode_t mode;
        int n_crtcs, r;

        if (!ext || !ext->present || dpi == 0)
                return -EOPNOTSUPP;
        version = xcb_randr_query_version_reply(c, xcb_randr_query_version(c, 1, 3), NULL);
        if (!version || (version->major_version == 1 && version->minor_version < 2))
                return -EOPNOTSUPP;
        geo = xcb_get_geometry_reply(c, xcb_get_geometry(c, root), NULL);
        res = xcb_randr_get_screen_resources_current_reply(c, xcb_randr_get_screen_resources_current(c, root), NULL);
        if (!geo || !res)
                return -EIO;
        r = pick_output(c, res, &output, &info);
        if (r < 0)
                return r;
        crtc = info->crtc;
        if (crtc == XCB_NONE)
                crtc = xcb_randr_get_output_info_crtcs(info)[0];
        if (crtc == XCB_NONE)
                return -EOPNOTSUPP;
        current = xcb_randr_get_crtc_info_reply(c, xcb_randr_get_crtc_info(c, crtc, res->config_timestamp), NULL);
        if (!current)
                return -EIO;
        cur_mode = mode_by_id(res, current->mode);
        if (geo->width == width && geo->height == height && cur_mode && cur_mode->width == width &&
            cur_mode->height == height && current->x == 0 && current->y == 0)
                return 0;

        r = find_or_make_mode(c, root, res, output, info, width, height, &mode);
        if (r < 0)
                return r;
        /* Other screens of a viewer's layout go: they may lie outside the
         * restored size, and the server refuses a CRTC outside the screen. */
        crtcs = xcb_randr_get_screen_resources_current_crtcs(res);
        n_crtcs = xcb_randr_get_screen_resources_current_crtcs_length(res);
        for (int i = 0; i < n_crtcs; i++) {
                _cleanup_free_ xcb_randr_get_crtc_info_reply_t *ci = NULL;

                if (crtcs[i] == crtc)
                        continue;
                ci = xcb_randr_get_crtc_info_reply(c, xcb_randr_get_crtc_info(c, crtcs[i], res->config_timestamp), NULL);
                if (ci && ci->mode != XCB_NONE && (r = set_crtc(c, crtcs[i], res->config_timestamp, XCB_NONE, NULL, 0)) < 0)
                        return r;
        }
        /* Grow the screen first where the mode is larger (the CRTC must fit
         * in it), then set the mode, then the exact size. */
        if (width > geo->width || height > geo->height) {
                r = set_screen_size(c, root, width > geo->width ? width : geo->width,
                                    height > geo->height ? height : geo->height, dpi);
                if (r < 0)
                        return r;
        }
        r = set_crtc(c, crtc, res->config_timestamp, mode, &output, 1);
        if (r < 0)
                return r;
        r = set_screen_size(c, root, width, height, dpi);
        if (r < 0)
                return r;
        return 1;
}
