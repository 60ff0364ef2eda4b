#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Warm spares ([pool] spares): a ready spare of real Xfce is adopted by a
# new profile's start, with the profile's own paths and a cookie of its
# own; a replacement follows; the stop leaves nothing of either name; a
# profile that ran before and changed nothing adopts again, also right
# after its spare became ready (before Xfce wrote its settings); a profile
# with state or settings of its own starts cold. The pool's upkeep is
# spare-pool.sh's.
. "$(dirname "$0")/lib.sh"
bd_init spa 330
bd_need_xserver
bd_need xfwm4 xfsettingsd xfdesktop xfce4-panel xdpyinfo
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config desktop=xfce timeout=60 spares=1
P=$(bd_profile fresh)
Q=$(bd_profile own)
printf '[profile.%s]\ngeometry = 800x600\n' "$Q" >>"$BOTDESK_CONFIG"
BASE=$XDG_RUNTIME_DIR/botdesk

cookie_of() { od -An -tx1 "$1" 2>/dev/null | tr -d ' \n'; }

# ---- a spare ----------------------------------------------------------------------------------
# The caller's secrets must stay behind, in the spare as in a cold start.
BD_SPARE_SECRET=hunter2-$$ timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill" 2>&1 &
wait $!
t_is "$?" 0 "pool fill exits 0 once a spare is ready" || t_diag "$(cat "$BD_T/out/fill")"
bd_snapshot_spares
S=$(spare_field name | head -n1)
SPID=$(spare_field pid | head -n1)
t_match "$S" '^_spare-[0-9a-f]{8}$' "the spare has a neutral name that no profile can have ($S)"
t_is "$(spare_field name | wc -l)" 1 "spares = 1 keeps one spare"
C0=$(cookie_of "$BASE/$S/Xauthority")
XS=$(cmdline_pids "-rfbunixpath $BASE/$S/rfb.sock " | head -n1)
if [ -n "$XS" ] && ! grep -qza '^BOTDESK_PROFILE=' "/proc/$XS/environ" 2>/dev/null; then
        t_pass "the spare's processes carry no profile name"
else
        t_fail "the spare's processes carry no profile name" "X server: '$XS'"
fi
t_is "$("$BOTDESK" status --json "$P" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["running"])')" False \
        "the profile has no desktop before its start"

# ---- adopted ----------------------------------------------------------------------------------
t0=$(date +%s%N)
bd_start "$P" --json
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
t_is "$rc" 0 "start of a new profile exits 0" || t_diag "$(bd_err "$P")"
t_diag "the start took $ms ms"
t_is "$(rec_get "$P" PID)" "$SPID" "the start adopted the spare: the profile's helper is the spare's"
t_is "$(bd_adopted_from "$P")" "$S" "the spare's name now leads to the profile's runtime dir"
STATUS=$(timeout 20 "$BOTDESK" status --json "$P")
check=$("$PY" - "$STATUS" "$BD_BAND_MIN" "$BD_BAND_MAX" "$BASE/$P/rfb.sock" "$SPID" <<'EOF'
import json, sys
s = json.loads(sys.argv[1]); lo, hi = int(sys.argv[2]), int(sys.argv[3])
bad = []
if s.get("running") is not True: bad.append("running=%r" % s.get("running"))
d = s.get("display") or ""
if not (d.startswith(":") and d[1:].isdigit() and lo <= int(d[1:]) <= hi): bad.append("display=%r" % d)
if s.get("socket") != sys.argv[4]: bad.append("socket=%r" % s.get("socket"))
if str(s.get("pid")) != sys.argv[5]: bad.append("pid=%r" % s.get("pid"))
if s.get("geometry") != "1024x768": bad.append("geometry=%r" % s.get("geometry"))
print(" ".join(bad) or "ok")
EOF
)
t_is "$check" ok "status: running, display in the band, the profile's own RFB socket"
C1=$(cookie_of "$BASE/$P/Xauthority")
t_match "$C1" '^[0-9a-f]{60,}$' "the profile has its own Xauthority"
t_isnt "$C1" "$C0" "the profile's cookie is not the spare's"
out=$( (eval "$("$BOTDESK" env "$P")" && timeout 20 xdpyinfo) 2>&1)
t_match "$out" "name of display: +:[0-9]+" "an X client with the profile's env (its cookie) reaches the display"
envf=$(cat "$BASE/$P/env" 2>/dev/null)
if [ -n "$envf" ] && ! grep -q '_spare-' <<<"$envf" && grep -q "XAUTHORITY=$BASE/$P/Xauthority" <<<"$envf" &&
        grep -q "DBUS_SESSION_BUS_ADDRESS=unix:path=$BASE/$P/bus" <<<"$envf" &&
        grep -q "XDG_CONFIG_HOME=$XDG_STATE_HOME/botdesk/$P/xdg/config" <<<"$envf"; then
        t_pass "the published env names the profile's paths only"
else
        t_fail "the published env names the profile's paths only" "$envf"
fi
t_is "$(stat -c %a "$BASE/$P/rfb.sock" 2>&1)" 600 "the RFB socket keeps mode 0600"
banner=$("$PY" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1]); print(s.recv(12).decode().strip())' \
        "$BASE/$P/rfb.sock" 2>&1)
t_match "$banner" '^RFB 003\.00[0-9]$' "the RFB socket, moved into the profile's dir, answers ($banner)"
# The journal's frames follow the helper into the profile's dir.
t_is "$(stat -c %a "$BASE/$P/journal-frame.sock" 2>&1)" 600 "the adopted helper takes journal frames at the profile's own socket (0600)"
"$BOTDESK" input "$P" move 5 5 >/dev/null 2>&1
frames=$XDG_STATE_HOME/botdesk/$P/journal/frames
t_ok "... and writes an agent action's frame into the profile's journal (within 10 s)" \
        wait_for 10 bash -c "ls '$frames' 2>/dev/null | grep -q '^[0-9]*\.jpg\$'"
wm=$( (eval "$("$BOTDESK" env "$P")" && timeout 20 "$BOTDESK" windows "$P") 2>&1)
t_match "$wm" 'Xfce4-panel' "the adopted Xfce session runs on (windows lists its panel)"
t_ok "the session state is the profile's own dir" test -d "$XDG_STATE_HOME/botdesk/$P/xdg/config" -a ! -L "$XDG_STATE_HOME/botdesk/$P/xdg"
bd_snapshot "$P"
CG=$(rec_get "$P" CGROUP)
TOK=$(rec_get "$P" TOKEN)
if [ -n "$CG" ]; then
        untagged=
        for pid in $(cgroup_pids "$CG"); do
                # The helper makes the token; it is the record's pid.
                [ "$pid" = "$SPID" ] && continue
                grep -qzxF "BOTDESK_TOKEN=$TOK" "/proc/$pid/environ" 2>/dev/null || untagged="$untagged $pid"
        done
        t_is "$untagged" "" "every process of the desktop's cgroup but the helper carries the recorded token"
else
        t_match "$(token_pids "$TOK" | wc -l)" '^[1-9][0-9]*$' "processes carry the recorded token (no cgroup)"
fi

leaks=
for pid in $(desktop_pids "$P"); do
        grep -qza "^BD_SPARE_SECRET=" "/proc/$pid/environ" 2>/dev/null && leaks="$leaks $pid"
done
t_is "$leaks" "" "no process of the adopted desktop carries the filler's environment"
t_match "$(desktop_pids "$P" | wc -l)" '^([6-9]|[1-9][0-9]+)$' "... of its processes, which are found"

if wait_for 60 ready_spare_other_than "$SPID"; then
        t_pass "a replacement spare is ready after the adoption"
else
        t_fail "a replacement spare is ready after the adoption" "$("$BOTDESK" pool list 2>&1)" \
                "$(cat "$BASE/pool.log" 2>/dev/null)"
fi
bd_snapshot_spares
R=$(spare_field name | head -n1)
RPID=$(spare_field pid | head -n1)

# ---- stop -------------------------------------------------------------------------------------
# Xfce saves the settings its components filled in some seconds after
# they start (xfconfd): the profile's state is then what a session that
# ran makes, unlike a spare that has just become ready.
t_ok "the adopted session saved its settings and recorded them as a fresh session's (waited up to 45 s)" \
        wait_for 45 test -f "$XDG_STATE_HOME/botdesk/$P/xdg/.botdesk-fresh"
t_ok "... after xfconfd saved what the session filled in" \
        test -f "$XDG_STATE_HOME/botdesk/$P/xdg/config/xfce4/xfconf/xfce-perchannel-xml/displays.xml"
bd_stop "$P"
t_is "$?" 0 "stop of the adopted desktop exits 0"
left=$(desktop_pids "$P")
t_is "$(echo $left)" "" "nothing of the adopted desktop runs after the stop"
[ -n "$CG" ] && t_ok "its cgroup is gone" test ! -e "$CG"
t_ok "the spare's name is gone from the runtime dir" test ! -e "$BASE/$S" -a ! -L "$BASE/$S"
t_ok "the spare's name is gone from the state dir" test ! -e "$XDG_STATE_HOME/botdesk/$S"
t_is "$(spare_field pid | head -n1)" "$RPID" "the replacement spare is still ready"

# ---- again: state still a fresh session's; then state of its own ------------------------------
# A spare that has just become ready has not saved its settings yet, and
# Xfce's own writes vary from run to run: the profile's state is judged by
# the manifest its settled session recorded (adopt-state.h), whatever the load.
timeout 60 "$BOTDESK" pool drain >/dev/null 2>&1
timeout 120 "$BOTDESK" pool fill --quiet >"$BD_T/out/fill-again" 2>&1 &
wait $!
bd_snapshot_spares
RPID=$(spare_field pid | head -n1)
t_match "$RPID" '^[0-9]+$' "a fresh spare is ready again"
bd_start "$P" --json
t_is "$?" 0 "a second start of the profile exits 0"
t_is "$(rec_get "$P" PID)" "$RPID" "its session state is still a fresh session's: it adopts a spare that had just become ready"
t_ok "its session state is a dir of its own again" test -d "$XDG_STATE_HOME/botdesk/$P/xdg/config" -a ! -L "$XDG_STATE_HOME/botdesk/$P/xdg"
bd_snapshot "$P"
bd_stop "$P"
if wait_for 60 ready_spare_other_than "$RPID"; then
        t_pass "a spare is ready again"
else
        t_fail "a spare is ready again" "$("$BOTDESK" pool list 2>&1)"
fi
bd_snapshot_spares
R=$(spare_field name | head -n1)
RPID=$(spare_field pid | head -n1)
desk=$XDG_STATE_HOME/botdesk/$P/xdg/config/xfce4/xfconf/xfce-perchannel-xml/xfce4-desktop.xml
t_ok "the profile has Xfce's desktop settings" test -f "$desk"
printf '<!-- the user was here -->\n' >>"$desk"
bd_start "$P" --json
t_is "$?" 0 "a start after a change of its session state exits 0"
t_isnt "$(rec_get "$P" PID)" "$RPID" "a profile with session state of its own starts cold"
t_is "$(spare_field pid | head -n1)" "$RPID" "and the spare stays in the pool"
t_match "$(tail -n1 "$desk")" 'the user was here' "the profile's own state is kept"
bd_stop "$P"
bd_start "$Q" --json
t_is "$?" 0 "start of a profile with its own geometry exits 0"
t_isnt "$(rec_get "$Q" PID)" "$RPID" "a profile with settings of its own starts cold"
t_match "$("$BOTDESK" status "$Q")" '800x600' "with its own geometry"
bd_stop "$Q"


t_done
