/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "agent-remote.h"
#include "cli.h"
#include "input.h"
#include "log.h"
#include "remote-screen.h"
#include "screen-revision.h"
#include "util.h"

/* Each send of an action, and each read that brings the screen up to date, has this long. */
#define AGENT_REMOTE_SECONDS 10u

static unsigned long long deadline(void) {
        return now_usec() + AGENT_REMOTE_SECONDS * 1000000ull;
}

int agent_remote_open(struct agent *a, const struct bd_config *c) {
        struct remote_screen *s = calloc(1, sizeof *s);
        struct bd_paths p = {};
        int r;

        if (!s)
                return log_oom(), EXIT_FAILED;
        s->session.fd = -EBADF;
        /* Its runtime dir holds its lease, as a local desktop's does. */
        r = cli_open_profile(a->profile, &p, &a->dirfd);
        paths_done(&p);
        if (r < 0) {
                free(s);
                return EXIT_FAILED;
        }
        r = remote_screen_open(a->profile, c, a->dirfd, s);
        if (r != EXIT_OK) {
                free(s);
                return r;
        }
        a->remote = s;
        /* One run for as long as the setting names the same server: a revision survives a new session. */
        screen_run_id(c->remote, 0, 0, a->run_id);
        return EXIT_OK;
}

void agent_remote_close(struct agent *a) {
        if (!a->remote)
                return;
        remote_screen_save_pointer(a->remote, a->dirfd);
        remote_screen_close(a->remote);
        free(a->remote);
        a->remote = NULL;
}

/* What the server drew since the last update, painted: an incremental request, then a sync behind it. */
static int refresh(struct agent *a) {
        struct remote_screen *s = a->remote;
        uint8_t req[10];
        int r;

        r = remote_screen_send(s, req, rfb_request_update(true, 0, 0, s->fb.width, s->fb.height, req), deadline());
        return r < 0 ? r : remote_screen_sync(s, deadline());
}

int agent_remote_hash(struct agent *a, uint64_t *ret) {
        const struct rfb_framebuffer *fb = &a->remote->fb;
        int r = refresh(a);

        if (r < 0)
                return r;
        *ret = screen_hash64(fb->pixels, (size_t) fb->width * fb->height * 4, screen_hash_begin(fb->width, fb->height, 4));
        return 0;
}

int agent_remote_grab(struct agent *a, unsigned box_w, unsigned box_h, struct thumb_image *img) {
        const struct rfb_framebuffer *fb = &a->remote->fb;
        int r;

        r = agent_remote_hash(a, &img->hash);
        if (r < 0)
                return r;
        thumb_fit(fb->width, fb->height, box_w, box_h, &img->width, &img->height);
        img->screen_width = fb->width;
        img->screen_height = fb->height;
        img->rgb = malloc((size_t) img->width * img->height * 3);
        if (!img->rgb)
                return -ENOMEM;
        /* 0x00RRGGBB words in this host's order: the bytes of a little-endian X server's 32-bit ZPixmap. */
        return thumb_scale((const uint8_t *) fb->pixels, THUMB_BGRX8888, fb->width, fb->height, (size_t) fb->width * 4,
                           img->rgb, img->width, img->height);
}

int agent_remote_settle(struct agent *a, struct agent_outcome *o) {
        bool changed, quiet;
        int r = remote_screen_settle(a->remote, a->quiet_ms, a->settle_cap_ms, &changed, &quiet, &o->settle_ms);

        if (r < 0)
                return r;
        o->settle = !quiet ? SETTLE_STILL_CHANGING : changed ? SETTLE_SETTLED : SETTLE_NO_CHANGE;
        return 0;
}

static void hold(struct remote_screen *s, const struct agent_prepared *p, bool press) {
        if (press)
                for (size_t i = 0; i < p->held.n; i++)
                        remote_screen_key(s, p->held.keysyms[i], true);
        else
                for (size_t i = p->held.n; i > 0; i--)
                        remote_screen_key(s, p->held.keysyms[i - 1], false);
}

int agent_remote_execute(struct agent *a, const struct mcp_action *act, const struct agent_prepared *p,
                         const struct lease *admitted, struct agent_outcome *o) {
        struct cli_admitted ctx = { .runtime_fd = a->dirfd, .lease = admitted };
        struct remote_screen *s = a->remote;
        int r = 0;

        if ((act->kind == MCP_ACT_CLICK || act->kind == MCP_ACT_DRAG || act->kind == MCP_ACT_DOWN ||
             act->kind == MCP_ACT_UP) && act->button > RFB_BUTTON_MAX)
                return agent_say(o, "A VNC server takes buttons 1-%u.", RFB_BUTTON_MAX) ?: -EINVAL;
        switch (act->kind) {
        case MCP_ACT_KEY:
                for (unsigned i = 0; i < (act->repeat ?: 1); i++)
                        for (size_t k = 0; k < p->n_combos; k++)
                                remote_screen_combo(s, p->combos[k].keysyms, p->combos[k].n);
                break;
        case MCP_ACT_TYPE: {
                size_t sent = 0;

                r = remote_screen_type_text(s, p->keysyms, p->n_keysyms, INPUT_TYPE_BATCH, cli_still_admitted, &ctx,
                                            &sent);
                o->characters = (unsigned) sent;
                if (r == -ESTALE)
                        return r;
                if (r < 0)
                        return agent_say(o, "The VNC server took no more text.") ?: -EIO;
                return 0;
        }
        case MCP_ACT_MOVE:
                hold(s, p, true);
                remote_screen_move(s, act->x, act->y);
                hold(s, p, false);
                break;
        case MCP_ACT_CLICK:
                if (act->have_point)
                        remote_screen_move(s, act->x, act->y);
                hold(s, p, true);
                for (unsigned i = 0; i < act->clicks; i++) {
                        remote_screen_button(s, act->button, true);
                        remote_screen_button(s, act->button, false);
                }
                hold(s, p, false);
                break;
        case MCP_ACT_DRAG:
                hold(s, p, true);
                remote_screen_drag(s, act->button, (const unsigned (*)[2]) act->path, act->n_path, INPUT_DRAG_STEPS,
                                   a->quiet_ms, a->settle_cap_ms);
                hold(s, p, false);
                break;
        case MCP_ACT_DOWN:
        case MCP_ACT_UP:
                if (act->have_point)
                        remote_screen_move(s, act->x, act->y);
                remote_screen_button(s, act->button, act->kind == MCP_ACT_DOWN);
                break;
        case MCP_ACT_SCROLL:
                if (act->have_point)
                        remote_screen_move(s, act->x, act->y);
                hold(s, p, true);
                remote_screen_scroll(s, act->dx, act->dy);
                hold(s, p, false);
                break;
        case MCP_ACT_HOLD_KEY:
                hold(s, p, true);
                r = remote_screen_flush(s, deadline());
                if (r >= 0)
                        r = agent_pass_time(a, act->duration_ms, admitted);
                /* Up at once on a takeover too, not at the hold's end. */
                hold(s, p, false);
                if (r == -ESTALE) {
                        (void) remote_screen_flush(s, deadline());
                        return r;
                }
                break;
        case MCP_ACT_WAIT:
                r = agent_pass_time(a, act->duration_ms, admitted);
                if (r == -ESTALE)
                        return r;
                break;
        case MCP_ACT_CURSOR_POSITION:
                /* RFB cannot ask: where botdesk's own events left it (remote-screen.h). */
                mcp_space_from_screen(&a->space, s->pointer.x, s->pointer.y, &o->cursor_x, &o->cursor_y);
                o->have_cursor = true;
                break;
        case MCP_ACT_SCREENSHOT:
        case MCP_ACT_ZOOM:
                break;
        }
        r = remote_screen_flush(s, deadline());
        if (r >= 0)
                r = remote_screen_sync(s, deadline());
        if (r < 0)
                return agent_say(o, "The VNC server did not take the input.") ?: -EIO;
        /* As agent_execute(): a press that reached the server after a take is let go of; the action is void. */
        if (act->kind == MCP_ACT_DOWN && !cli_action_still_valid(a->dirfd, admitted)) {
                remote_screen_button(s, act->button, false);
                (void) remote_screen_flush(s, deadline());
                (void) remote_screen_sync(s, deadline());
                return -ESTALE;
        }
        return 0;
}
