/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk input on a profile that fronts a VNC server botdesk did not start
 * (remote =): the same actions as verb-input.c sends through XTEST, as RFB
 * KeyEvent and PointerEvent messages on botdesk's own session with the
 * server (remote-screen.h). Keysyms go as they are: the server maps them,
 * so text in any script needs no keyboard map here.
 */
#include "input.h"
#include "remote-screen.h"
#include "settle.h"
#include "util.h"
#include "input-request.h"

/* Each send of the action, and each batch of text, has this long. */
#define REMOTE_INPUT_SECONDS 10u

/* As act(), in RFB's KeyEvent and PointerEvent: keysyms go as they are, the server maps them. */
static int act_remote(struct remote_screen *scr, struct input_request *req, int dirfd, const struct lease *admitted,
                      size_t *ret_sent) {
        struct cli_admitted ctx = { .runtime_fd = dirfd, .lease = admitted };
        unsigned long long deadline = now_usec() + REMOTE_INPUT_SECONDS * 1000000ull;
        bool button_action = req->action == ACT_CLICK || req->action == ACT_DRAG ||
                             ((req->action == ACT_DOWN || req->action == ACT_UP) && !req->keysym);
        int r;

        if (req->window)
                return usage_error("--window needs the desktop's windows; profile %s fronts a VNC server, whose "
                                   "windows botdesk cannot see.", req->profile);
        if (button_action && req->button > RFB_BUTTON_MAX)
                return usage_error("A VNC server takes buttons 1-%u; profile %s fronts one.", RFB_BUTTON_MAX,
                                   req->profile);
        r = input_check_positions(req, scr->fb.width, scr->fb.height);
        if (r != EXIT_OK)
                return r;
        switch (req->action) {
        case ACT_MOVE:
                remote_screen_move(scr, (unsigned) req->x[0], (unsigned) req->y[0]);
                break;
        case ACT_CLICK:
                if (req->have_xy)
                        remote_screen_move(scr, (unsigned) req->x[0], (unsigned) req->y[0]);
                for (unsigned i = 0; i < (req->dbl ? 2u : 1u); i++) {
                        remote_screen_button(scr, req->button, true);
                        remote_screen_button(scr, req->button, false);
                }
                break;
        case ACT_DRAG: {
                const unsigned path[2][2] = { { (unsigned) req->x[0], (unsigned) req->y[0] },
                                              { (unsigned) req->x[1], (unsigned) req->y[1] } };

                /* In steps and paced, as input_drag() moves: applications see a drag, not a jump. */
                remote_screen_drag(scr, req->button, path, 2, INPUT_DRAG_STEPS, req->settle_ms ?: SETTLE_QUIET_MS_DEFAULT,
                                   SETTLE_CAP_MS_DEFAULT);
                break;
        }
        case ACT_SCROLL:
                remote_screen_scroll(scr, req->dx, req->dy);
                break;
        case ACT_KEY:
                for (size_t i = 0; i < req->n_combos; i++)
                        remote_screen_combo(scr, req->combos[i].keysyms, req->combos[i].n);
                break;
        case ACT_TYPE:
                r = remote_screen_type_text(scr, req->keysyms, req->n_keysyms, INPUT_TYPE_BATCH, cli_still_admitted,
                                            &ctx, ret_sent);
                if (r == -ESTALE)
                        return EXIT_REFUSED; /* cli_action_done() says why */
                if (r < 0)
                        return log_error_errno(r, "The VNC server of %s took no more text: %m", req->profile),
                               EXIT_FAILED;
                return EXIT_OK;
        case ACT_DOWN:
        case ACT_UP:
                if (req->keysym)
                        remote_screen_key(scr, req->keysym, req->action == ACT_DOWN);
                else
                        remote_screen_button(scr, req->button, req->action == ACT_DOWN);
                break;
        }
        r = remote_screen_flush(scr, deadline);
        if (r >= 0)
                r = remote_screen_sync(scr, deadline);
        if (r < 0)
                return log_error_errno(r, "Cannot send the input to the VNC server of %s: %m", req->profile), EXIT_FAILED;
        /* As act(): a press that reached the server after a take is let go of. */
        if (req->action == ACT_DOWN && !cli_action_still_valid(dirfd, admitted)) {
                if (req->keysym)
                        remote_screen_key(scr, req->keysym, false);
                else
                        remote_screen_button(scr, req->button, false);
                (void) remote_screen_flush(scr, deadline);
                (void) remote_screen_sync(scr, deadline);
        }
        return EXIT_OK;
}

int input_run_remote(struct input_request *req, const struct bd_config *cfg, int dirfd, const struct lease *admitted,
                     size_t *sent, enum settle_state *settled, unsigned *settle_ms, int *ret_acted) {
        _cleanup_(remote_screen_close) struct remote_screen scr = { .session.fd = -EBADF };
        int r;

        r = remote_screen_open(req->profile, cfg, dirfd, &scr);
        if (r != EXIT_OK)
                return r;
        req->screen_w = scr.fb.width;
        req->screen_h = scr.fb.height;
        *ret_acted = act_remote(&scr, req, dirfd, admitted, sent);
        remote_screen_save_pointer(&scr, dirfd);
        if (*ret_acted == EXIT_OK && req->settle_ms > 0) {
                bool changed, quiet;

                /* Settled by the quiet time of the server's updates, as settle.h by DAMAGE's. */
                if (remote_screen_settle(&scr, req->settle_ms, SETTLE_CAP_MS_DEFAULT, &changed, &quiet, settle_ms) < 0)
                        *settled = SETTLE_UNSUPPORTED;
                else
                        *settled = !quiet ? SETTLE_STILL_CHANGING : changed ? SETTLE_SETTLED : SETTLE_NO_CHANGE;
        }
        return EXIT_OK;
}

