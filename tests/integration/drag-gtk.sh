#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A drag is one a toolkit takes for a drag: GTK's drag-and-drop between two
# widgets of a real GTK application (dnd-app.py) completes when the drag
# comes from `botdesk input P drag` and from MCP's left_click_drag. A
# toolkit starts its drag from the press and the first motions it has
# read, then negotiates with the target (XDND) while the pointer moves: a
# press, every motion and the release sent at once end before the drag has
# begun, and nothing is dropped. Band 785, once: what varies is the
# toolkit, not the caller.
. "$(dirname "$0")/lib.sh"
bd_init drag 785 once
bd_need_xserver
[ -n "$PY" ] && "$PY" -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
        t_skip_all "python3-gi and gir1.2-gtk-3.0 not installed"
bd_config
P=$(bd_profile a)
OUT=$BD_T/dnd.out
TITLE=botdesk-dnd-$$
t_ok "the desktop starts" bd_start "$P"
: >"$OUT"
"$BOTDESK" exec "$P" -- "$PY" "$BD_SOURCE_DIR/tests/integration/dnd-app.py" "$TITLE" "$OUT" >"$BD_T/out/app.out" 2>&1 &
APP=$!
bd_own_pid "$APP"
t_ok "the GTK application says where its source and target are (waited at most 20 s)" \
        wait_for 20 grep -q '^ready ' "$OUT" || t_diag "$(cat "$BD_T/out/app.out")"
read -r _ SX SY TX TY < <(grep '^ready ' "$OUT")
json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
drops() { grep -c '^dropped botdesk-dnd$' "$OUT"; }

t0=$(date +%s%N)
"$BOTDESK" input "$P" drag "$SX" "$SY" "$TX" "$TY" >"$BD_T/in.out" 2>&1
t_is "$?" 0 "botdesk input drag from the source to the target exits 0 (took $((($(date +%s%N) - t0) / 1000000)) ms)"
t_ok "... and GTK drops the source's text on the target (waited at most 10 s)" wait_for 10 eval '[ "$(drops)" -ge 1 ]' ||
        t_diag "$(cat "$OUT" "$BD_T/in.out" "$BD_T/out/app.out")"

bd_mcp_call "$P" left_click_drag "{\"start_coordinate\": [$SX, $SY], \"coordinate\": [$TX, $TY]}" >"$BD_T/mcp.out"
t_is "$(json_get 'd.get("isError", False)' <"$BD_T/mcp.out" 2>&1)" False "MCP's left_click_drag from the source to the target" ||
        t_diag "$(head -c 400 "$BD_T/mcp.out"; cat "$BD_T/out/mcp.err")"
t_ok "... and GTK drops again (waited at most 10 s)" wait_for 10 eval '[ "$(drops)" -ge 2 ]' ||
        t_diag "$(cat "$OUT" "$BD_T/out/app.out")"
t_is "$(drops)" 2 "two drags, two drops: no drag dropped twice"

kill "$APP" 2>/dev/null
wait "$APP" 2>/dev/null
t_done
