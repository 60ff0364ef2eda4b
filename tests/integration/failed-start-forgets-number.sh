#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A session that exits before the desktop is ready fails the start: exit 1,
# the reason on stderr and in last-error, nothing published, the display
# number forgotten, and nothing of the attempt left running.
. "$(dirname "$0")/lib.sh"
bd_init fsf 65
bd_need_xserver
P=$(bd_profile f)
RT=$(bd_rt "$P")

# A good start first, so that there is a number to forget.
bd_config
bd_start "$P"
t_is "$?" 0 "a good start exits 0"
N0=$(rec_get "$P" DISPLAY)
bd_stop "$P"
t_is "$?" 0 "its stop exits 0"
t_is "$(cat "$RT/display" 2>&1)" "$N0" "the display file remembers :$N0 after a clean stop"

bd_config command='exit 3'
bd_start "$P"
rc=$?
err=$(bd_err "$P")
t_is "$rc" 1 "start with a session that exits 3 before ready exits 1"
t_match "$err" 'exited with status 3' "stderr says the session exited with status 3"
t_is "$(printf '%s\n' "$err" | grep -c .)" 1 "the error is one line"
t_diag "stderr: $err"
t_ok "last-error exists" test -s "$RT/last-error"
le=$(cat "$RT/last-error" 2>/dev/null)
t_match "$le" 'exited with status 3' "last-error names the command's exit ($le)"
t_ok "no env is published" test ! -e "$RT/env"
t_ok "no display file remains (the number is forgotten)" test ! -e "$RT/display"
t_ok "no helper record remains" test ! -e "$RT/helper"
t_ok "no rfb.sock remains" test ! -e "$RT/rfb.sock"
N=$(printf '%s' "$le" | sed -n 's/.*:\([0-9][0-9]*\).*/\1/p' | head -n1)
t_match "$N" '^[0-9]+$' "last-error names the display of the attempt (:$N)"
t_is "$(desktop_pids "$P")" "" "nothing of the failed start runs (no X server, helper or token process)"
t_ok "/tmp/.X$N-lock of the attempt is gone" test ! -e "/tmp/.X$N-lock"
t_ok "/tmp/.X11-unix/X$N of the attempt is gone" test ! -e "/tmp/.X11-unix/X$N"
t_ok "nothing is bound to :$N's X socket" eval "! x_socket_bound '$N'"
cg=$(bd_cgroup_of "$P")
[ -n "$cg" ] && t_ok "no cgroup $cg remains" test ! -e "$cg"
st=$("$BOTDESK" status --json "$P")
t_match "$st" '"running": false' "status says not running"
e=$("$BOTDESK" env "$P" 2>&1)
t_is "$?" 4 "botdesk env of the failed profile exits 4"

# A later good start works again.
bd_config
bd_start "$P"
t_is "$?" 0 "the next good start exits 0"
bd_stop "$P"
t_is "$?" 0 "and stops"
t_done
