/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "remote-front.h"
#include "rfb-client-update.h"
#include "rfb-input.h"

/*
 * The agent's side of a remote profile (remote =): botdesk's own session
 * with the VNC server (remote-front.h), the framebuffer its updates paint
 * (rfb-client-update.h), and the input it sends (rfb-input.h). RFB
 * answers no input message, but a server reads its client's messages in
 * order: the update that answers a request sent after the input was read
 * after it, which is how remote_screen_sync() knows the server has it.
 */

/* Input queued between two sends: a scroll of a thousand steps fits. */
#define REMOTE_OUT_MAX (64u * 1024u)

struct remote_screen {
        struct remote_session session;
        struct rfb_framebuffer fb;
        struct rfb_update_reader rd;
        struct rfb_pointer pointer;
        uint8_t *buf;                   /* one read's room */
        uint8_t *out;                   /* input queued (REMOTE_OUT_MAX), sent by remote_screen_flush() */
        size_t out_len;
        int out_error;                  /* of a send made because the queue was full, for the next flush */
        bool broken;                    /* a send or a read failed other than by its deadline: the session is over */
};

/*
 * Open the session and read the whole screen once, within
 * REMOTE_FRONT_HANDSHAKE_SECONDS. A CLI exit code, said (as
 * remote_session_open()).
 */
int remote_screen_open(const char *profile, const struct bd_config *c, int dirfd, struct remote_screen *ret);
void remote_screen_close(struct remote_screen *s);

/*
 * RFB carries the pointer's position in every pointer event and has no way
 * to ask for it: where botdesk last left it is kept in the profile's
 * runtime dir (REMOTE_POINTER_FILE), so that a click or a scroll without a
 * position happens where the last action left the pointer, as on a local
 * desktop. Loaded at open (the screen's centre without one), saved by
 * remote_screen_save_pointer().
 */
#define REMOTE_POINTER_FILE "remote-pointer"
void remote_screen_save_pointer(const struct remote_screen *s, int dirfd);

/*
 * The agent's input, queued: pointer positions are the caller's to check
 * against the framebuffer. Combos press their keys in order and release
 * them in reverse; a drag moves through the points in steps; a scroll is
 * clicks of buttons 4/5 (DY > 0 down) and 6/7 (DX > 0 right).
 */
void remote_screen_key(struct remote_screen *s, uint32_t keysym, bool down);
void remote_screen_move(struct remote_screen *s, unsigned x, unsigned y);
void remote_screen_button(struct remote_screen *s, unsigned button, bool down);
/* drag_walk() (drag-walk.h) on this VNC server; with quiet_ms, its pace is the input so far sent and the screen
 * settled (remote_screen_settle(), at most cap_ms). */
void remote_screen_drag(struct remote_screen *s, unsigned button, const unsigned (*path)[2], size_t n, unsigned steps,
                        unsigned quiet_ms, unsigned cap_ms);
void remote_screen_scroll(struct remote_screen *s, long long dx, long long dy);
void remote_screen_combo(struct remote_screen *s, const uint32_t *keysyms, size_t n);
/* A character typed: its key pressed and released, with Shift around it when a US keyboard needs it (rfb-input.h). */
void remote_screen_type(struct remote_screen *s, uint32_t keysym);
/*
 * Text, batch characters at a time: each batch after still_ours(userdata)
 * said yes, and read by the server (remote_screen_sync()) before the next,
 * so that after a take at most one batch still reaches the screen, as on a
 * local desktop (input.h). 0, -ESTALE (control moved), or -errno; the
 * characters sent in *ret_sent.
 */
int remote_screen_type_text(struct remote_screen *s, const uint32_t *keysyms, size_t n, size_t batch,
                            bool (*still_ours)(void *userdata), void *userdata, size_t *ret_sent);

/* Send what is queued before deadline: 0 or -errno. */
int remote_screen_flush(struct remote_screen *s, unsigned long long deadline);

/* Messages for the server, all written before deadline (CLOCK_MONOTONIC usec): 0 or -errno. */
int remote_screen_send(struct remote_screen *s, const void *data, size_t size, unsigned long long deadline);

/*
 * Until the screen was quiet for quiet_ms (no framebuffer update that
 * changed it), at most cap_ms: *ret_changed says whether anything changed,
 * *ret_quiet whether it went quiet before the cap, *ret_ms how long it
 * took. 0 or -errno.
 */
int remote_screen_settle(struct remote_screen *s, unsigned quiet_ms, unsigned cap_ms, bool *ret_changed,
                         bool *ret_quiet, unsigned *ret_ms);

/* Until the server has read everything sent so far (and the framebuffer shows what it drew meanwhile): 0 or -errno. */
int remote_screen_sync(struct remote_screen *s, unsigned long long deadline);
