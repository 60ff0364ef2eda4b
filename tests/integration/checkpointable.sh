#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# [session] checkpointable = yes: the desktop's whole tree runs in PID and
# IPC namespaces of its own, under botdesk-ns-init as their pid 1 (the form a
# checkpoint dumps, doc/snapshots.md). The X server, the bus and Xfce are
# there, and what the bus starts; the desktop answers from outside as any
# other (windows, a thumbnail through MIT-SHM across the IPC namespaces); a
# component that dies comes back inside; the X server's and the init's ends
# take the desktop down naming them; a stop leaves nothing; without
# CAP_SYS_ADMIN the start is refused, saying why. Without the key nothing
# changes.
. "$(dirname "$0")/lib.sh"
bd_init ckp 805 once
bd_need_xserver
bd_need xfwm4 xfce4-panel xfdesktop xfsettingsd setpriv
P=$(bd_profile a)
RT=$(bd_rt "$P")

ns_of() { readlink "/proc/$1/ns/$2" 2>/dev/null; }
# The pid of PID in its own (innermost) PID namespace: the last NSpid field.
inner_pid() { awk '/^NSpid:/ {print $NF}' "/proc/$1/status" 2>/dev/null; }
children_of() { cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -v '^$'; }
# The child of PID whose program is COMM (the test's own desktop: PID is its init).
child_named() {
        local p
        for p in $(children_of "$1"); do
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && proc_alive "$p" && echo "$p"
        done
}

bd_config desktop=xfce timeout=60 checkpointable=yes
bd_start "$P"
t_is "$?" 0 "a checkpointable desktop starts" || { cat "$BD_T/out/$P.err"; t_done; }
H=$(rec_get "$P" PID)
I=$(child_named "$H" botdesk-ns-init)
t_match "$I" '^[0-9]+$' "the helper's child is botdesk-ns-init (pid $I)"
t_is "$(inner_pid "$I")" 1 "... the pid 1 of its namespace"
t_isnt "$(ns_of "$I" pid)" "$(ns_of "$H" pid)" "... a PID namespace that is not the helper's"
t_isnt "$(ns_of "$I" ipc)" "$(ns_of "$H" ipc)" "... nor its IPC namespace"
t_is "$(children_of "$H" | grep -cvx "$I")" 0 "the helper has no other child: everything starts through the init"

X=$(xservers_of "$P")
t_match "$X" '^[0-9]+$' "the X server runs (pid $X)"
t_is "$(awk '{print $4}' "/proc/$X/stat")" "$I" "... as the init's child"
t_is "$(ns_of "$X" pid)" "$(ns_of "$I" pid)" "... in its PID namespace"
t_is "$(ns_of "$X" ipc)" "$(ns_of "$I" ipc)" "... and its IPC namespace"
N=$(rec_get "$P" DISPLAY)
# The server writes its pid in the namespace there (2, our kthreadd): every allocator would think it alive forever.
t_is "$(lock_pid "$N")" "$X" "the lock of :$N names the X server by our pid of it"
# Everything of the desktop but the helper: the bus, Xfce, what the bus activated.
outside=
n=0
for p in $(desktop_pids "$P"); do
        [ "$p" = "$H" ] && continue
        n=$((n + 1))
        [ "$(ns_of "$p" pid)" = "$(ns_of "$I" pid)" ] || outside="$outside $p($(cat "/proc/$p/comm" 2>/dev/null))"
done
t_ok "the desktop's $n processes all run in the init's namespace${outside:+ (not:$outside)}" test -z "$outside" -a "$n" -ge 6

"$BOTDESK" windows "$P" >"$BD_T/windows" 2>&1
t_is "$?" 0 "botdesk windows reaches the X server from outside"
t_ok "... and lists the panel" grep -q 'xfce4-panel' "$BD_T/windows"
"$BOTDESK" thumbnail "$P" --output "$BD_T/shot.png" >/dev/null 2>"$BD_T/shot.err"
t_is "$?" 0 "a thumbnail is taken (MIT-SHM, its segment passed as an fd across the IPC namespaces)"
t_is "$(head -c 4 "$BD_T/shot.png" | od -An -tx1 | tr -d ' ')" 89504e47 "... a PNG"

# A component that dies comes back, inside.
PANEL=$(child_named "$I" xfce4-panel)
t_match "$PANEL" '^[0-9]+$' "the panel runs as the init's child (pid $PANEL)"
kill -KILL "$PANEL"
panel_back() { NEW=$(child_named "$I" xfce4-panel); [ -n "$NEW" ] && [ "$NEW" != "$PANEL" ]; }
wait_for 20 panel_back
t_is "$?" 0 "a killed panel is started again (waited 20 s for a new xfce4-panel under the init)"
t_is "$(ns_of "$NEW" pid)" "$(ns_of "$I" pid)" "... in the namespace ($NEW)"
t_ok "the helper still runs" proc_alive "$H"

# The X server's end, reported by the init, ends the desktop.
bd_snapshot "$P"
kill -KILL "$X"
helper_gone() { ! proc_alive "$H"; }
wait_for 20 helper_gone
t_is "$?" 0 "the X server killed: the helper ends (waited 20 s)"
t_match "$(cat "$RT/last-error" 2>/dev/null)" 'X server' "... and last-error names the X server"
t_is "$(desktop_pids "$P")" "" "... nothing of the desktop runs"
t_ok "... the init is gone" bash -c '! kill -0 "$1" 2>/dev/null' _ "$I"
t_ok "... and so is the lock of :$N" display_unused "$N"

# The init's end, likewise.
bd_start "$P"
t_is "$?" 0 "it starts again"
H=$(rec_get "$P" PID)
I=$(child_named "$H" botdesk-ns-init)
bd_snapshot "$P"
kill -KILL "$I"
wait_for 20 helper_gone
t_is "$?" 0 "the init killed: the helper ends (waited 20 s)"
t_match "$(cat "$RT/last-error" 2>/dev/null)" 'botdesk-ns-init' "... and last-error names the init"
t_is "$(desktop_pids "$P")" "" "... nothing of the desktop runs"

# A stop leaves nothing.
bd_start "$P"
t_is "$?" 0 "it starts once more"
H=$(rec_get "$P" PID)
bd_stop "$P"
t_is "$?" 0 "and stops"
t_is "$(desktop_pids "$P")" "" "... leaving nothing"

# Without CAP_SYS_ADMIN (dropped from the bounding set) no PID namespace can be made: refused, saying why.
bd_config desktop=command checkpointable=yes
R=$(bd_profile c)
bd_register "$R"
setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin timeout 60 "$BOTDESK" start "$R" \
        >"$BD_T/out/$R.out" 2>"$BD_T/out/$R.err" &
wait $!
t_is "$?" 1 "without CAP_SYS_ADMIN a checkpointable start fails"
t_match "$(cat "$BD_T/out/$R.err")" 'checkpointable = yes.*CAP_SYS_ADMIN' "... naming the setting and the capability"
t_is "$(desktop_pids "$R")" "" "... leaving nothing running"

# Without the key, the desktop runs in the host's namespaces.
bd_config desktop=command
Q=$(bd_profile b)
bd_start "$Q"
t_is "$?" 0 "a desktop without checkpointable starts"
X=$(xservers_of "$Q")
t_is "$(ns_of "$X" pid)" "$(ns_of $$ pid)" "... its X server in our PID namespace"
t_is "$(child_named "$(rec_get "$Q" PID)" botdesk-ns-init)" "" "... and no init"
bd_stop "$Q"
t_done
