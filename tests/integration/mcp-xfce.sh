#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk mcp driving a real Xfce desktop (xfwm4, xfce4-panel, xfdesktop)
# through the official MCP SDK's client (mcp-client.cjs xfce), screenshots
# scaled to 800 px of a 1024 px screen: every action of both schemas, once,
# is a non-error result, and each that sends input says how the screen
# settled; they reach real GTK applications: a GTK entry (caret-entry.py)
# receives exact Unicode typing from both schemas' type; a right click on
# the bare desktop opens xfdesktop's menu and the key Escape closes it;
# screenshots decode to the advertised size, zoom to its region's; windows
# lists the entry's window.
# The clipboard's edges against a third-party X client (xclip): a PNG both
# ways byte-exact; a text of exactly [agent] clipboard_max_bytes (its
# default, 1 MiB) both ways, xclip's way in pieces (INCR, ICCCM 2.7.2, which
# xclip uses beyond a quarter of the server's request size) and from a GTK
# application's copy (GTK's pieces: 256 KiB at most); one byte more
# refused either way, naming the setting (set leaving the clipboard
# unchanged, get printing nothing); and the setting's top (4 MiB) fits one
# X request, as the helper's owner, which serves in one piece, needs.
# Band 445-449, once: the variants start the same Xfce desktop.
. "$(dirname "$0")/lib.sh"
bd_init mcpx 445 once
bd_need_xserver
bd_need node xfwm4 xfce4-panel xfdesktop xfsettingsd xwininfo xprop xdpyinfo xclip cmp
[ -n "$PY" ] && "$PY" -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
        t_skip_all "python3-gi and gir1.2-gtk-3.0 not installed"
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
[ -d "$SDK_DIR/node_modules/@modelcontextprotocol/sdk" ] ||
        t_skip_all "the MCP SDK is not in $SDK_DIR (scripts/install-deps.sh --tests installs it)"
bd_config desktop=xfce timeout=60
printf '[agent]\nscreenshot_max_edge = 800\n' >>"$BOTDESK_CONFIG"
P=$(bd_profile a)
json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
step() { grep "\"step\": *\"$1\"" "$BD_T/steps" | head -n1; }
get() { step "$1" | json_get "$2"; }

t_ok "the Xfce desktop starts" bd_start "$P" || t_diag "$(bd_err "$P")"
eval "$("$BOTDESK" env "$P")"
export DISPLAY XAUTHORITY

# The GTK entry, placed by xfwm4: its centre is where the agent aims.
: >"$BD_T/entry.out"
"$BOTDESK" exec "$P" -- "$PY" "$(dirname "$0")/caret-entry.py" >"$BD_T/entry.out" 2>"$BD_T/entry.err" &
entry=$!
bd_own_pid "$entry"
t_ok "the GTK entry is shown (waited up to 20 s for its ready)" wait_for 20 grep -qx ready "$BD_T/entry.out" ||
        t_diag "$(cat "$BD_T/entry.err")"
entry_geometry() {
        "$BOTDESK" windows "$P" --json 2>/dev/null | json_get \
                '[(w["x"] + w["width"] // 2, w["y"] + w["height"] // 2) for w in d["windows"] if w["title"] == "caret-entry"][0]' \
                2>/dev/null | tr -d '( )'
}
t_ok "xfwm4 manages the entry's window: botdesk windows lists it (waited up to 10 s)" \
        wait_for 10 eval '[ -n "$(entry_geometry)" ]'
export MCP_ENTRY MCP_DESK=760,560
MCP_ENTRY=$(entry_geometry)
t_diag "the entry's centre: $MCP_ENTRY; the bare desktop's point: $MCP_DESK"

# The probe the client runs between the right click and Escape: a viewable
# override-redirect popup menu on the root window, waited for (5 s) to show or to go.
cat >"$BD_T/probe" <<'EOF'
menus() {
        local w
        for w in $(xwininfo -root -children | awk '$1 ~ /^0x/ { print $1 }'); do
                xwininfo -id "$w" 2>/dev/null | grep -q 'Map State: IsViewable' || continue
                xprop -id "$w" _NET_WM_WINDOW_TYPE 2>/dev/null | grep -q _NET_WM_WINDOW_TYPE_POPUP_MENU && echo "$w"
        done
}
for i in $(seq 50); do
        m=$(menus)
        if [ "$1" = open ] && [ -n "$m" ]; then echo "open: $m"; exit 0; fi
        if [ "$1" = closed ] && [ -z "$m" ]; then echo closed; exit 0; fi
        sleep 0.1
done
echo "still $([ -n "$m" ] && echo "open: $m" || echo closed) after 5 s"
EOF
export MCP_PROBE=$BD_T/probe MCP_TEXT='Grüße, мир! 日本語 😀 ok'

t0=$(date +%s)
timeout 120 node "$(dirname "$0")/mcp-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" xfce >"$BD_T/steps" 2>"$BD_T/client.err"
rc=$?
t_is "$rc" 0 "the SDK's client ran every step on the Xfce desktop (exit 0)"
[ "$rc" = 0 ] || { t_diag "$(tail -5 "$BD_T/client.err")"; t_diag "$(tail -3 "$BD_T/steps")"; }
t_ok "... within 120 s (took $(($(date +%s) - t0)) s)" [ "$rc" != 124 ]

t_is "$(get every '[r["name"] for r in d["results"] if r["isError"]]')" "[]" "every action of both schemas is a non-error result"
# Those that only look (screenshot, zoom, cursor_position, wait) send nothing to settle after.
LOOK='("screenshot", "zoom", "cursor_position", "wait")'
t_is "$(get every '[r["name"] for r in d["results"] if r["name"] not in '"$LOOK"' and r["text"].get("settle") not in ("settled", "still_changing", "no_change")]')" "[]" \
        "... each one that sends input saying how the screen settled: settled, still_changing or no_change"
t_is "$(get every '[r["name"] for r in d["results"] if r["name"] in '"$LOOK"' and "settle" in r["text"]]')" "[]" \
        "... and those that only look (screenshot, zoom, cursor_position, wait) no settle, having sent nothing"
t_diag "$(get every '" ".join("%s:%s" % (r["name"], (r["text"] or {}).get("settle")) for r in d["results"])')"
t_is "$(get every '[(r["image"]["width"], r["image"]["height"]) for r in d["results"] if r["name"] == "screenshot"]')" \
        "[(800, 600), (800, 600)]" "both schemas' screenshot decode to the advertised 800x600"
t_is "$(get status '(d["text"]["screenshot"], d["text"]["screen"])')" "([800, 600], [1024, 768])" \
        "... as status advertises for the 1024x768 screen"
t_is "$(get every '[(r["image"]["width"] == z[2] - z[0] + 1, r["image"]["height"] == z[3] - z[1] + 1, abs(z[2] - z[0] - 400) <= 2)
                    for r in d["results"] if r["name"] == "zoom" for z in [r["text"]["zoom"]["screen_region"]]]')" \
        "[(True, True, True)]" "zoom on 312x46 of the screenshot gives its screen region (about 400x60) at native resolution"
t_is "$(get every '[r["text"]["coordinate"] for r in d["results"] if r["name"] == "cursor_position"][0] == [d["entry"][0] + 1, d["entry"][1] + 1]')" \
        True "cursor_position is where OpenAI's move put the pointer, in the screenshot's space"
# The entry printed its text at each change: the exact text after Anthropic's type, then é from OpenAI's.
entry_texts() { grep '^text ' "$BD_T/entry.out" | cut -d' ' -f2- | "$PY" -c '
import json, os, sys
t = [json.loads(l) for l in sys.stdin]
want = os.environ["MCP_TEXT"]
print(want in t, want + "é" in t)'; }
t_is "$(entry_texts)" "True True" "the GTK entry received the Unicode text exactly, then OpenAI's type of é after it"
[ "$(entry_texts)" = "True True" ] || t_diag "the entry's texts: $(grep '^text ' "$BD_T/entry.out" | tail -3)"
t_match "$(get windows '[w["title"] for w in d["text"]["windows"]]')" "'caret-entry'" "the windows tool lists the entry's window"
t_is "$(get batch '(d["isError"], [r["action"] for r in d["text"]["results"]])')" "(False, ['move', 'mouse_move'])" \
        "batch runs both schemas' moves in order"
t_is "$(get right_click '(d["isError"], d["text"]["settle"] in ("settled", "still_changing", "no_change"))')" "(False, True)" \
        "right_click on the bare desktop succeeds"
t_match "$(get menu_open 'd["probe"]')" '^open: 0x' "... and xfdesktop's menu opens (a viewable popup menu, waited up to 5 s)"
t_is "$(get escape 'd["isError"]')" False "the key Escape succeeds"
t_is "$(get menu_closed 'd["probe"]')" closed "... and closes the menu (waited up to 5 s)"
kill "$entry" 2>/dev/null; wait "$entry" 2>/dev/null

# ---- the clipboard's edges, against xclip ----------------------------------------------------------
# mkpng FILE SIDE: a SIDE x SIDE RGB PNG of random pixels (as large as it looks: it does not compress).
mkpng() {
        "$PY" - "$1" "$2" <<'EOF'
import os, struct, sys, zlib
w = int(sys.argv[2])
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
raw = b"".join(b"\0" + os.urandom(3 * w) for _ in range(w))
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, w, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
EOF
}
# mktext FILE BYTES: mixed-script UTF-8 text of exactly BYTES bytes.
mktext() {
        "$PY" - "$1" "$2" <<'EOF'
import sys
n = int(sys.argv[2])
b = ("Grüße, мир! 日本語 😀 line\n" * (n // 20 + 1)).encode()[:n]
b = b.decode("utf-8", "ignore").encode()
open(sys.argv[1], "wb").write(b + b"." * (n - len(b)))
EOF
}
# xclip_in FILE TYPE: xclip owns CLIPBOARD with FILE as TYPE, in the foreground (XCLIP: its pid)
# until someone else takes the selection; waits (5 s) until xclip answers for it.
xclip_in() {
        local type=$2
        [ -z "${XCLIP:-}" ] || { kill "$XCLIP" 2>/dev/null; wait "$XCLIP" 2>/dev/null; }
        xclip -quiet -selection clipboard -t "$2" -i "$1" >/dev/null 2>&1 &
        XCLIP=$!
        bd_own_pid "$XCLIP"
        wait_for 5 eval 'timeout 2 xclip -selection clipboard -t TARGETS -o 2>/dev/null | grep -qxF "$type"'
}
xclip_out() { timeout 10 xclip -selection clipboard -t "$1" -o; }

mkpng "$BD_T/a.png" 200
"$BOTDESK" clipboard "$P" set --type image/png <"$BD_T/a.png"
t_is "$?" 0 "botdesk clipboard set --type image/png takes a $(stat -c %s "$BD_T/a.png")-byte PNG"
t_match "$(xclip_out TARGETS)" 'image/png' "... xclip sees image/png among the targets"
xclip_out image/png >"$BD_T/a.out"
t_ok "... and reads the PNG back byte for byte" cmp -s "$BD_T/a.png" "$BD_T/a.out"

mkpng "$BD_T/b.png" 160
t_ok "xclip owns the clipboard with a PNG (waited up to 5 s for it to answer)" xclip_in "$BD_T/b.png" image/png
"$BOTDESK" clipboard "$P" get --type image/png >"$BD_T/b.out"
t_is "$?" 0 "botdesk clipboard get --type image/png reads it"
t_ok "... byte for byte" cmp -s "$BD_T/b.png" "$BD_T/b.out"

# One X request's room: the setting's top (keys.c: 4194304) and ChangeProperty's header fit.
max_req=$(xdpyinfo | sed -n 's/^maximum request size: *\([0-9]*\) bytes.*/\1/p')
t_ok "the X server's maximum request ($max_req bytes, BIG-REQUESTS) holds clipboard_max_bytes' top, 4 MiB, in one request" \
        [ "${max_req:-0}" -ge $((4194304 + 64)) ]

CAP=1048576
mktext "$BD_T/cap.txt" $CAP
"$BOTDESK" clipboard "$P" set <"$BD_T/cap.txt"
t_is "$?" 0 "botdesk clipboard set takes a text of exactly clipboard_max_bytes ($CAP bytes)"
xclip_out UTF8_STRING >"$BD_T/cap.out"
t_ok "... and xclip reads it back exactly" cmp -s "$BD_T/cap.txt" "$BD_T/cap.out"
mktext "$BD_T/over.txt" $((CAP + 1))
"$BOTDESK" clipboard "$P" set <"$BD_T/over.txt" 2>"$BD_T/over.err"
t_isnt "$?" 0 "one byte more is refused"
t_match "$(cat "$BD_T/over.err")" "at most $CAP bytes: \[agent\] clipboard_max_bytes" "... with an error naming the cap and its setting"
xclip_out UTF8_STRING >"$BD_T/cap.out2"
t_ok "... and the clipboard still holds the text before it" cmp -s "$BD_T/cap.txt" "$BD_T/cap.out2"

mktext "$BD_T/incr.txt" $CAP
t_ok "xclip owns the clipboard with $CAP bytes of text (waited up to 5 s)" xclip_in "$BD_T/incr.txt" UTF8_STRING
"$BOTDESK" clipboard "$P" get >"$BD_T/incr.out" 2>"$BD_T/incr.err"
t_is "$?" 0 "botdesk clipboard get reads the $CAP bytes that xclip sends in pieces (INCR)"
[ -s "$BD_T/incr.err" ] && t_diag "$(cat "$BD_T/incr.err")"
t_ok "... exactly" cmp -s "$BD_T/incr.txt" "$BD_T/incr.out"
mktext "$BD_T/incr-over.txt" $((CAP + 1))
t_ok "xclip owns the clipboard with $((CAP + 1)) bytes of text (waited up to 5 s)" xclip_in "$BD_T/incr-over.txt" UTF8_STRING
"$BOTDESK" clipboard "$P" get >"$BD_T/incr-over.out" 2>"$BD_T/incr-over.err"
t_isnt "$?" 0 "botdesk clipboard get refuses one byte more than clipboard_max_bytes sent in pieces"
t_match "$(cat "$BD_T/incr-over.err")" "holds more than $CAP bytes \(\[agent\] clipboard_max_bytes\)" "... naming the cap and its setting"
t_is "$(stat -c %s "$BD_T/incr-over.out")" 0 "... and prints nothing of it"
kill "$XCLIP" 2>/dev/null; wait "$XCLIP" 2>/dev/null
# A GTK application's copy: GTK sends beyond 256 KiB in pieces, so 1 MiB comes in four or more.
"$BOTDESK" exec "$P" -- "$PY" -c '
import sys, gi
gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, Gtk
Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).set_text(open(sys.argv[1], encoding="utf-8").read(), -1)
print("copied", flush=True)
Gtk.main()' "$BD_T/incr.txt" >"$BD_T/gtk.out" 2>"$BD_T/gtk.err" &
gtk=$!
bd_own_pid "$gtk"
t_ok "a GTK application copies the $CAP bytes of text (waited up to 15 s)" wait_for 15 grep -qx copied "$BD_T/gtk.out" ||
        t_diag "$(cat "$BD_T/gtk.err")"
"$BOTDESK" clipboard "$P" get >"$BD_T/gtk.clip" 2>"$BD_T/gtk.clip.err"
t_is "$?" 0 "botdesk clipboard get reads them from GTK's pieces"
[ -s "$BD_T/gtk.clip.err" ] && t_diag "$(cat "$BD_T/gtk.clip.err")"
t_ok "... exactly" cmp -s "$BD_T/incr.txt" "$BD_T/gtk.clip"
kill "$gtk" 2>/dev/null; wait "$gtk" 2>/dev/null
t_done
