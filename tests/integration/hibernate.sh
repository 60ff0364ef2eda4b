#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk hibernate and the start that resumes: a checkpointable desktop
# with a GTK window whose slider was moved is dumped (images 0600 in a 0700
# dir, nothing of it left running, status says hibernated), and the next
# start brings it back from the images: the same screen to the pixel, the
# same windows, the slider where it was, input working on. Refused when it
# cannot be done (not checkpointable, not running, a human in control); a
# viewer connected from outside has its connection ended and the dump goes
# on, one that fails (a program outside connected to the desktop's bus)
# leaves the desktop running; and images another kernel took start the profile cold with the
# reason, kept aside in snapshot.failed. Needs root and CRIU 4.1 or later
# (scripts/install-deps.sh --tests makes one).
. "$(dirname "$0")/lib.sh"
bd_init hib 810 once
bd_need_xserver
bd_need zenity xfwm4 cmp socat
bd_need_criu
P=$(bd_profile a)
RT=$(bd_rt "$P")
SNAP=$XDG_STATE_HOME/botdesk/$P/snapshot

shot() { "$BOTDESK" thumbnail "$P" --output "$1" >/dev/null 2>"$BD_T/shot.err"; }
zenity_window() { "$BOTDESK" windows "$P" 2>/dev/null | awk '/hibernate-test/ {print $1; exit}'; }
window_up() { W=$(zenity_window); [ -n "$W" ]; }
hibernate() { timeout 200 "$BOTDESK" hibernate "$P" "$@" >"$BD_T/hib.out" 2>"$BD_T/hib.err"; }

# A window manager (for the window list) and the window, both inside the tree.
# A slider, not a text entry: a caret blinks, which no two pictures would agree on.
bd_config command="sh -c 'xfwm4 & exec zenity --scale --title=hibernate-test --text=hibernate-test --value=10'" \
        checkpointable=yes criu="$CRIU" timeout=30
bd_start "$P"
t_is "$?" 0 "a checkpointable desktop with a GTK window starts" || { cat "$BD_T/out/$P.err"; t_done; }
W=
wait_for 20 window_up
t_match "$W" '^0x' "the window is up (waited 20 s for it: $W)"
"$BOTDESK" input "$P" key Right Right Right >/dev/null 2>&1
t_is "$?" 0 "its slider is moved (10 to 13)"
"$BOTDESK" settle "$P" >/dev/null 2>&1
bd_shot_stable "$P" "$BD_T/before.png"
t_is "$?" 0 "a picture of the screen before"
"$BOTDESK" windows "$P" >"$BD_T/windows.before" 2>/dev/null
N=$(rec_get "$P" DISPLAY)

# What cannot be hibernated.
"$BOTDESK" lease "$P" take --viewer human-1 >/dev/null
hibernate
t_is "$?" 3 "refused while a human holds control"
t_match "$(cat "$BD_T/hib.err")" 'human' "... saying so"
"$BOTDESK" lease "$P" release --viewer human-1 >/dev/null

# A program outside the desktop connected to its session bus: CRIU cannot dump half of that connection, and
# botdesk ends only the X server's (below); the dump fails and the desktop runs on.
socat -u "UNIX-CONNECT:$RT/bus" /dev/null &
OUTSIDER=$!
bd_own_pid "$OUTSIDER"
# Accepted: the listening socket and the server's end of the connection both name the path.
accepted() { [ "$(awk -v p="$1" '$8 == p' /proc/net/unix | wc -l)" -ge 2 ]; }
wait_for 10 accepted "$RT/bus"
t_is "$?" 0 "a program outside connects to the desktop's bus (waited 10 s for its accept)"
hibernate
t_is "$?" 1 "with it connected the dump fails"
t_match "$(cat "$BD_T/hib.err")" 'Cannot hibernate.*outside the desktop' "... saying so ($(head -c 200 "$BD_T/hib.err"))"
"$BOTDESK" status "$P" --quiet
t_is "$?" 0 "... and the desktop runs on"
t_is "$(zenity_window)" "$W" "... with its window"
shot "$BD_T/after-failed.png"
t_is "$?" 0 "... and a picture is taken"
t_ok "... of the same screen" cmp -s "$BD_T/before.png" "$BD_T/after-failed.png"
t_ok "... and no snapshot is left" test ! -e "$SNAP" -a ! -e "$SNAP.new"
kill "$OUTSIDER" 2>/dev/null
wait "$OUTSIDER" 2>/dev/null

# A viewer connected from outside: botdesk ends its connection before the dump (the viewer sees the end and
# leaves), and the hibernation goes on.
socat -u "UNIX-CONNECT:$RT/rfb.sock" /dev/null &
VIEWER=$!
bd_own_pid "$VIEWER"
wait_for 10 accepted "$RT/rfb.sock"
t_is "$?" 0 "a viewer connects to rfb.sock (waited 10 s for its accept)"

# The hibernation.
bd_snapshot "$P"
hibernate --json
t_is "$?" 0 "botdesk hibernate dumps the desktop, the viewer connected" || cat "$BD_T/hib.err"
viewer_gone() { ! kill -0 "$VIEWER" 2>/dev/null; }
wait_for 10 viewer_gone
t_is "$?" 0 "... whose connection was ended (waited 10 s for the viewer to see the end and exit)"
wait "$VIEWER"
t_is "$?" 0 "... an end, not an error, to the viewer"
t_ok "... and says so in JSON" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["hibernated"] and d["size"] > 1000000 and d["dump_ms"] >= 0))' "$BD_T/hib.out"
t_is "$(desktop_pids "$P")" "" "nothing of the desktop runs"
t_ok "its display's lock and socket are gone" display_unused "$N"
t_is "$(stat -c %a "$SNAP")" 700 "the snapshot dir is 0700"
t_is "$(find "$SNAP" -type f ! -perm 600 | wc -l)" 0 "every image is 0600"
"$BOTDESK" status "$P" >"$BD_T/status" 2>&1
t_match "$(cat "$BD_T/status")" 'hibernated at' "status says hibernated"
"$BOTDESK" status "$P" --json >"$BD_T/status.json" 2>&1
t_ok "... in JSON too (hibernated, its time and size)" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["hibernated"] and not d["running"] and d["hibernated_at"] and d["hibernated_size"] > 0))' "$BD_T/status.json"
hibernate
t_is "$?" 4 "a hibernated desktop is not running: a second hibernate is 4"

# The resume.
bd_start "$P"
t_is "$?" 0 "botdesk start resumes it"
t_match "$(cat "$RT/helper.log" 2>/dev/null)" 'Restored desktop' "... from its images (the helper's log)"
t_ok "... and the snapshot is spent" test ! -e "$SNAP"
t_is "$(rec_get "$P" DISPLAY)" "$N" "... on its display (:$N)"
t_is "$(lock_pid "$N")" "$(xservers_of "$P")" "... whose lock names the restored X server by our pid"
shot "$BD_T/after.png"
t_is "$?" 0 "a picture of the screen after"
t_ok "... the same screen to the pixel, the slider where it was" cmp -s "$BD_T/before.png" "$BD_T/after.png"
"$BOTDESK" windows "$P" >"$BD_T/windows.after" 2>/dev/null
t_ok "... the same windows" cmp -s "$BD_T/windows.before" "$BD_T/windows.after"
# A click on the window, then a key: the click gives the window the keyboard should the restored window
# manager have dropped it (seen about once in five runs under ASan and load, after a failed dump).
G=$(awk -v w="$W" '$1 == w {print $2; exit}' "$BD_T/windows.after")
X=$(echo "$G" | awk -F'[x+]' '{print $3 + int($1 / 2)}')
Y=$(echo "$G" | awk -F'[x+]' '{print $4 + int($2 / 2)}')
"$BOTDESK" input "$P" click "$X" "$Y" >/dev/null 2>&1 && "$BOTDESK" input "$P" key Right >/dev/null 2>&1
t_is "$?" 0 "input works on the restored desktop (a click at $X,$Y in the window, a key)"
moved() { shot "$BD_T/typed.png" && ! cmp -s "$BD_T/after.png" "$BD_T/typed.png"; }
wait_for 10 moved
t_is "$?" 0 "... and changes the screen (waited 10 s for the slider to move)"
I=$(cat /proc/"$(rec_get "$P" PID)"/task/*/children 2>/dev/null | tr ' ' '\n' | head -n1)
t_is "$(awk '/^NSpid:/ {print $NF}' "/proc/$I/status" 2>/dev/null)" 1 "the restored init is pid 1 of its namespace again"

# Images another kernel took: started cold, the reason given, the images kept aside.
hibernate
t_is "$?" 0 "it hibernates again"
sed -i 's/^KERNEL=.*/KERNEL=0.0.0-other/' "$SNAP/botdesk-snapshot"
bd_start "$P"
t_is "$?" 0 "a start with images of another kernel works"
t_match "$(cat "$RT/helper.log")" 'Cannot resume.*kernel 0.0.0-other.*starting it cold' "... cold, saying why"
t_ok "... the images kept in snapshot.failed" test -f "$SNAP.failed/botdesk-snapshot"
wait_for 20 window_up
shot "$BD_T/cold.png"
t_ok "... a fresh screen (the slider back at 10)" bash -c '! cmp -s "$1" "$2"' _ "$BD_T/before.png" "$BD_T/cold.png"
bd_stop "$P"

# Hibernated, then started with checkpointable = no: cold, the images set aside, never resumed by a later start.
bd_start "$P"
t_is "$?" 0 "it starts once more"
wait_for 20 window_up
hibernate
t_is "$?" 0 "and hibernates"
bd_config command="sh -c 'xfwm4 & exec zenity --scale --title=hibernate-test --text=hibernate-test --value=10'" \
        criu="$CRIU" timeout=30
bd_start "$P"
t_is "$?" 0 "a start with checkpointable = no works"
t_match "$(cat "$RT/helper.log")" 'checkpointable = no now: it starts cold' "... cold, saying why"
t_ok "... the images set aside" test ! -e "$SNAP" -a -f "$SNAP.failed/botdesk-snapshot"
bd_stop "$P"

# Not checkpointable: refused.
bd_config command='sleep infinity'
Q=$(bd_profile b)
bd_start "$Q"
t_is "$?" 0 "a desktop that is not checkpointable starts"
timeout 60 "$BOTDESK" hibernate "$Q" >/dev/null 2>"$BD_T/q.err"
t_is "$?" 3 "hibernate refuses it"
t_match "$(cat "$BD_T/q.err")" 'checkpointable = yes' "... naming the setting"
bd_stop "$Q"
t_done
