/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The integrity of an MCP requestState, which a client echoes back and the
 * specification bids a server treat as an attacker's: signed with a key of
 * the desktop whose runtime dir is dirfd (mcp-state.c), so that state of
 * another desktop, a forged one or an altered one is refused.
 */

/* PAYLOAD.MAC in *ret (new string): 0, or -errno. */
int mcp_state_sign(int dirfd, const char *payload, char **ret);

/* The payload of a state that verifies (new string in *ret_payload): 0; -EBADMSG for any other. */
int mcp_state_verify(int dirfd, const char *state, char **ret_payload);
