#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The accessibility tree of a real desktop (Xfce) with a real GTK
# application (a11y-app.py: a menu, a text entry, a password entry, a check
# box and a Save button that appends a line to a file): the tree has them
# with their roles, names, states, actions and bounds (a click through
# botdesk input at the centre of the button's bounds presses it); --find
# finds them; do set-text fills the entry and do press presses the button;
# a password's text is never printed; a stale id, an action the element
# does not offer, a --find that does not parse and an unknown window get
# their exit codes and change nothing; everything is refused under a human;
# an application that hangs costs a deadline and is marked unresponsive;
# the MCP tools a11y_tree, a11y_find and a11y_do give the same through the
# official SDK's client; a desktop with [session] accessibility = no says
# so, naming the setting.
. "$(dirname "$0")/lib.sh"
bd_init a11y 280
bd_need_xserver
bd_need xfwm4 xfce4-panel xfdesktop xfsettingsd
[ -x /usr/libexec/at-spi-bus-launcher ] || t_skip_all "at-spi2-core not installed"
[ -n "$PY" ] && "$PY" -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
        t_skip_all "python3-gi and gir1.2-gtk-3.0 not installed"
bd_config desktop=xfce timeout=60
# The agent's screenshots at half the screen (1024x768 -> 512x384): two spaces to tell apart.
printf '[agent]\nscreenshot_max_edge = 512\n' >>"$BOTDESK_CONFIG"
P=$(bd_profile a)
APP=$BD_SOURCE_DIR/tests/integration/a11y-app.py
OUT=$BD_T/saved
TITLE="botdesk a11y test"
json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
# node FIELD ROLE NAME: FIELD of the one node with that role and name in $BD_T/tree.json.
node() {
        "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = [n for n in d["nodes"] if n["role"] == sys.argv[3] and n["name"] == sys.argv[4]]
print(m[0][sys.argv[2]] if len(m) == 1 else "NOT ONE: %d" % len(m))' "$BD_T/tree.json" "$@"
}
tree() { "$BOTDESK" a11y "$P" --json >"$BD_T/tree.json" 2>"$BD_T/tree.err"; }
# within SECONDS S: CMD... until it succeeds (each try may take a while: a deadline, not a count).
within() {
        local end=$((SECONDS + $1))
        shift
        while ! "$@"; do
                [ "$SECONDS" -lt "$end" ] || return 1
                sleep 0.2
        done
}
found_save() { "$BOTDESK" a11y "$P" --find 'role=push button,name==Save' --json 2>/dev/null | grep -q '"count": 1'; }

t_ok "the Xfce desktop starts" bd_start "$P" || t_diag "$(bd_err "$P")"
: >"$OUT"
"$BOTDESK" exec "$P" -- "$PY" "$APP" "$TITLE" "$OUT" >"$BD_T/app.out" 2>&1 &
t_ok "the GTK application's Save button shows in the tree (20 s)" within 20 found_save ||
        t_diag "$("$BOTDESK" a11y "$P" 2>&1 | tail -20; cat "$BD_T/app.out")"

# ---- the tree ------------------------------------------------------------------------------------

t0=$(date +%s%N)
t_ok "a11y --json reads the tree" tree || t_diag "$(cat "$BD_T/tree.err")"
t_diag "the tree: $(json_get 'd["nodes_read"]' <"$BD_T/tree.json") nodes in $((($(date +%s%N) - t0) / 1000000)) ms"
t_is "$(node role frame "$TITLE")" frame "the application's window is a frame named by its title"
t_is "$(node role menu File)" menu "the menu is there (role menu, name File)"
t_is "$(node role 'menu item' Open)" "menu item" "... with its item Open"
t_is "$(node role text Name)" text "the entry is a text named Name"
t_match "$(node states text Name)" "'editable'" "... editable"
t_is "$(node role 'password text' Password)" "password text" "the password entry is a password text"
t_is "$(node role 'check box' 'Remember me')" "check box" "the check box is there"
t_match "$(node states 'check box' 'Remember me')" "'enabled'" "... enabled"
t_isnt "$(node states 'check box' 'Remember me' | grep -c "'checked'")" 1 "... not checked"
t_match "$(node actions 'push button' Save)" "'click'" "the button offers click"
b=$(node bounds 'push button' Save)
t_match "$b" "'width': [1-9]" "the button has bounds"
sb=$(node screenshot_bounds 'push button' Save)
t_is "$("$PY" -c 'import ast,sys; b=ast.literal_eval(sys.argv[1]); s=ast.literal_eval(sys.argv[2]); print(all(abs(s[k] - b[k] / 2) <= 1 for k in ("x", "y", "width", "height")))' "$b" "$sb")" \
        True "... and in the screenshot's space (scale 0.5): half of them, within a pixel ($sb)"
t_is "$(json_get '(d["screen"], d["screenshot"])' <"$BD_T/tree.json")" "([1024, 768], [512, 384])" \
        "the output says both sizes"
t_is "$(json_get 'd["cut"]' <"$BD_T/tree.json")" False "the tree is not cut below 2000 nodes"
"$BOTDESK" a11y "$P" --max-nodes 5 --json >"$BD_T/cut.json"
t_is "$(json_get '(d["count"], d["cut"])' <"$BD_T/cut.json")" "(5, True)" "--max-nodes 5 gives 5 nodes and says it cut"
t_match "$("$BOTDESK" a11y "$P" --max-nodes 5)" "Cut at 5 nodes" "... in words too"

# A click at the centre of the button's bounds, through botdesk input, presses it.
read -r cx cy < <(echo "$b" | "$PY" -c 'import ast,sys; b=ast.literal_eval(sys.stdin.read()); print(b["x"] + b["width"] // 2, b["y"] + b["height"] // 2)')
t_ok "input click at the button's centre runs" "$BOTDESK" input "$P" click "$cx" "$cy"
t_ok "... and pressed it (its file got a line)" wait_for 5 grep -q '^saved:' "$OUT"

# ---- find --------------------------------------------------------------------------------------

t_is "$("$BOTDESK" a11y "$P" --find 'role=push button,name==Save' --json | json_get '[n["name"] for n in d["nodes"]]')" \
        "['Save']" "--find role=push button,name==Save finds the button alone"
t_is "$("$BOTDESK" a11y "$P" --find 'role=check box,name=remember' --json | json_get 'd["count"]')" 1 \
        "--find name= matches a substring whatever its case"
t_is "$("$BOTDESK" a11y "$P" --find 'name==Sav' --json | json_get 'd["count"]')" 0 "name== is the exact name"
t_is "$("$BOTDESK" a11y "$P" --find 'role=text,state=editable,name=Name' --json | json_get 'd["count"]')" 1 \
        "--find by state"
SAVE=$("$BOTDESK" a11y "$P" --find 'role=push button,name==Save' --json | json_get 'd["nodes"][0]["id"]')
NAME=$("$BOTDESK" a11y "$P" --find 'role=text,name==Name' --json | json_get 'd["nodes"][0]["id"]')
PASS=$("$BOTDESK" a11y "$P" --find 'role=password text' --json | json_get 'd["nodes"][0]["id"]')
CHECK=$("$BOTDESK" a11y "$P" --find 'role=check box' --json | json_get 'd["nodes"][0]["id"]')
WIN=$("$BOTDESK" windows "$P" --json | json_get '[w["id"] for w in d["windows"] if w["title"] == "'"$TITLE"'"][0]')
t_match "$("$BOTDESK" a11y "$P" --window "$WIN" --find 'role=push button' --json | json_get '[n["id"] for n in d["nodes"]]')" \
        "$SAVE" "--window (an id of botdesk windows) reads that window's tree"

# ---- acting ------------------------------------------------------------------------------------

t_ok "do set-text fills the entry" "$BOTDESK" a11y "$P" do "$NAME" set-text "hello botdesk"
t_ok "do set-text on the password field" "$BOTDESK" a11y "$P" do "$PASS" set-text "s3cret-pw"
t_ok "do click checks the check box" "$BOTDESK" a11y "$P" do "$CHECK" click
: >"$OUT"
t_ok "do press presses the button (press stands in for its click)" "$BOTDESK" a11y "$P" do "$SAVE" press
t_ok "... which wrote the entry's text and the check box's state" \
        wait_for 5 grep -qx 'saved:hello botdesk:checked' "$OUT" || t_diag "$(cat "$OUT")"
tree
t_is "$(node text text Name)" "hello botdesk" "the tree gives the entry's text"
t_match "$(node states 'check box' 'Remember me')" "'checked'" "... and the check box checked"
"$BOTDESK" a11y "$P" >"$BD_T/tree.txt"
t_ok "the password's text is printed nowhere (json, text, find)" \
        bash -c "! grep -q s3cret '$BD_T/tree.json' '$BD_T/tree.txt' && ! '$BOTDESK' a11y '$P' --find 'role=password text' --json | grep -q s3cret"

# ---- bad input ---------------------------------------------------------------------------------

n=$(wc -l <"$OUT")
"$BOTDESK" a11y "$P" do "${SAVE%%:*}:999999" press 2>"$BD_T/e"
t_is "$?" 1 "a stale id is exit 1"
t_match "$(cat "$BD_T/e")" "No element" "... saying there is no such element"
"$BOTDESK" a11y "$P" do "not-an-id" press 2>/dev/null
t_is "$?" 2 "an id that does not parse is exit 2"
"$BOTDESK" a11y "$P" do "$SAVE" set-text nope 2>"$BD_T/e"
t_is "$?" 1 "an action the element does not offer is exit 1"
t_match "$(cat "$BD_T/e")" "offers no set-text" "... naming it"
"$BOTDESK" a11y "$P" --find 'colour=red' 2>"$BD_T/e"
t_is "$?" 2 "a --find that does not parse is exit 2"
"$BOTDESK" a11y "$P" --find 'state=sleepy' 2>/dev/null
t_is "$?" 2 "... as is an unknown state"
"$BOTDESK" a11y "$P" --window 0x7fffff0 2>"$BD_T/e"
t_is "$?" 1 "an unknown window is exit 1"
"$BOTDESK" a11y "$P" --window zz 2>/dev/null
t_is "$?" 2 "a window id that does not parse is exit 2"
t_is "$(wc -l <"$OUT")" "$n" "none of them pressed anything"

# ---- under a human -----------------------------------------------------------------------------

"$BOTDESK" lease "$P" take --viewer human-1 >/dev/null
"$BOTDESK" a11y "$P" do "$SAVE" press 2>"$BD_T/e"
t_is "$?" 3 "do is refused (exit 3) while a human holds the lease"
t_match "$(cat "$BD_T/e")" "A human has control" "... saying a human has control"
"$BOTDESK" a11y "$P" --json >/dev/null 2>&1
t_is "$?" 3 "reading the tree is refused too"
sleep 0.3
t_is "$(wc -l <"$OUT")" "$n" "nothing was pressed under the human"
"$BOTDESK" lease "$P" release --viewer human-1 >/dev/null
t_is "$("$BOTDESK" a11y "$P" do "$SAVE" press --json | json_get '(d["ok"], d["action"])')" "(True, 'press')" \
        "with control back, do press works again (--json says so)"

# ---- through MCP, with the official SDK's client ------------------------------------------------

SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
if command -v node >/dev/null 2>&1 && [ -d "$SDK_DIR/node_modules/@modelcontextprotocol/sdk" ]; then
        step() { grep "\"step\": *\"$1\"" "$BD_T/steps" | head -n1; }
        get() { step "$1" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$2"; }
        : >"$OUT"
        timeout 40 node "$BD_SOURCE_DIR/tests/integration/a11y-mcp-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" \
                >"$BD_T/steps" 2>"$BD_T/client.err"
        t_is "$?" 0 "the SDK's client ran every a11y step" || t_diag "$(tail -5 "$BD_T/client.err")"
        t_is "$(get tools '[(t["name"], t["schemaValid"]) for t in d["tools"]]')" \
                "[('a11y_tree', True), ('a11y_find', True), ('a11y_do', True)]" "tools/list has the three a11y tools with valid schemas"
        t_is "$(get find '(d["isError"], [n["name"] for n in d["text"]["nodes"]])')" "(False, ['Save'])" "a11y_find finds the button"
        t_match "$(get tree 'd["roles"]')" "'push button'.*|'password text'" "a11y_tree gives the tree"
        t_is "$(get press 'd["isError"]')" False "a11y_do press presses it"
        t_ok "... which wrote the text a11y_do set-text put in the entry" wait_for 5 grep -q '^saved:via mcp:' "$OUT"
        t_is "$(get stale 'd["isError"]')" True "a11y_do on a stale id is an error result"
        t_is "$(get bad_find 'd["isError"]')" True "an a11y_find that does not parse is an error result"
        t_is "$(get human '(d["isError"], d["text"]["suppressed"])')" "(True, 'human_has_control')" \
                "a11y_do under a human is refused as suppressed"
        t_is "$(grep -c '^saved:' "$OUT")" 1 "... and pressed nothing"
else
        t_skip "the a11y tools through the MCP SDK's client" "node or the MCP SDK in $SDK_DIR"
fi

# ---- an application that hangs ------------------------------------------------------------------

APP_PID=$(cat "$OUT.pid")
kill -STOP "$APP_PID"
t0=$SECONDS
timeout 20 "$BOTDESK" a11y "$P" --json >"$BD_T/hung.json" 2>"$BD_T/e"
t_is "$?" 0 "the tree of a desktop with an application that hangs is read"
t_ok "... within 10 s (each call's deadline is 1 s; took $((SECONDS - t0)) s)" [ $((SECONDS - t0)) -lt 10 ]
t_is "$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for n in d["nodes"] if n.get("unresponsive")), any(n["role"] == "frame" and n["name"] == sys.argv[2] for n in d["nodes"]))' "$BD_T/hung.json" "$TITLE")" \
        "1 False" "... where the hung application is one node, marked unresponsive"
timeout 20 "$BOTDESK" a11y "$P" do "$SAVE" press 2>"$BD_T/e"
t_is "$?" 1 "do on its element is exit 1"
t_match "$(cat "$BD_T/e")" "unresponsive" "... saying the application is unresponsive"
kill -CONT "$APP_PID"
t_ok "once it runs again its button is found again" within 10 found_save

# ---- no accessibility bus ----------------------------------------------------------------------

bd_stop "$P"
bd_config
printf '[session]\naccessibility = no\n' >>"$BOTDESK_CONFIG"
Q=$(bd_profile b)
t_ok "a desktop with accessibility = no starts" bd_start "$Q" || t_diag "$(bd_err "$Q")"
"$BOTDESK" a11y "$Q" 2>"$BD_T/e"
t_is "$?" 1 "a11y on it is exit 1"
t_match "$(cat "$BD_T/e")" "accessibility = no" "... naming the setting"
bd_stop "$Q"
t_done
