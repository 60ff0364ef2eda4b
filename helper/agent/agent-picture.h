/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "agent.h"

/*
 * The agent's pictures of the screen (agent.h): the screenshot an action
 * returns, with its revision, "unchanged" and "changed_region", and zoom.
 */

/* The JPEG quality of an agent's screenshots: text stays legible at it. */
#define AGENT_JPEG_QUALITY 80

/*
 * changed_region: the crop is handed out instead of the picture only when
 * its box covers at most this much of the picture (percent); past that the
 * whole picture costs the model little more, and shows it everything. The
 * box is widened by the margin (pixels of the picture) for some context.
 */
#define AGENT_REGION_MAX_PERCENT 50
#define AGENT_REGION_MARGIN 8

/* The picture botdesk's grab makes for a screen of sw x sh within the budget: the agent's space. */
void agent_space_for(const struct agent *a, unsigned sw, unsigned sh, struct mcp_space *ret);

/* The screen in the agent's space, judged against act's since_revision and changed_region; the space follows
 * the screen's size. 0 with the picture (or "unchanged") in o; said in o otherwise; -ENOMEM. */
int agent_screenshot(struct agent *a, const struct mcp_action *act, struct agent_outcome *o);

/* Region of the screen (inclusive corners), at up to native resolution within the budget. */
int agent_zoom(struct agent *a, const unsigned region[4], struct agent_outcome *o);

/* Forget the picture kept for changed_region. */
void agent_kept_drop(struct agent *a);
