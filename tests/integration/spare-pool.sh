#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The pool's upkeep ([pool] spares), on command desktops (what is said
# here holds for any session; spare-adopt.sh adopts real Xfce): drain; a
# change of the settings retires older spares; a spare that dies is
# replaced after a back-off; an adopted desktop whose helper was killed;
# a spare being stopped is not adopted; bad input; and a pool that cannot
# start a spare, which never blocks a cold start.
. "$(dirname "$0")/lib.sh"
bd_init spp 335
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config spares=1
BASE=$XDG_RUNTIME_DIR/botdesk


timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill" 2>&1 &
wait $!
t_is "$?" 0 "pool fill exits 0 once a spare is ready" || t_diag "$(cat "$BD_T/out/fill")"
bd_snapshot_spares
R=$(spare_field name | head -n1)

# ---- drain ------------------------------------------------------------------------------------
bd_snapshot_spares
RTOK=$(rec_get "$R" TOKEN)
timeout 60 "$BOTDESK" pool drain >"$BD_T/out/drain" 2>&1
t_is "$?" 0 "pool drain exits 0"
t_match "$(cat "$BD_T/out/drain")" "^$R: stopped" "pool drain names the spare it stopped"
t_is "$("$BOTDESK" pool list)" "" "no spare is left"
t_is "$(token_pids "$RTOK" | wc -l)" 0 "no process of the drained spare is left"
t_ok "the drained spare left no dir" test ! -e "$BASE/$R" -a ! -e "$XDG_STATE_HOME/botdesk/$R"

# ---- a change of the settings retires the spares started before it ---------------------------
timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill-s" 2>&1
bd_snapshot_spares
S2=$(spare_field name | head -n1)
S2TOK=$(rec_get "$S2" TOKEN)
cp "$BOTDESK_CONFIG" "$BD_T/before.ini"
sed -i 's/^geometry = 1024x768$/geometry = 1280x720/' "$BOTDESK_CONFIG"
t_match "$("$BOTDESK" pool list)" "^$S2 ready \(stale" "pool list calls a spare of the old settings stale"
P3=$(bd_profile later)
bd_start "$P3" --json
t_is "$?" 0 "a new profile starts after the change"
t_isnt "$(rec_get "$P3" PID)" "$(rec_get "$S2" PID)" "it does not adopt the stale spare"
t_match "$("$BOTDESK" status "$P3")" '1280x720' "it has the new settings"
timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill-t" 2>&1
t_is "$?" 0 "the next fill exits 0"
t_is "$(token_pids "$S2TOK" | wc -l)" 0 "it stopped the stale spare"
t_match "$("$BOTDESK" pool list)" '^_spare-[0-9a-f]{8} ready :[0-9]+ pid' "and started one of the new settings"
bd_snapshot_spares
bd_stop "$P3"
timeout 60 "$BOTDESK" pool drain >/dev/null 2>&1
cp "$BD_T/before.ini" "$BOTDESK_CONFIG"

# ---- a spare that dies once ready is replaced, after a back-off --------------------------------
timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill-d" 2>&1
bd_snapshot_spares
D=$(spare_field name | head -n1)
DPID=$(spare_field pid | head -n1)
DX=$(xservers_of "$D" | head -n1)
t_match "$DX" '^[0-9]+$' "the spare's X server is found (pid $DX)"
rm -f -- "${BASE:?}/pool-backoff"
kill -KILL "$DX" 2>/dev/null
t0=$(date +%s%N)
if wait_for 60 ready_spare_other_than "$DPID"; then
        t_pass "a spare whose X server died is replaced"
else
        t_fail "a spare whose X server died is replaced" "$("$BOTDESK" pool list 2>&1)" "$(cat "$BASE/pool.log" 2>/dev/null)"
fi
t_diag "replaced after $((($(date +%s%N) - t0) / 1000000)) ms"
t_match "$(cat "$BASE/pool-backoff" 2>/dev/null)" '^1 [0-9]+$' "the death counts as a failure of the pool (its back-off)"
bd_snapshot_spares
timeout 60 "$BOTDESK" pool drain >/dev/null 2>&1
rm -f -- "${BASE:?}/pool-backoff"

# ---- an adopted desktop whose helper was killed -------------------------------------------------
timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill-k" 2>&1
bd_snapshot_spares
P6=$(bd_profile killed)
bd_start "$P6" --json
K=$(bd_adopted_from "$P6")
t_match "$K" '^_spare-' "a profile adopts a spare ($K)"
bd_snapshot "$P6"
KPID=$(rec_get "$P6" PID)
KTOK=$(rec_get "$P6" TOKEN)
KCG=$(rec_get "$P6" CGROUP)
t_match "$(grep '^ALIAS=' "$BASE/$P6/helper")" "^ALIAS=$K\$" "the profile's record names the spare it came from"
kill -KILL "$KPID"
wait_for 10 eval '! proc_alive "$KPID"' || t_fail "the killed helper is gone (waited 10 s)"
timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill-k2" 2>&1
bd_snapshot_spares
bd_start "$P6" --json
t_is "$?" 0 "the profile starts again after its helper was killed"
t_isnt "$(rec_get "$P6" PID)" "$KPID" "with a helper of its own"
t_is "$(token_pids "$KTOK" | wc -l)" 0 "nothing of the killed helper's desktop runs on"
[ -n "$KCG" ] && t_ok "its cgroup is gone" test ! -e "$KCG"
t_ok "the link of the spare it came from is gone" test ! -L "$BASE/$K" -a ! -e "$XDG_STATE_HOME/botdesk/$K"
bd_snapshot "$P6"
bd_stop "$P6"
timeout 60 "$BOTDESK" pool drain >/dev/null 2>&1

# ---- a spare being stopped is not adopted ------------------------------------------------------
timeout 120 "$BOTDESK" pool fill >"$BD_T/out/fill-l" 2>&1
bd_snapshot_spares
L=$(spare_field name | head -n1)
LPID=$(spare_field pid | head -n1)
P4=$(bd_profile whilestop)
# What a `botdesk stop` or `pool drain` of the spare holds while it stops it.
exec 8>>"$BASE/$L/start.lock"
if flock -n 8; then
        bd_start "$P4" --json
        t_is "$?" 0 "a start while the spare's start lock is held exits 0"
        t_isnt "$(rec_get "$P4" PID)" "$LPID" "it does not adopt a spare that is being stopped"
        bd_stop "$P4"
else
        t_fail "the test holds the spare's start lock" "flock -n failed"
fi
exec 8>&-
timeout 60 "$BOTDESK" pool drain >/dev/null 2>&1

# ---- bad input --------------------------------------------------------------------------------
cp "$BOTDESK_CONFIG" "$BD_T/good.ini"
sed -i 's/^spares = 1$/spares = 9/' "$BOTDESK_CONFIG"
out=$("$BOTDESK" config check 2>&1)
rc=$?
t_is "$rc" 2 "spares = 9 is a configuration error"
t_match "$out" "botdesk.ini:[0-9]+: .*spares" "said with file and line ($(head -n1 <<<"$out"))"
sed -i 's/^spares = 9$/spares = -1/' "$BOTDESK_CONFIG"
"$BOTDESK" config check >/dev/null 2>&1
t_is "$?" 2 "spares = -1 is a configuration error"
cp "$BD_T/good.ini" "$BOTDESK_CONFIG"
"$BOTDESK" pool frobnicate >/dev/null 2>"$BD_T/out/frob"
t_is "$?" 2 "pool with an unknown action exits 2"
t_match "$(cat "$BD_T/out/frob")" 'list, fill or drain' "and says which actions there are"

# ---- a spare that cannot start ----------------------------------------------------------------
# Spares get the global settings: a command that exits at once. The
# profile W has a command of its own, and so starts cold.
W=$(bd_profile works)
bd_config command=/bin/false settle=200 spares=1
printf '[profile.%s]\ncommand = sleep infinity\n' "$W" >>"$BOTDESK_CONFIG"
timeout 60 "$BOTDESK" pool fill >"$BD_T/out/fill2" 2>&1
t_is "$?" 1 "pool fill exits 1 when the spare cannot start"
t_match "$(cat "$BD_T/out/fill2")" 'Cannot start a spare' "and says why"
t0=$(date +%s%N)
timeout 60 "$BOTDESK" pool fill >"$BD_T/out/fill3" 2>&1
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
t_is "$rc" 1 "a fill right after the failure backs off"
t_match "$(cat "$BD_T/out/fill3")" 'Not starting spares for [0-9]+ s more' "and says for how long"
bd_start "$W"
t_is "$?" 0 "a cold start goes ahead while the pool backs off"
t_diag "the backed-off fill took $ms ms"
bd_stop "$W"

t_done
