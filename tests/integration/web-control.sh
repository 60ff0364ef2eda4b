#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk web's contract with a gateway's client, over raw WebSockets
# (web_client.py; the browser's half is web-takeover.sh):
#  - close codes a client can switch on: a refused upgrade is answered with
#    101 and a close frame at once (4401 a bad, reused or missing ticket,
#    4403 another Origin, 4001 a desktop that is not running: web.sh),
#    1003 for a text frame or an unparsable RFB stream, while a request
#    that is no upgrade keeps its HTTP status; tickets live 30 s by
#    default; none is minted for a desktop that is not running (web
#    ticket and browser endpoint exit 4);
#  - a takeover is private: when a human takes control (through the lease
#    file, or a web viewer's Take over), every other web stream is closed
#    with 4000 "control-taken" within 0.5 s, and their reconnects are
#    refused until the hand-back; a viewer of `botdesk rfb` beside them is
#    closed as fast (exit 3, a line on stderr) and refused as long; many
#    watch while the agent holds control;
#  - only a clean close by the holder (1000, 1001) hands back, after
#    [web] reconnect_grace_ms, and a stream of the same viewer within it
#    keeps the hold; a close without a code (1005), a drop (1006) and a
#    stopped botdesk web keep it, until no stream of the viewer has been
#    open for [web] orphan_release_s: then control returns to the agent,
#    and the lease and `botdesk watch` say "viewer gone". A stopped web
#    server's deadline is honoured by the desktop's helper.
# Band 260-264, main variant only: who runs it changes nothing here.
. "$(dirname "$0")/lib.sh"
bd_init wc 260 once
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"

CLIENT=$BD_LIB_DIR/web_client.py
O=$BD_T/out
bd_config
ORPHAN_S=2
# Long enough for this script to reconnect on a slow machine (a browser takes less).
GRACE_MS=5000
printf '[web]\norphan_release_s = %s\nreconnect_grace_ms = %s\n' "$ORPHAN_S" "$GRACE_MS" >>"$BOTDESK_CONFIG"
P=$(bd_profile a)

bd_start "$P"
rc=$?
t_is "$rc" 0 "desktop $P starts"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }

SOCK=$BD_T/web.sock
web_start web "$BOTDESK" web --listen "unix:$SOCK"
t_is "$?" 0 "botdesk web listens on a Unix socket"
WEB_A=$WEB_PID

ticket() { "$BOTDESK" web ticket "${2:-$P}" --viewer "$1" 2>>"$O/ticket.err"; }
query() { local t; t=$(ticket "$@") && printf '%s' "${t#*\?}"; }
client() { timeout 60 "$PY" "$CLIENT" "$@" 2>&1; }
code() { client upgrade "unix:$SOCK" "$@" --then code; }
# The lease as "holder epoch reason".
lease() {
        "$BOTDESK" lease "$P" --json | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
d = d.get("lease", d)
print(d["holder"], d["epoch"], d.get("reason") or "-")'
}
holder_is() { [ "$(lease | cut -d' ' -f1)" = "$1" ]; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# A stream of viewer $2 that stays open: greeted, then left as hold-then:$3
# says once its fifo closes. Sets HOLD_PID and opens fd 7 on the fifo.
hold_open() {
        local name=$1 viewer=$2 how=$3 i
        mkfifo "$O/$name.fifo"
        client upgrade "unix:$SOCK" "/$P/websockify?$(query "$viewer")" --then "hold-then:$how" \
                <"$O/$name.fifo" >"$O/$name.txt" &
        HOLD_PID=$!
        bd_own_pid "$HOLD_PID"
        exec 7>"$O/$name.fifo"
        for i in $(seq 100); do grep -q '^held' "$O/$name.txt" && return 0; sleep 0.1; done
        t_diag "waited 10 s for the stream $name to be greeted:" "$(cat "$O/$name.txt")"
        return 1
}
hold_leave() { exec 7>&-; wait "$HOLD_PID"; }

# ---- close codes ----------------------------------------------------------------------------------

t_is "$(code "/$P/websockify")" 4401 "an upgrade without a ticket is refused with close 4401"
t_is "$(code "/$P/websockify?ticket=$(printf '%064d' 0)")" 4401 "a made-up ticket: 4401"
Q1=$(query bob)
t_is "$(code "/$P/websockify?$Q1")" open "a fresh ticket opens a stream"
t_is "$(code "/$P/websockify?$Q1")" 4401 "the same ticket again: 4401"
t_is "$(code "/$P/websockify?$(query bob)" --header "Origin: http://evil.example")" 4403 \
        "an upgrade from another origin: 4403"
S=$(bd_profile stopped)
TICKETS=$(dirname "$(bd_rt "$P")")/web-tickets
n0=$(ls -A "$TICKETS" | wc -l)
"$BOTDESK" web ticket "$S" --viewer bob >"$O/stopped.out" 2>"$O/stopped.err"
t_is "$?" 4 "no ticket for a desktop that is not running: web ticket exits 4"
t_match "$(cat "$O/stopped.err")" "Desktop $S is not running; start it with: botdesk start $S" "... saying it is not running"
t_is "$(wc -c <"$O/stopped.out" | tr -d ' ')$(ls -A "$TICKETS" | wc -l)" "0$n0" "... and mints nothing: no URL, no ticket stored"
"$BOTDESK" browser "$S" endpoint --json >"$O/stopped.out" 2>"$O/stopped.err"
t_is "$?" 4 "browser endpoint of a desktop that is not running exits 4"
t_is "$("$PY" -c 'import json,sys; print(json.load(sys.stdin)["error"]["code"])' <"$O/stopped.out") $(ls -A "$TICKETS" | wc -l)" \
        "not_running $n0" "... and mints nothing either: --json's answer is the error object, no ticket stored"
t_is "$(client http "unix:$SOCK" GET "/$P/?$Q1" | head -n1)" 403 "a request that is no upgrade keeps its HTTP status (403)"
t_is "$(client http "unix:$SOCK" POST "/$P/take" | head -n1)" 401 "and a take without a session gets 401"
out=$(client upgrade "unix:$SOCK" "/$P/websockify?$(query bob)" --then text)
t_match "$(tail -n1 <<<"$out")" '^1003 ' "a text frame closes the stream with 1003"
out=$(client upgrade "unix:$SOCK" "/$P/websockify?$(query bob)" --then badrfb)
t_match "$(tail -n1 <<<"$out")" '^1003 ' "an unparsable RFB stream closes it with 1003 ($(tail -n1 <<<"$out"))"

ticket bob >/dev/null
newest=$(ls -t "$XDG_RUNTIME_DIR/botdesk/web-tickets" | head -n1)
exp=$(sed -n 's/^EXPIRES=//p' "$XDG_RUNTIME_DIR/botdesk/web-tickets/$newest")
left=$(( (exp / 1000 - $(now_ms)) / 1000 ))
if [ "$left" -ge 25 ] && [ "$left" -le 30 ]; then t_pass "a ticket is valid 30 s by default ($left s left)"
else t_fail "a ticket is valid 30 s by default" "$left s left"; fi

# ---- a takeover is private ----------------------------------------------------------------------

for v in bob carol; do
        client upgrade "unix:$SOCK" "/$P/websockify?$(query "$v")" --then wait-close-at >"$O/watch-$v.txt" &
        bd_own_pid $!
        eval "W_$v=\$!"
done
# And a viewer of botdesk rfb, as a gateway's RFB client would be.
timeout 60 "$PY" "$BD_LIB_DIR/rfbclient.py" "$BOTDESK" "$P" erin wait-close:20 >"$O/rfb-erin.txt" 2>"$O/rfb-erin.err" &
bd_own_pid $!
W_erin=$!
hold_open alice alice drop
ok=1
for v in bob carol; do wait_for 10 grep -q '^greet' "$O/watch-$v.txt" || ok=0; done
wait_for 10 grep -q '^init' "$O/rfb-erin.txt" || ok=0
t_is "$ok" 1 "while the agent holds control, two web viewers, a web holder-to-be and a botdesk rfb viewer watch at once"
t0=$(date +%s%N)
"$BOTDESK" lease "$P" take --viewer alice >/dev/null
wait "$W_bob" "$W_carol" "$W_erin"
at=$(sed -n 's/^closed-at //p' "$O/rfb-erin.txt")
dt=$(( (${at:-0} - t0) / 1000000 ))
if [ -n "$at" ] && [ "$dt" -lt 500 ]; then t_pass "the same take closes the botdesk rfb viewer's stream within 0.5 s ($dt ms)"
else t_fail "the same take closes the botdesk rfb viewer's stream within 0.5 s" "$(cat "$O/rfb-erin.txt")"; fi
t_is "$(tail -n1 "$O/rfb-erin.txt")" "exit 3" "... botdesk rfb exits 3"
t_match "$(cat "$O/rfb-erin.err")" "control" "... saying on stderr that control was taken"
out=$(timeout 30 "$PY" "$BD_LIB_DIR/rfbclient.py" "$BOTDESK" "$P" erin 2>/dev/null)
if ! grep -q '^init' <<<"$out" && [ "$(tail -n1 <<<"$out")" = "exit 3" ]; then
        t_pass "a botdesk rfb reconnect is refused (exit 3) before the screen's first byte until the hand-back"
else t_fail "a botdesk rfb reconnect is refused before the screen's first byte until the hand-back" "$out"; fi
for v in bob carol; do
        t_is "$(grep '^close' "$O/watch-$v.txt")" "close 4000 control-taken" \
                "a take through the lease file closes $v's stream with 4000 \"control-taken\""
        at=$(sed -n 's/^at //p' "$O/watch-$v.txt")
        dt=$(( (${at:-0} - t0) / 1000000 ))
        if [ -n "$at" ] && [ "$dt" -lt 500 ]; then t_pass "within 0.5 s ($dt ms)"; else t_fail "within 0.5 s" "$dt ms"; fi
done
t_ok "the holder's own stream stays open" proc_alive "$HOLD_PID"
t_is "$(code "/$P/websockify?$(query bob)")" 4000 "a reconnect by another viewer is refused with 4000 until the hand-back"
t_is "$(code "/$P/websockify?$(query alice)")" open "the holder may open another stream"

# A web viewer's Take over evicts the holder of the moment just the same.
out=$(client http "unix:$SOCK" GET "/$P/?$(query dave)")
COOKIE=$(sed -n 's/^Set-Cookie: \(botdesk_session=[0-9a-f]*\);.*/\1/p' <<<"$out")
t_is "$(client http "unix:$SOCK" POST "/$P/take" "$COOKIE" | head -n1)" 200 "dave takes over through the page's button"
hold_leave
t_match "$(cat "$O/alice.txt")" 'dropped' "alice's stream is closed on her side too"
t_is "$(lease | cut -d' ' -f1,3-)" "human botdesk web" "dave holds control"
t_is "$(code "/$P/websockify?$(query alice)")" 4000 "now alice's reconnect is refused (4000)"
t_is "$(client http "unix:$SOCK" POST "/$P/release" "$COOKIE" | head -n1)" 200 "dave hands back"
t_is "$(code "/$P/websockify?$(query bob)")" open "after the hand-back anyone watches again"
out=$(timeout 30 "$PY" "$BD_LIB_DIR/rfbclient.py" "$BOTDESK" "$P" erin 2>&1)
t_match "$out" "^init " "... botdesk rfb's viewer too"

# ---- which closes hand back ---------------------------------------------------------------------

# A close without a code, then a drop: the hold outlives them, until the orphan deadline.
for how in 1005 drop; do
        "$BOTDESK" lease "$P" take --viewer alice >/dev/null
        timeout 60 "$BOTDESK" watch "$P" --json --until agent >"$O/watch-$how.json" 2>&1 &
        WATCH=$!
        bd_own_pid "$WATCH"
        hold_open "a-$how" alice "$how"
        t_gone=$(now_ms)
        hold_leave
        sleep 1
        t_ok "a $how close of the holder's last stream keeps the hold (1 s later)" holder_is human
        wait_for 10 holder_is agent
        dt=$(( $(now_ms) - t_gone ))
        t_is "$(lease | cut -d' ' -f1,3-)" "agent viewer gone" \
                "with no stream of the holder for orphan_release_s = $ORPHAN_S, control returns to the agent: \"viewer gone\""
        if [ "$dt" -ge $((ORPHAN_S * 1000 - 100)) ] && [ "$dt" -lt $((ORPHAN_S * 1000 + 4000)) ]; then
                t_pass "after about $ORPHAN_S s ($dt ms)"
        else
                t_fail "after about $ORPHAN_S s" "$dt ms"
        fi
        wait "$WATCH"
        t_match "$(tail -n1 "$O/watch-$how.json")" '"reason": ?"viewer gone"' "botdesk watch names the reason"
done

# A clean close hands back after the grace; a stream of the viewer within it keeps the hold.
"$BOTDESK" lease "$P" take --viewer alice >/dev/null
hold_open a-1000 alice 1000
t_gone=$(now_ms)
hold_leave
t_ok "a clean close (1000) does not hand back at once" holder_is human
wait_for 10 holder_is agent
dt=$(( $(now_ms) - t_gone ))
t_is "$(lease | cut -d' ' -f1,3-)" "agent viewer left" "it hands back after the grace: \"viewer left\""
if [ "$dt" -ge $((GRACE_MS - 100)) ] && [ "$dt" -lt $((GRACE_MS + 3000)) ]; then t_pass "after about $GRACE_MS ms ($dt ms)"
else t_fail "after about $GRACE_MS ms" "$dt ms"; fi

"$BOTDESK" lease "$P" take --viewer alice >/dev/null
E0=$(lease | cut -d' ' -f2)
hold_open a-1001 alice 1001
hold_leave
t_match "$(cat "$O/a-1001.txt")" 'echo 1001' "a 1001 close is echoed"
hold_open a-back alice drop
sleep $(( (GRACE_MS + 999) / 1000 + 1 ))
t_is "$(lease | cut -d' ' -f1,2)" "human $E0" "the same viewer back within the grace keeps the hold (the same epoch, past the grace)"
holder_is human || t_diag "$(tail -n 12 "$O/web.err")" "$(grep -i "viewer\|deadline|hold" "$(bd_rt "$P")/helper.log" | tail -n 8)"
t_ok "and no deadline is left recorded" test ! -e "$(bd_rt "$P")/lease-deadline"

# ---- botdesk web stops under the holder ---------------------------------------------------------

t_gone=$(now_ms)
kill -TERM "$WEB_A"
t_ok "botdesk web, told to stop (SIGTERM) under the holder's open stream, records the deadline beside the lease" \
        wait_for 1 test -s "$(bd_rt "$P")/lease-deadline"
t_ok "the hold outlives the server's stop at first" holder_is human
# The stream answers no close frame: the server sees it go when it drops.
hold_leave
wait "$WEB_A"
rc=$?
t_is "$rc" 0 "botdesk web exits 0"
[ "$rc" = 0 ] || t_diag "$(tail -n 40 "$O/web.err")"
wait_for 10 holder_is agent
dt=$(( $(now_ms) - t_gone ))
t_is "$(lease | cut -d' ' -f1,3-)" "agent viewer gone" \
        "with no web server left, the desktop's helper hands back at the deadline ($dt ms)"
t_ok "and removes the deadline" test ! -e "$(bd_rt "$P")/lease-deadline"
# A failure above may leave a human's hold, which a plain stop at the cleanup refuses.
holder_is agent || "$BOTDESK" stop "$P" --force >/dev/null 2>&1

t_done
