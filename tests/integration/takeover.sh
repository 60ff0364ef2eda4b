#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A human's takeover on a real desktop. The epoch pin: every agent action
# (input, windows, cursor, thumbnail, exec, clipboard, act, and the MCP
# tools' "epoch") pinned with --epoch N runs while the lease is at epoch N
# and is refused (exit 3, {"suppressed": "epoch_moved"} with --json, nothing
# reaches the screen) once a take and a release moved it, although the
# agent holds control again; an --epoch that is not a number is a usage
# error (exit 2). Bands 270-274 (user run 370-374).
. "$(dirname "$0")/lib.sh"
bd_init tko 270
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config
P=$(bd_profile a)
RT=$(bd_rt "$P")

json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
lease() { timeout 20 "$BOTDESK" lease "$P" "$@"; }
epoch() { lease show --json | json_get 'd["epoch"]'; }
bd() { timeout 30 "$BOTDESK" "$@"; }
pointer() { bd cursor "$P"; }

bd_start "$P"
rc=$?
t_is "$rc" 0 "the desktop starts" || true
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }

# ---- the epoch pin ----------------------------------------------------------------------------
E0=$(epoch)
t_ok "input move --epoch $E0 (the lease's epoch) runs" bd input "$P" move 11 12 --epoch "$E0"
t_is "$(pointer)" "11 12" "... and moves the pointer"
t_is "$(bd cursor "$P" --json --epoch="$E0" | json_get '(d["x"], d["epoch"])')" "(11, $E0)" \
        "cursor --epoch=$E0 runs and reports that epoch"
t_ok "exec --epoch $E0 runs its command" bd exec "$P" --epoch "$E0" -- touch "$BD_T/exec-pinned"
t_ok "... (it ran)" test -e "$BD_T/exec-pinned"

for bad in abc -1 1.5 "" 9007199254740992; do
        bd input "$P" move 1 1 --epoch "$bad" >/dev/null 2>"$BD_T/out/bad.err"
        t_is "$?" 2 "input --epoch '$bad' is a usage error (exit 2)"
done
t_match "$(cat "$BD_T/out/bad.err")" "Invalid --epoch" "... saying the epoch is invalid"
bd exec "$P" --epoch x -- touch "$BD_T/exec-bad" 2>/dev/null
t_is "$?" 2 "exec --epoch x is a usage error (exit 2)"
t_ok "... and its command did not run" test ! -e "$BD_T/exec-bad"
t_is "$(pointer)" "11 12" "no action with a bad --epoch reached the screen"

lease take --viewer human-1 >/dev/null && lease release --viewer human-1 >/dev/null
E1=$(epoch)
t_is "$(lease show --json | json_get 'd["holder"]')" agent "after a take and a release the agent holds control again"
t_isnt "$E1" "$E0" "... at a new epoch ($E1)"

moved() { # DESC CMD...: refused for the epoch
        local desc=$1 rc
        shift
        "$@" >"$BD_T/out/moved.out" 2>"$BD_T/out/moved.err" </dev/null
        rc=$?
        t_is "$rc" 3 "$desc pinned to the old epoch is refused (exit 3) though the agent holds control"
        grep -q "changed since the lease epoch $E0" "$BD_T/out/moved.err" ||
                t_fail "$desc: the refusal says the epoch moved" "$(cat "$BD_T/out/moved.err")"
}
moved "input move --json" bd input "$P" move 200 201 --json --epoch "$E0"
t_is "$(json_get '(d["suppressed"], d["epoch"], d["action"])' <"$BD_T/out/moved.out")" "('epoch_moved', $E1, 'input move')" \
        "... with {\"suppressed\": \"epoch_moved\"} and the current epoch on stdout"
moved "input type" bd input "$P" type --epoch "$E0" hello
moved "cursor" bd cursor "$P" --json --epoch "$E0"
t_is "$(json_get 'd["suppressed"]' <"$BD_T/out/moved.out")" epoch_moved "... cursor --json says epoch_moved"
moved "windows" bd windows "$P" --epoch "$E0"
moved "exec" bd exec "$P" --epoch "$E0" -- touch "$BD_T/exec-moved"
t_ok "... and exec did not run its command" test ! -e "$BD_T/exec-moved"
moved "clipboard get" bd clipboard "$P" get --epoch "$E0"
if bd thumbnail --help >/dev/null 2>&1; then
        moved "thumbnail" bd thumbnail "$P" -o "$BD_T/shot.png" --epoch "$E0"
        t_ok "... and no thumbnail was written" test ! -e "$BD_T/shot.png"
fi
t_is "$(pointer)" "11 12" "no action pinned to the old epoch reached the screen"
t_ok "the same action pinned to the new epoch runs" bd input "$P" move 21 22 --epoch "$E1"
t_is "$(pointer)" "21 22" "... and moves the pointer"

# act: every line of the session is held to its --epoch.
out=$(echo '{"action": "mouse_move", "coordinate": [300, 301]}' | bd act "$P" --epoch "$E0" 2>/dev/null)
t_is "$(json_get '(d["ok"], d["suppressed"])' <<<"$out")" "(False, 'epoch_moved')" \
        "act --epoch $E0: the action is refused, suppressed epoch_moved"
# MCP: the tools' "epoch" (a call's own pin), on the raw protocol.
mcp_lines() {
        printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}' \
                '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
        local id=2 args
        for args in "$@"; do
                printf '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "computer", "arguments": %s}}\n' \
                        "$id" "$args"
                id=$((id + 1))
        done
}
mcp_lines "{\"action\": \"mouse_move\", \"coordinate\": [310, 311], \"epoch\": $E0}" \
        "{\"action\": \"cursor_position\", \"epoch\": \"$E1\"}" \
        "{\"action\": \"cursor_position\", \"epoch\": $E1}" |
        bd mcp "$P" >"$BD_T/out/mcp.out" 2>"$BD_T/out/mcp.err"
result() { # ID EXPR on the text of the result of request ID
        "$PY" -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("id") == int(sys.argv[2]):
        r = m["result"]
        t = r["content"][0]["text"]
        try:
            t = json.loads(t)
        except ValueError:
            pass
        print(eval(sys.argv[3], {}, {"r": r, "t": t}))' "$BD_T/out/mcp.out" "$1" "$2"
}
t_is "$(result 2 '(r.get("isError"), t["suppressed"], t["epoch"])')" "(True, 'epoch_moved', $E1)" \
        "MCP computer with epoch $E0 is an error result: suppressed epoch_moved, with the current epoch"
t_match "$(result 3 '(r.get("isError"), t)')" "^\(True, 'epoch must be" "MCP epoch \"$E1\" (a string) is an error result saying what epoch takes"
t_is "$(result 4 '(bool(r.get("isError")), t["ok"])')" "(False, True)" "MCP computer with epoch $E1 runs"
t_is "$(pointer)" "21 22" "no MCP call pinned to the old epoch reached the screen"

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
t_done
