/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "input.h"

struct lease;

/* What an action needs before anything is sent: its keys and text. */
struct agent_prepared {
        struct combo *combos;
        size_t n_combos;
        struct combo held;              /* keys held around a click or scroll, hold_key's keys */
        struct stroke held_st[COMBO_MAX];
        uint32_t *keysyms;
        size_t n_keysyms;
};

void agent_prepared_done(struct agent_prepared *p);

/* Parse and check what act needs (its keys, its text) against the desktop's
 * keyboard map: 0, -ENOMEM, or another error said in o, nothing sent. */
int agent_prepare(struct agent *a, const struct mcp_action *act, struct agent_prepared *p, struct agent_outcome *o);

/*
 * Let ms pass, reading (and counting) the X connection's events meanwhile
 * when there is one, and watching the lease (inotify on the runtime dir):
 * -ESTALE as soon as the action admitted under admitted lost its control,
 * 0 once the time passed. For hold_key and wait, on any desktop.
 */
int agent_pass_time(struct agent *a, unsigned ms, const struct lease *admitted);

/* The strokes, under the lease admitted. 0, -ESTALE (control moved while typing), or a failure said in o. */
int agent_execute(struct agent *a, const struct mcp_action *act, const struct agent_prepared *p,
                  const struct lease *admitted, struct agent_outcome *o);
