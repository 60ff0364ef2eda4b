#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The agent does not read what a human copied during their hold. A human
# takes control and copies a secret in the desktop (xclip owns CLIPBOARD and
# PRIMARY with it), then hands back: at once, `botdesk clipboard P get`
# and MCP's clipboard_read give empty text, not the secret; PRIMARY read in
# the desktop is empty too, and both xclips lost their selections (they
# exit). The agent's own clipboard set works after the hand-back, and
# what the agent put there before a hold in which nobody copied is still
# there after it. Band 395.
. "$(dirname "$0")/lib.sh"
bd_init hbc 395
bd_need_xserver
bd_need xclip
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config
P=$(bd_profile a)

json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
lease() { timeout 20 "$BOTDESK" lease "$P" "$@"; }
clip_get() { timeout 20 "$BOTDESK" clipboard "$P" get 2>>"$BD_T/out/clip.err"; }
clip_set() { printf '%s' "$1" | timeout 20 "$BOTDESK" clipboard "$P" set 2>>"$BD_T/out/clip.err"; }
# mcp_read: clipboard_read's result text, over MCP's raw protocol.
mcp_read() {
        bd_mcp_call "$P" clipboard_read '{}' | "$PY" -c '
import json, sys
r = json.load(sys.stdin)
print(repr((r.get("isError", False), r["content"][0]["text"])))'
}
# xclip_own SELECTION FILE: xclip owns SELECTION with FILE's text in the foreground (its pid in XCLIP_PIDS)
# until another client takes the selection; waits (5 s) until it answers with that text.
XCLIP_PIDS=()
xclip_own() {
        xclip -quiet -selection "$1" -i "$2" >/dev/null 2>&1 &
        XCLIP_PIDS+=($!)
        bd_own_pid $!
        wait_for 5 answers "$1" "$(cat "$2")"
}
answers() { [ "$(timeout 2 xclip -selection "$1" -o 2>/dev/null)" = "$2" ]; }
xclip_read() { timeout 10 xclip -selection "$1" -o 2>/dev/null; }
all_gone() { local p; for p in "${XCLIP_PIDS[@]}"; do ! kill -0 "$p" 2>/dev/null || return 1; done; }

t_ok "the desktop starts" bd_start "$P" || t_diag "$(bd_err "$P")"
eval "$("$BOTDESK" env "$P" | grep -E '^export (DISPLAY|XAUTHORITY)=')"

t_ok "the agent sets its clipboard" clip_set "agent's own"
lease take --viewer h0 >/dev/null && lease release --viewer h0 >/dev/null
t_is "$(clip_get)" "agent's own" "after a hold in which nobody copied, the agent's content is still there"

# ---- the human copies during a hold; the agent reads after the hand-back ------------------------
printf 'hunter2 from the human' >"$BD_T/secret"
lease take --viewer h1 >/dev/null
t_ok "as the human, xclip owns CLIPBOARD with a secret (waited up to 5 s)" xclip_own clipboard "$BD_T/secret"
t_ok "... and PRIMARY (waited up to 5 s)" xclip_own primary "$BD_T/secret"
lease release --viewer h1 >/dev/null
out=$(clip_get)
t_is "$?" 0 "right after the hand-back, botdesk clipboard get succeeds"
t_is "$out" "" "... and reads empty text, not the human's secret"
t_is "$(mcp_read)" "(False, '')" "MCP's clipboard_read reads empty text too"
t_is "$(xclip_read primary)" "" "PRIMARY read in the desktop is empty"
t_ok "both xclips lost their selections and exited (waited up to 5 s)" wait_for 5 all_gone

# ---- the agent's own clipboard after the hand-back --------------------------------------------
t_ok "the agent sets its clipboard after the hand-back" clip_set "agent's after"
t_is "$(clip_get)" "agent's after" "... and reads it back"
t_is "$(xclip_read clipboard)" "agent's after" "... and the desktop's applications paste it"
t_ok "no log holds the secret" eval '! grep -rqs "hunter2" "$BD_T" --include="*.log" --include="log*"'

t_done
