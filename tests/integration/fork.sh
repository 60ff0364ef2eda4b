#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk snapshot and botdesk fork: a checkpointable desktop with a GTK
# slider is dumped into a named snapshot and runs on; forks of that snapshot
# come up as new profiles on displays of their own, each with the screen of
# the snapshot to the pixel (the slider where it was then, not where the
# parent moved it since), each taking input on its own without touching the
# parent or each other. A fork's tree runs in a mount namespace that shows it
# its own dirs where it knows its parent's: its X socket is the fork's
# (RUNTIME/x11, named to the host by a symlink of its display), and a fork
# hibernates and resumes like any desktop, and so does one whose display
# was taken meanwhile, on another. A fork of a parent a viewer resized
# starts at its own configured size. Bad input is refused before
# anything is made. Needs root and CRIU 4.1 or later (scripts/install-deps.sh
# --tests makes one).
. "$(dirname "$0")/lib.sh"
bd_init fork 830 once
bd_need_xserver
bd_need zenity xfwm4 cmp socat
bd_need_criu
P=$(bd_profile a)
Q=$(bd_profile b)
R=$(bd_profile c)
SNAPS=$XDG_STATE_HOME/botdesk/$P/snapshots

shot() { "$BOTDESK" thumbnail "$1" --output "$2" >/dev/null 2>"$BD_T/shot.err"; }
window_of() { "$BOTDESK" windows "$1" 2>/dev/null | awk '/fork-test/ {print $1; exit}'; }
window_up() { [ -n "$(window_of "$1")" ]; }
display_of() { rec_get "$1" DISPLAY; }
# A click in the middle of the slider's window, then a key: the slider moves one step.
nudge() {
        local g x y
        g=$("$BOTDESK" windows "$1" 2>/dev/null | awk -v w="$(window_of "$1")" '$1 == w {print $2; exit}')
        x=$(echo "$g" | awk -F'[x+]' '{print $3 + int($1 / 2)}')
        y=$(echo "$g" | awk -F'[x+]' '{print $4 + int($2 / 2)}')
        "$BOTDESK" input "$1" click "$x" "$y" >/dev/null 2>&1 && "$BOTDESK" input "$1" key Right >/dev/null 2>&1
}
changed_from() { shot "$1" "$BD_T/now-$1.png" && ! cmp -s "$2" "$BD_T/now-$1.png"; }
fork() { timeout 200 "$BOTDESK" fork "$@" >"$BD_T/fork.out" 2>"$BD_T/fork.err"; }

bd_config command="sh -c 'xfwm4 & exec zenity --scale --title=fork-test --text=fork-test --value=10'" \
        checkpointable=yes criu="$CRIU" timeout=30
bd_start "$P"
t_is "$?" 0 "a checkpointable desktop with a GTK window starts" || { cat "$BD_T/out/$P.err"; t_done; }
wait_for 20 window_up "$P"
t_is "$?" 0 "its window is up (waited 20 s for it)"
nudge "$P"
t_is "$?" 0 "its slider is moved"
"$BOTDESK" settle "$P" >/dev/null 2>&1
bd_shot_stable "$P" "$BD_T/snap.png"
t_is "$?" 0 "a picture of the screen to be kept"
PN=$(display_of "$P")
# Its programs' XDG_RUNTIME_DIR is the profile's (what they keep there is named by the display number,
# which a fork shares): the accessibility bus's socket, say.
ZP=$(for p in $(desktop_pids "$P"); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = zenity ] && echo "$p"; done | head -n1)
XR=$(tr '\0' '\n' <"/proc/$ZP/environ" 2>/dev/null | sed -n 's/^XDG_RUNTIME_DIR=//p')
t_is "$XR" "$(bd_rt "$P")/xdg-runtime" "the desktop's programs keep their runtime files in the profile's runtime dir"

# The snapshot: kept, the desktop running on.
PSTATE=$XDG_STATE_HOME/botdesk/$P
echo before >"$PSTATE/xdg/data/fork-test-before"
timeout 200 "$BOTDESK" snapshot "$P" s1 --json >"$BD_T/snap.out" 2>"$BD_T/snap.err"
t_is "$?" 0 "botdesk snapshot keeps a snapshot" || cat "$BD_T/snap.err"
t_ok "... and says so in JSON" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["snapshot"] == "s1" and d["size"] > 1000000))' "$BD_T/snap.out"
t_is "$(stat -c %a "$SNAPS/s1")" 700 "... in a 0700 dir"
t_is "$(find "$SNAPS/s1" -maxdepth 1 -type f ! -perm 600 | wc -l)" 0 "... every image 0600"
t_ok "... with the session files as they were dumped" test -f "$SNAPS/s1/files/xdg/data/fork-test-before"
echo after >"$PSTATE/xdg/data/fork-test-after"
"$BOTDESK" status "$P" --quiet
t_is "$?" 0 "the desktop runs on"
t_is "$(display_of "$P")" "$PN" "... on its display"
shot "$P" "$BD_T/after-snap.png"
t_ok "... with the same screen" cmp -s "$BD_T/snap.png" "$BD_T/after-snap.png"
nudge "$P"
wait_for 10 changed_from "$P" "$BD_T/snap.png"
t_is "$?" 0 "... taking input after it (waited 10 s for the slider to move)"
"$BOTDESK" settle "$P" >/dev/null 2>&1
bd_shot_stable "$P" "$BD_T/parent.png"

# What is refused.
timeout 60 "$BOTDESK" snapshot "$P" s1 >/dev/null 2>"$BD_T/err"
t_is "$?" 1 "a second snapshot of the same name is refused"
t_match "$(cat "$BD_T/err")" 'already' "... saying it exists"
timeout 60 "$BOTDESK" snapshot "$P" a/b >/dev/null 2>"$BD_T/err"
t_is "$?" 2 "a snapshot name with a slash is a usage error"
fork "$P" nosuch --as "$Q"
t_is "$?" 1 "a fork of a snapshot that is not there fails"
t_match "$(cat "$BD_T/fork.err")" 'no snapshot nosuch' "... naming it"
fork "$P" s1 --as "$P"
t_is "$?" 2 "a fork onto its own parent is a usage error"
fork "$P" s1
t_is "$?" 2 "a fork without --as is a usage error"
t_ok "... and none made anything" test ! -e "$XDG_STATE_HOME/botdesk/$Q"

# One fork.
bd_register "$Q"
fork "$P" s1 --as "$Q" --json
t_is "$?" 0 "botdesk fork starts a fork" || cat "$BD_T/fork.err"
bd_snapshot "$Q"
QN=$(display_of "$Q")
t_ok "... ready, said in JSON" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["forks"][0]; sys.exit(not (f["profile"] == sys.argv[2] and f["running"] and f["display"] == int(sys.argv[3])))' "$BD_T/fork.out" "$Q" "$QN"
t_ok "... on a display of its own (:$QN, the parent's :$PN)" test -n "$QN" -a "$QN" != "$PN"
QRT=$(bd_rt "$Q")
t_match "$(cat "$QRT/helper.log")" "a fork of $P/s1" "... restored from the snapshot (its log)"
t_match "$(cat "$QRT/helper.log")" 'mount namespace of its own' "... in a mount namespace of its own"
t_is "$(readlink "/tmp/.X11-unix/X$QN")" "$QRT/x11/X$PN" "its display names the X socket in its own runtime dir"
# Its X server's command line is its parent's (restored as it was): known by the lock and its process.
QX=$(lock_pid "$QN")
t_match "$(cat "/proc/$QX/comm" 2>/dev/null)" '^X' "... and its lock an X server by our pid ($QX)"
t_ok "... the fork's, not the parent's" test -n "$QX" -a "$QX" != "$(lock_pid "$PN")"
t_ok "... in a mount namespace other than ours" test "$(readlink "/proc/$QX/ns/mnt")" != "$(readlink /proc/self/ns/mnt)"
shot "$Q" "$BD_T/fork.png"
t_is "$?" 0 "a picture of the fork's screen"
t_ok "... the snapshot's screen to the pixel (the slider where it was then)" cmp -s "$BD_T/snap.png" "$BD_T/fork.png"
t_ok "... not the parent's now" bash -c '! cmp -s "$1" "$2"' _ "$BD_T/parent.png" "$BD_T/fork.png"
t_ok "it is a profile of its own: its runtime dir holds its RFB socket" test -S "$QRT/rfb.sock"
t_ok "... and its programs' runtime files, as the snapshot had them" test -d "$QRT/xdg-runtime"
QSTATE=$XDG_STATE_HOME/botdesk/$Q
t_ok "its session files are the snapshot's, not the parent's now" test -f "$QSTATE/xdg/data/fork-test-before" -a ! -e "$QSTATE/xdg/data/fork-test-after"
"$BOTDESK" journal "$Q" --json >"$BD_T/journal" 2>/dev/null
t_ok "its journal begins with where it came from" python3 -c 'import json,sys; e=json.loads(open(sys.argv[1]).readline()); sys.exit(not (e["action"] == "fork" and e["args"]["from"] == sys.argv[2] and e["args"]["snapshot"] == "s1" and e["args"]["snapshot_time"]))' "$BD_T/journal" "$P"
nudge "$Q"
wait_for 10 changed_from "$Q" "$BD_T/fork.png"
t_is "$?" 0 "the fork takes input (waited 10 s for its slider to move)"
shot "$P" "$BD_T/parent-after.png"
t_ok "... which leaves the parent's screen as it was" cmp -s "$BD_T/parent.png" "$BD_T/parent-after.png"
# A snapshot that holds what is not an image (a directory) cannot be linked: the fork fails, leaving nothing.
mkdir "$SNAPS/s1/not-an-image"
fork "$P" s1 --as "$R-x"
t_is "$?" 1 "a fork of a snapshot that cannot be linked fails"
t_ok "... and leaves no profile behind" test ! -e "$XDG_STATE_HOME/botdesk/$R-x"
rmdir "$SNAPS/s1/not-an-image"
fork "$P" s1 --as "$Q"
t_is "$?" 3 "a fork onto a profile that exists is refused"
t_match "$(cat "$BD_T/fork.err")" 'exists' "... saying so"

# Several at once, into profiles whose configuration says another desktop (the parent's command is its
# own [profile.NAME] now): each is restored as its tree was started.
bd_config desktop=xfce checkpointable=yes criu="$CRIU" timeout=30
printf '[profile.%s]\ndesktop = command\ncommand = %s\n' "$P" \
        "sh -c 'xfwm4 & exec zenity --scale --title=fork-test --text=fork-test --value=10'" >>"$BOTDESK_CONFIG"
bd_register "$R-1"
bd_register "$R-2"
fork "$P" s1 --as "$R" --count 2
t_is "$?" 0 "botdesk fork --count 2 starts two forks" || cat "$BD_T/fork.err"
bd_snapshot "$R-1"
bd_snapshot "$R-2"
R1=$(display_of "$R-1")
R2=$(display_of "$R-2")
t_ok "... named $R-1 and $R-2, on displays of their own (:$R1, :$R2)" test -n "$R1" -a -n "$R2" -a "$R1" != "$R2" -a "$R1" != "$QN" -a "$R1" != "$PN" -a "$R2" != "$PN" -a "$R2" != "$QN"
t_match "$(cat "$(bd_rt "$R-1")/helper.log")" 'restored as it was started' "... as its tree was started, whatever its configuration says"
shot "$R-2" "$BD_T/r2.png"
t_ok "... each with the snapshot's screen" cmp -s "$BD_T/snap.png" "$BD_T/r2.png"
nudge "$R-1"
wait_for 10 changed_from "$R-1" "$BD_T/snap.png"
t_is "$?" 0 "input to one (waited 10 s for its slider)"
shot "$R-2" "$BD_T/r2-after.png"
t_ok "... leaves its sibling as it was" cmp -s "$BD_T/snap.png" "$BD_T/r2-after.png"
bd_stop "$R-1"
bd_stop "$R-2"

# A fork hibernates and resumes in its own namespace.
"$BOTDESK" settle "$Q" >/dev/null 2>&1
bd_shot_stable "$Q" "$BD_T/q-before.png"
timeout 200 "$BOTDESK" hibernate "$Q" >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "the fork hibernates" || cat "$BD_T/err"
t_ok "... its display's lock and symlink gone" test ! -e "/tmp/.X$QN-lock" -a ! -L "/tmp/.X11-unix/X$QN"
bd_start "$Q"
t_is "$?" 0 "... and resumes" || cat "$BD_T/out/$Q.err"
t_match "$(cat "$QRT/helper.log")" 'Restored desktop' "... from its images"
shot "$Q" "$BD_T/q-after.png"
t_ok "... with its own screen to the pixel" cmp -s "$BD_T/q-before.png" "$BD_T/q-after.png"
bd_stop "$Q"
t_is "$?" 0 "the fork stops"
QN=$(cat "$QRT/display" 2>/dev/null)
t_ok "... leaving no lock nor symlink of its display" test ! -e "/tmp/.X$QN-lock" -a ! -L "/tmp/.X11-unix/X$QN"
"$BOTDESK" status "$P" --quiet
t_is "$?" 0 "the parent ran on through all of it"

# A hibernated desktop whose display was taken meanwhile resumes on another, as a fork does.
"$BOTDESK" settle "$P" >/dev/null 2>&1
bd_shot_stable "$P" "$BD_T/p-before.png"
timeout 200 "$BOTDESK" hibernate "$P" >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "the parent hibernates" || cat "$BD_T/err"
socat "UNIX-LISTEN:/tmp/.X11-unix/X$PN" /dev/null &
TAKER=$!
bd_own_pid "$TAKER"
wait_for 10 x_socket_bound "$PN"
t_is "$?" 0 "something else listens on its display :$PN (waited 10 s for it)"
bd_start "$P"
t_is "$?" 0 "its start resumes it all the same" || cat "$BD_T/out/$P.err"
t_match "$(cat "$(bd_rt "$P")/helper.log")" 'Restored desktop :[0-9]* in a mount namespace of its own' "... in a mount namespace of its own"
t_ok "... on another display ($(display_of "$P"))" test -n "$(display_of "$P")" -a "$(display_of "$P")" != "$PN"
shot "$P" "$BD_T/p-after.png"
t_ok "... with its screen to the pixel" cmp -s "$BD_T/p-before.png" "$BD_T/p-after.png"
kill "$TAKER" 2>/dev/null
wait "$TAKER" 2>/dev/null
[ -S "/tmp/.X11-unix/X$PN" ] && [ ! -e "/tmp/.X$PN-lock" ] && rm -f "/tmp/.X11-unix/X$PN"

# A fork's screen starts at its configured size (1024x768), not at the size its parent was resized to.
size_of() { (eval "$("$BOTDESK" env "$1")" && xdpyinfo) 2>/dev/null | awk '/dimensions:/ {print $2; exit}'; }
(eval "$("$BOTDESK" env "$P")" && xrandr -s 800x600) >/dev/null 2>"$BD_T/xrandr.err"
t_is "$(size_of "$P")" 800x600 "the parent is resized to 800x600" || t_diag "$(cat "$BD_T/xrandr.err")"
timeout 200 "$BOTDESK" snapshot "$P" small >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "... and snapshotted so" || t_diag "$(cat "$BD_T/err")"
bd_register "$R-s"
fork "$P" small --as "$R-s"
t_is "$?" 0 "... and forked" || t_diag "$(cat "$BD_T/fork.err")"
bd_snapshot "$R-s"
t_is "$(size_of "$R-s")" 1024x768 "the fork's screen is its configured 1024x768"
t_match "$(cat "$(bd_rt "$R-s")/helper.log")" "configured 1024x768" "... its helper saying so"
t_is "$(size_of "$P")" 800x600 "... and the parent's stays 800x600"

# botdesk exec into a fork: its command joins the fork's tree, seeing the fork as its own programs do (its
# display number and paths in its mount namespace), and goes with it through a hibernation.
in_fork() { "$BOTDESK" windows "$R-s" 2>/dev/null | grep -q fork-exec; }
timeout 30 "$BOTDESK" exec "$R-s" -- zenity --scale --title=fork-exec --text=fork-exec >/dev/null 2>"$BD_T/exec.err"
t_is "$?" 0 "botdesk exec into the fork starts a window there" || t_diag "$(cat "$BD_T/exec.err")"
wait_for 20 in_fork
t_is "$?" 0 "... which the fork shows (waited 20 s)"
t_ok "... and its parent does not" bash -c '! "$1" windows "$2" 2>/dev/null | grep -q fork-exec' _ "$BOTDESK" "$P"
timeout 200 "$BOTDESK" hibernate "$R-s" >/dev/null 2>"$BD_T/err"
t_is "$?" 0 "the fork hibernates with it" || t_diag "$(cat "$BD_T/err")"
bd_start "$R-s"
t_is "$?" 0 "... and resumes"
wait_for 10 in_fork
t_is "$?" 0 "... the window with it (waited 10 s)" ||
        t_diag "$(grep -i 'restor\|resum\|cannot\|error\|ended' "$(bd_rt "$R-s")/helper.log" | head -n 12)" "$("$BOTDESK" windows "$R-s" 2>&1)"
bd_stop "$R-s"
bd_stop "$P"
t_done
