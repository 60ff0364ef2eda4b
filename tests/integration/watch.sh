#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk watch: JSON lines driven by inotify on the runtime dirs. The
# first line is the current state; a start, a take, a release and a stop
# follow in that order; --until ready returns once the desktop is ready; a
# helper killed with SIGKILL is reported as failed with a reason (its
# pidfd wakes the watch); watching every profile picks up one created
# later; --json --full lines carry all of status --json.
. "$(dirname "$0")/lib.sh"
bd_init wat 320
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config
P=$(bd_profile a)
Q=$(bd_profile b)

# The events of a watch output as "event:status:holder" words.
events() {
        "$PY" -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["profile"] == sys.argv[2]:
        print("%s:%s:%s" % (d["event"], d["status"], d["lease"]["holder"]))' "$1" "$2"
}
has_event() { events "$1" "$2" | grep -qx -- "$3"; }

# ---- one cycle: start, take, release, stop ----------------------------------------------------

"$BOTDESK" watch "$P" --json >"$BD_T/w1" 2>"$BD_T/w1.err" &
w1=$!
bd_own_pid "$w1"
t_ok "the first line is the current state (stopped, agent)" wait_for 10 has_event "$BD_T/w1" "$P" state:stopped:agent
t_ok "the desktop starts" bd_start "$P"
# Each change is let through before the next: a watch reports states, and
# changes faster than it reads them arrive as one (the epoch still counts them).
wait_for 10 has_event "$BD_T/w1" "$P" status:ready:agent
"$BOTDESK" lease "$P" take --viewer alice >/dev/null
wait_for 10 has_event "$BD_T/w1" "$P" lease:ready:human
"$BOTDESK" lease "$P" release --viewer alice >/dev/null
wait_for 10 has_event "$BD_T/w1" "$P" lease:ready:agent
t_ok "the desktop stops" bd_stop "$P"
t_ok "the watch reports the stop (waited up to 10 s)" wait_for 10 eval 'events "$BD_T/w1" "$P" | tail -n 1 | grep -qx status:stopped:agent'
kill "$w1" 2>/dev/null
wait "$w1" 2>/dev/null
seq_got=$(events "$BD_T/w1" "$P" | uniq | tr '\n' ' ')
t_diag "events: $seq_got"
t_match "$seq_got" '^state:stopped:agent (status:started:agent )+status:ready:agent lease:ready:human lease:ready:agent (status:stopping:agent )?status:stopped:agent $' \
        "start, ready, take, release and stop arrive in that order, nothing else"
t_is "$("$PY" -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]; print("ok")' "$BD_T/w1")" ok \
        "every line is one JSON object"
t_is "$("$PY" -c 'import json,re,sys; print(all(re.fullmatch(r":[0-9]+", d["display"] or "") for d in map(json.loads, open(sys.argv[1])) if d["status"] == "ready"))' "$BD_T/w1")" \
        True "every line of the ready desktop names its display"

# ---- --until ready ----------------------------------------------------------------------------

timeout 60 "$BOTDESK" watch "$P" --until ready >"$BD_T/w2" 2>&1 &
w2=$!
bd_own_pid "$w2"
sleep 0.2
t_ok "the desktop starts again" bd_start "$P"
wait "$w2"
t_is "$?" 0 "watch --until ready exits 0 once the desktop is ready"
t_match "$(tail -n 1 "$BD_T/w2")" " $P ready" "... and its last line says ready"
timeout 10 "$BOTDESK" watch "$P" --until ready >/dev/null
t_is "$?" 0 "watch --until ready of a ready desktop returns at once"

# ---- --full: every line is all of status --json as well -----------------------------------------

timeout 10 "$BOTDESK" watch "$P" --json --full --until ready >"$BD_T/wf" 2>"$BD_T/wf.err"
t_is "$?" 0 "watch --json --full --until ready of a ready desktop returns at once" || t_diag "$(cat "$BD_T/wf.err")"
"$BOTDESK" status "$P" --json >"$BD_T/st.json"
t_is "$("$PY" -c '
import json, sys
w = json.loads(open(sys.argv[1]).readline())
s = json.load(open(sys.argv[2]))
extra = sorted(set(w) - set(s))
missing = sorted(set(s) - set(w))
print(extra, missing, w["event"], w["status"], w["running"], w["pid"] == s["pid"], w["lease"]["holder"])' "$BD_T/wf" "$BD_T/st.json")" \
        "['event', 'reason', 'status', 'time'] [] state ready True True agent" \
        "... its line has every key of status --json (the same pid, running, the lease) and the event's own four"
timeout 10 "$BOTDESK" watch "$P" --full >/dev/null 2>"$BD_T/wf.err"
t_is "$?" 2 "--full without --json is a usage error"

# ---- a killed helper --------------------------------------------------------------------------

timeout 60 "$BOTDESK" watch "$P" --json --until stopped >"$BD_T/w3" 2>&1 &
w3=$!
bd_own_pid "$w3"
wait_for 10 has_event "$BD_T/w3" "$P" state:ready:agent
bd_snapshot "$P"
hpid=$(rec_get "$P" PID)
[ -n "$hpid" ] && kill -KILL "$hpid"
wait "$w3"
t_is "$?" 0 "watch --until stopped returns when the helper is killed"
t_match "$(tail -n 1 "$BD_T/w3")" '"status": "failed", "reason": "the helper \(pid [0-9]+\) is gone' \
        "... reporting the desktop failed, and why"
t_ok "a new start reaps what the killed helper left and succeeds" bd_start "$P"
t_ok "... and stops" bd_stop "$P"

# ---- every profile, one created later ---------------------------------------------------------

"$BOTDESK" watch --json >"$BD_T/w4" 2>&1 &
w4=$!
bd_own_pid "$w4"
t_ok "watching every profile starts with the known one" wait_for 10 has_event "$BD_T/w4" "$P" state:stopped:agent
t_ok "a profile started later is picked up" bd_start "$Q"
t_ok "... up to its ready line" wait_for 10 has_event "$BD_T/w4" "$Q" status:ready:agent
kill "$w4" 2>/dev/null
wait "$w4" 2>/dev/null
t_ok "it stops" bd_stop "$Q"

"$BOTDESK" watch "$P" --until later >/dev/null 2>&1
t_is "$?" 2 "an unknown --until is exit 2"
t_done
