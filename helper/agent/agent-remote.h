/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>

#include "agent.h"
#include "agent-strokes.h"
#include "thumbnail.h"

/*
 * The agent on a profile that fronts a VNC server botdesk did not start
 * (remote =): agent.c's actions on botdesk's own RFB session with the
 * server (remote-screen.h) instead of an X connection. Pictures come from
 * the framebuffer the server's updates keep, brought up to date first;
 * strokes are RFB key and pointer events (keysyms as they are: the server
 * maps them); settle is the quiet time of the server's updates. What only
 * a desktop botdesk runs has (windows, accessibility, clipboard, files) is
 * not offered (MCP_TOOL_DESKTOP).
 */

/* Open the session for a (its config c): a CLI exit code, said. */
int agent_remote_open(struct agent *a, const struct bd_config *c);
void agent_remote_close(struct agent *a);

/* The screen as it is now: its hash (screen-revision.h), and a picture scaled to fit box_w x box_h into *img. */
int agent_remote_hash(struct agent *a, uint64_t *ret);
int agent_remote_grab(struct agent *a, unsigned box_w, unsigned box_h, struct thumb_image *img);

/* As agent_execute(), in RFB events. */
int agent_remote_execute(struct agent *a, const struct mcp_action *act, const struct agent_prepared *p,
                         const struct lease *admitted, struct agent_outcome *o);

/* Until the server's updates stopped for a->quiet_ms (at most a->settle_cap_ms): o's settle fields. 0 or -errno. */
int agent_remote_settle(struct agent *a, struct agent_outcome *o);
