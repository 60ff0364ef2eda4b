#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# An adopted desktop's X cookie never expires. Adoption makes the profile a
# cookie of its own with the SECURITY extension; without an explicit
# timeout the X server revokes such an authorization 60 s after its last
# client (or its creation) and the profile's next X client is refused. The
# spare here runs a plain command (no Xfce: nothing connects with the new
# cookie), the profile's start adopts it, nothing touches the display for
# 90 s, then an X client with the profile's env must still get in. The wait
# is the point, so this test runs once (not per variant), with a timeout of
# its own. Band 795-799: 700-719 has no free block of five left (web-origin
# holds 700; the spare variants of browser-cdp, exec-env and memory-warning
# the rest).
. "$(dirname "$0")/lib.sh"
bd_init ac 795
bd_need_xserver
bd_need xdpyinfo
WAIT=90
bd_config spares=1
P=$(bd_profile a)

timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill" 2>&1 &
wait $!
t_is "$?" 0 "pool fill exits 0 once a spare is ready" || t_diag "$(cat "$BD_T/out/fill")"
bd_snapshot_spares
S=$(bd_spares | head -n1)
bd_start "$P"
rc=$?
t_is "$rc" 0 "start of $P exits 0" || t_diag "$(bd_err "$P")"
t_is "$(bd_adopted_from "$P")" "$S" "the start adopted the spare ($S)"
[ "$rc" = 0 ] || t_done

# Nothing may connect in between: any client would hold the authorization open.
t_diag "waiting $WAIT s with no X client (the server's default timeout is 60 s)"
sleep "$WAIT"
out=$( (eval "$("$BOTDESK" env "$P")" && timeout 20 xdpyinfo) 2>&1)
t_match "$out" "name of display: +:[0-9]+" \
        "after $WAIT s without a client, an X client with the profile's env (its cookie) still reaches the display"
t_done
