#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk act takes each vendor's computer-use output verbatim and answers
# in that vendor's shape, on a real X server with the tests' own X client
# (input-recorder, the desktop's command) recording what arrived:
#   Anthropic: toolset tool_use blocks, alone and as a turn, the 2025
#     computer tool's block, answered by tool_result blocks (ids echoed,
#     the SDK driver's acknowledgments, X=..,Y=.. for cursor_position, an
#     image block that decodes to the screen's size);
#   OpenAI: a computer_call with a batch of actions and one with a single
#     action and held keys, answered by one computer_call_output whose
#     image_url decodes, with the pending safety checks acknowledged;
#   Gemini: a model content with text and function calls on the 0-999 grid,
#     answered by the user content of functionResponse parts.
# Bad input: a turn with one coordinate outside the screenshot runs none of
# it; a block without an id, an unknown member, a browser function, a
# coordinate off the grid get their vendor's error; a bad computer_call
# prints nothing and exits 2; --vendor refuses another vendor's line. Every
# answer is checked against the vendors' own TypeScript types (tsc
# --noEmit over the SDKs pinned by install-deps.sh --tests). Band 590, once.
. "$(dirname "$0")/lib.sh"
bd_init actv 590 once
bd_need_xserver
bd_need node
bd_input_recorder
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
for pkg in @anthropic-ai/sdk openai @google/genai typescript; do
        [ -d "$SDK_DIR/node_modules/$pkg" ] ||
                t_skip_all "$pkg is not in $SDK_DIR (scripts/install-deps.sh --tests installs it)"
done
P=$(bd_profile a)

log_has() { grep -qxF -- "$1" "$LOG" 2>/dev/null; }
# text: what the recorder's window received, as Python writes a string (so that a trailing newline shows).
text() { "$PY" -c 'import sys; print(repr(open(sys.argv[1], encoding="utf-8").read()))' "$TEXT"; }
# py EXPR < JSON: EXPR of the parsed line d, printed.
py() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
# jpeg_size BASE64: WxH of the JPEG (its SOF marker), read without a decoder of ours.
jpeg_size() {
        "$PY" -c '
import base64, struct, sys
b = base64.b64decode(sys.argv[1]); i = 2
while i < len(b):
    m, n = b[i + 1], struct.unpack(">H", b[i + 2:i + 4])[0]
    if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):
        h, w = struct.unpack(">HH", b[i + 5:i + 9]); print("%dx%d" % (w, h)); break
    i += 2 + n' "$1"
}
# act ARGS... < LINES: botdesk act, its stdout in $BD_T/out.N, stderr in $BD_T/err.N (N counts calls;
# so never at the end of a pipe, which would run it in a subshell).
N=0
act() {
        N=$((N + 1))
        timeout 30 "$BOTDESK" act "$P" "$@" >"$BD_T/out.$N" 2>"$BD_T/err.$N"
}
# line N K: the K-th line of act call N's output.
line() { sed -n "${2}p" "$BD_T/out.$1"; }
# shape VAR TYPE N K: line K of act call N, its images' data cut short, as `const VAR: TYPE = ...;` for tsc.
shape() {
        line "$3" "$4" | "$PY" -c '
import json, sys
def cut(v):
    if isinstance(v, dict):
        return {k: ("AAAA" if k in ("data", "image_url") and isinstance(x, str) else cut(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [cut(x) for x in v]
    return v
print("export const %s: %s = %s;" % (sys.argv[1], sys.argv[2], json.dumps(cut(json.load(sys.stdin)))))' "$1" "$2" \
                >>"$BD_T/shapes.ts"
}
# Wire<T>: T as JSON carries it, its TypeScript enums (Gemini's Environment) as their string values.
printf '%s\n' "import type Anthropic from '@anthropic-ai/sdk';" "import type OpenAI from 'openai';" \
        "import type { Content, Part, Tool } from '@google/genai';" \
        'type Wire<T> = T extends string ? `${T}` : T extends (infer U)[] ? Wire<U>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;' \
        >"$BD_T/shapes.ts"

t_ok "the desktop with the recorder starts" bd_start "$P"
bd_recorder_files "$P"
t_ok "the recorder has mapped and focused its window (5 s)" wait_for 5 log_has ready

# ---- Anthropic ---------------------------------------------------------------------------------

tu() { printf '{"type":"tool_use","id":"%s","name":"%s","toolset_name":"computer","input":%s}' "$1" "$2" "$3"; }
{
        tu toolu_01 left_click '{"coordinate":[300,400]}'
        echo
        printf '[%s,%s,%s,%s,%s]\n' "$(tu toolu_02 mouse_move '{"coordinate":[120,130]}')" \
                "$(tu toolu_03 type '{"text":"héllo"}')" "$(tu toolu_04 key '{"text":"Tab","repeat":2}')" \
                "$(tu toolu_05 cursor_position '{}')" "$(tu toolu_06 screenshot '{}')"
        echo '{"type":"tool_use","id":"toolu_07","name":"computer","input":{"action":"left_click","coordinate":[310,410]}}'
        printf '[%s,%s]\n' "$(tu toolu_08 left_click '{"coordinate":[200,210]}')" \
                "$(tu toolu_09 left_click '{"coordinate":[5000,5000]}')"
        echo '{"type":"tool_use","name":"left_click","toolset_name":"computer","input":{}}'
        tu toolu_10 open_app '{}'
        echo
        echo '{"id":"msg_x","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"Moving."},{"type":"tool_use","id":"toolu_13","name":"bash","input":{"command":"ls"}},{"type":"tool_use","id":"toolu_14","name":"mouse_move","toolset_name":"computer","input":{"coordinate":[140,150]}}],"stop_reason":"tool_use"}'
} >"$BD_T/anthropic"
act <"$BD_T/anthropic"
t_is "$?" 0 "botdesk act answers seven Anthropic lines and exits 0" || t_diag "$(cat "$BD_T/err.$N")"
A=$N
t_is "$(line $A 1 | py '(d["type"], d["tool_use_id"], d["toolset_name"], d["content"], "is_error" in d)')" \
        "('tool_result', 'toolu_01', 'computer', [{'type': 'text', 'text': 'Clicked.'}], False)" \
        "a toolset left_click is answered by its tool_result, as the SDK's driver says it"
t_ok "... and the click reached the window at 300,400 (5 s)" \
        wait_for 5 eval 'log_has "button-press 1 300 400" && log_has "button-release 1 300 400"'
t_is "$(line $A 2 | py '[r["tool_use_id"] for r in d]')" "['toolu_02', 'toolu_03', 'toolu_04', 'toolu_05', 'toolu_06']" \
        "a turn of five blocks gets five tool_results, in order, ids echoed"
t_is "$(line $A 2 | py '[r["content"][0]["text"] for r in d[:4]]')" \
        "['Moved the mouse.', 'Typed.', 'Pressed Tab.', 'X=120,Y=130']" \
        "... mouse_move, type and key acknowledged, cursor_position as X=..,Y=.."
t_is "$(cat "$TEXT")" "$(printf 'héllo\t\t')" "... the text typed exactly, and Tab pressed twice (repeat 2)"
img=$(line $A 2 | py 'd[4]["content"][0]["source"]["data"]')
t_is "$(line $A 2 | py '(d[4]["content"][0]["type"], d[4]["content"][0]["source"]["media_type"], d[4]["content"][0]["transformations"])')" \
        "('image', 'image/jpeg', {'oversized_image': 'error'})" "... the screenshot is an image block that the API may not rescale"
t_is "$(jpeg_size "$img")" 1024x768 "... which decodes to the screen's size"
t_is "$(line $A 3 | py '(d["tool_use_id"], "toolset_name" in d, d["content"][0]["text"])')" "('toolu_07', False, 'Clicked.')" \
        "the 2025 computer tool's block is answered too"
t_ok "... and its click reached 310,410 (5 s)" wait_for 5 log_has "button-release 1 310 410"
t_is "$(line $A 4 | py '[(r["tool_use_id"], r["is_error"]) for r in d]')" "[('toolu_08', True), ('toolu_09', True)]" \
        "a turn with one coordinate outside the screenshot: both calls are errors"
t_match "$(line $A 4 | py 'd[1]["content"][0]["text"]')" "outside the screenshot" "... the bad one naming the rule"
t_match "$(line $A 4 | py 'd[0]["content"][0]["text"]')" "call 2 .* invalid" "... the good one saying why it did not run"
t_ok "... and nothing of that turn reached the screen" eval '! grep -q "button-press 1 200 210" "$LOG"'
t_is "$(line $A 5 | py '(d["tool_use_id"], d["is_error"])')" "('', True)" "a block without an id is an error result"
t_match "$(line $A 6 | py 'd["content"][0]["text"]')" "Unknown member \"open_app\".*left_click" \
        "an unknown member is an error naming the members"
t_is "$(line $A 7 | py '[(r["tool_use_id"], r["content"][0]["text"]) for r in d]')" "[('toolu_14', 'Moved the mouse.')]" \
        "a whole Message: only the computer toolset's call is answered, the text and another tool's call left alone"
shape a1 Anthropic.ToolResultBlockParam $A 1
shape a2 'Anthropic.ToolResultBlockParam[]' $A 2
shape a3 Anthropic.ToolResultBlockParam $A 3
shape a4 'Anthropic.ToolResultBlockParam[]' $A 4
t_match "$(cat "$BD_T/err.$A")" "anthropic" "act said on stderr which shape it read"

# A human takes control: the turn's first call is suppressed with the epoch, the rest not run.
"$BOTDESK" lease "$P" take --viewer tester --reason test >/dev/null
epoch=$("$BOTDESK" lease "$P" show --json | py 'd["epoch"]')
printf '[%s,%s]\n' "$(tu toolu_11 left_click '{"coordinate":[330,340]}')" "$(tu toolu_12 type '{"text":"no"}')" \
        >"$BD_T/anthropic-taken"
act <"$BD_T/anthropic-taken"
t_is "$?" 0 "under a human's control, a turn is still answered"
t_is "$(line $N 1 | py '[r["is_error"] for r in d]')" "[True, True]" "... every call an error"
t_match "$(line $N 1 | py 'd[0]["content"][0]["text"]')" "suppressed: human_has_control, epoch $epoch" \
        "... the first suppressed, with the epoch"
t_match "$(line $N 1 | py 'd[1]["content"][0]["text"]')" "Not run: call 1 of this turn was refused" "... the rest not run"
"$BOTDESK" lease "$P" release --viewer tester >/dev/null
t_ok "... and nothing of it reached the screen" eval '! grep -q "button-press 1 330 340" "$LOG"'

# ---- OpenAI ------------------------------------------------------------------------------------

: >"$TEXT"
{
        echo '{"type":"computer_call","id":"cu_1","call_id":"call_1","status":"completed","actions":[{"type":"click","button":"left","x":400,"y":300},{"type":"type","text":"abc"},{"type":"keypress","keys":["ENTER"]}],"pending_safety_checks":[{"id":"sc_1","code":"malicious_instructions","message":"Check the page."}]}'
        echo '{"type":"computer_call","id":"cu_2","call_id":"call_2","status":"completed","action":{"type":"click","button":"right","x":410,"y":310,"keys":["SHIFT"]},"pending_safety_checks":[]}'
} >"$BD_T/openai"
act <"$BD_T/openai"
t_is "$?" 0 "botdesk act answers two computer_calls and exits 0" || t_diag "$(cat "$BD_T/err.$N")"
O=$N
t_is "$(line $O 1 | py '(d["type"], d["call_id"], d["output"]["type"], d["acknowledged_safety_checks"])')" \
        "('computer_call_output', 'call_1', 'computer_screenshot', [{'id': 'sc_1', 'code': 'malicious_instructions', 'message': 'Check the page.'}])" \
        "a batch is answered by one computer_call_output, its safety checks acknowledged"
url=$(line $O 1 | py 'd["output"]["image_url"]')
t_match "${url:0:23}" "^data:image/jpeg;base64," "... its screenshot a data URL"
t_is "$(jpeg_size "${url#data:image/jpeg;base64,}")" 1024x768 "... that decodes to the screen's size"
t_ok "... every action of the batch ran: the click at 400,300 (5 s)" wait_for 5 log_has "button-release 1 400 300"
t_is "$(text)" "'abc\\n'" "... the text and the Enter"
t_is "$(line $O 2 | py '(d["call_id"], d["acknowledged_safety_checks"])')" "('call_2', [])" "a single action is answered too"
t_ok "... its right click reached 410,310 with Shift held (5 s)" \
        wait_for 5 eval 'log_has "button-press 3 410 310" && grep -q "^key-press Shift" "$LOG"'
shape o1 OpenAI.Responses.ResponseInputItem.ComputerCallOutput $O 1
shape o2 OpenAI.Responses.ResponseInputItem.ComputerCallOutput $O 2

echo '{"type":"computer_call","call_id":"call_3","actions":[{"type":"click","button":"left","x":220,"y":230},{"type":"move","x":99999,"y":1}],"pending_safety_checks":[]}' >"$BD_T/openai-bad"
act <"$BD_T/openai-bad"
t_is "$?" 2 "a computer_call with a point off the screen: exit 2"
t_is "$(wc -c <"$BD_T/out.$N")" 0 "... and no output item"
t_match "$(cat "$BD_T/err.$N")" "call_3: action 2: .*outside the screenshot" "... stderr naming the call, the action and the rule"
t_ok "... and its first action did not run either" eval '! grep -q "button-press 1 220 230" "$LOG"'

# ---- Gemini ------------------------------------------------------------------------------------

: >"$TEXT"
{
        echo '{"role":"model","parts":[{"text":"Clicking, then typing."},{"functionCall":{"name":"click_at","args":{"x":500,"y":500}}},{"functionCall":{"name":"type_text_at","args":{"x":100,"y":100,"text":"gem","press_enter":true}}}]}'
        echo '[{"functionCall":{"name":"key_combination","args":{"keys":"Control+A"}}}]'
        echo '{"functionCall":{"name":"navigate","args":{"url":"https://example.invalid/"}}}'
        echo '{"functionCall":{"name":"click_at","args":{"x":1000,"y":5}}}'
} >"$BD_T/gemini"
act <"$BD_T/gemini"
t_is "$?" 0 "botdesk act answers four Gemini lines and exits 0" || t_diag "$(cat "$BD_T/err.$N")"
G=$N
t_is "$(line $G 1 | py '(d["role"], [p["functionResponse"]["name"] for p in d["parts"]], [p["functionResponse"]["response"]["ok"] for p in d["parts"]])')" \
        "('user', ['click_at', 'type_text_at'], [True, True])" \
        "a model content with two calls is answered by a user content of two functionResponses"
t_is "$(line $G 1 | py 'd["parts"][1]["functionResponse"]["parts"][0]["inlineData"]["mimeType"]')" image/jpeg \
        "... each with its screenshot as inline data"
t_is "$(jpeg_size "$(line $G 1 | py 'd["parts"][0]["functionResponse"]["parts"][0]["inlineData"]["data"]')")" 1024x768 \
        "... which decodes to the screen's size"
t_ok "... click_at 500,500 on the grid is the screen's 512,384 (5 s)" wait_for 5 log_has "button-release 1 512 384"
t_ok "... type_text_at clicked 102,76 (5 s)" wait_for 5 log_has "button-release 1 102 76"
t_ok "... cleared the field first: ctrl+a" log_has "key-press a 0x4" || t_diag "$(grep key-press "$LOG" | tail -8)"
t_is "$(text)" "'\\x08gem\\n'" "... then BackSpace, the text, and Enter (as the recorder writes them)"
t_is "$(line $G 2 | py '[p["functionResponse"]["response"]["ok"] for p in d]')" "[True]" \
        "a list of parts is answered by a list: key_combination Control+A"
t_match "$(line $G 3 | py 'd["functionResponse"]["response"]["error"]')" "browser's function.*Control\+L" \
        "navigate is refused with the desktop's way to do it"
t_match "$(line $G 4 | py 'd["functionResponse"]["response"]["error"]')" "from 0 to 999" "a coordinate off the grid is refused"
shape g1 'Wire<Content>' $G 1
shape g2 'Wire<Part>[]' $G 2
shape g3 'Wire<Part>' $G 3

echo '{"type":"computer_call","call_id":"c","action":{"type":"screenshot"},"pending_safety_checks":[]}' >"$BD_T/other"
act --vendor gemini <"$BD_T/other"
t_is "$?" 0 "with --vendor gemini, an OpenAI line ..."
t_match "$(line $N 1 | py 'd["error"]')" "must be gemini's shape; this one reads as openai" "... is refused, naming both"
act --vendor nobody </dev/null
t_is "$?" 2 "an unknown --vendor is a usage error"

# ---- MCP: the toolset's members as tools -------------------------------------------------------

: >"$TEXT"
timeout 40 node "$BD_SOURCE_DIR/tests/integration/mcp-members-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" \
        >"$BD_T/members.json" 2>"$BD_T/members.err"
t_is "$?" 0 "the MCP SDK's client lists and calls the member tools" || t_diag "$(tail -3 "$BD_T/members.err")"
t_is "$(py 'list(filter(d["names"].__contains__, ("computer", "batch", "left_click", "type", "zoom")))' <"$BD_T/members.json")" \
        "['computer', 'batch', 'left_click', 'type', 'zoom']" "... tools/list has computer and batch and the members ([agent] mcp_tools = both)"
t_is "$(py 'd["left_click_properties"]' <"$BD_T/members.json")" "['changed_region', 'coordinate', 'epoch', 'since_revision', 'text']" \
        "... left_click's input is the member's (coordinate, text), the gate's epoch and botdesk's own judges of its picture"
t_is "$(py '(d["click"]["isError"], d["click"]["text"]["action"], d["click"]["image"])' <"$BD_T/members.json")" \
        "(False, 'left_click', True)" "... left_click by name is done, with a screenshot after it"
t_ok "... and reached the window at 250,260 (5 s)" wait_for 5 log_has "button-release 1 250 260"
t_is "$(text)" "'mcp'" "... type by name typed its text"
t_is "$(py '(d["bad"]["isError"], ("does not take " + chr(34) + "action") in d["bad"]["text"])' <"$BD_T/members.json")" "(True, True)" \
        "... an input with the 2025 action's name in it is refused, naming the member's input"
printf '[agent]\nmcp_tools = computer\n' >>"$BOTDESK_CONFIG"
timeout 40 node "$BD_SOURCE_DIR/tests/integration/mcp-members-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" \
        >"$BD_T/computer.json" 2>"$BD_T/computer.err"
t_isnt "$?" 0 "with mcp_tools = computer, calling left_click fails the client ..."
t_match "$(cat "$BD_T/computer.err")" "Unknown tool \"left_click\"" "... as an unknown tool"

# ---- botdesk toolset: the declaration, from the same tables -------------------------------------

for v in anthropic openai gemini; do
        "$BOTDESK" toolset "$P" --vendor "$v" >"$BD_T/toolset.$v" 2>"$BD_T/toolset.err"
        t_is "$?" 0 "botdesk toolset --vendor $v prints the tool entry"
done
t_is "$(py 'd' <"$BD_T/toolset.anthropic")" "{'type': 'computer_toolset_20260801'}" \
        "... Anthropic's: the computer toolset, every member served, no display size"
t_is "$(py 'd' <"$BD_T/toolset.openai")" "{'type': 'computer'}" "... OpenAI's: the GA computer tool"
t_is "$(py '(d["computerUse"]["environment"], d["computerUse"]["excludedPredefinedFunctions"])' <"$BD_T/toolset.gemini")" \
        "('ENVIRONMENT_DESKTOP', ['open_web_browser', 'navigate', 'search', 'go_back', 'go_forward'])" \
        "... Gemini's: the desktop environment, the browser's own functions excluded (the ones act refuses)"
"$BOTDESK" toolset "$P" >/dev/null 2>&1
t_is "$?" 2 "botdesk toolset without --vendor is a usage error"
for v in anthropic openai gemini; do
        sed "s/^/export const toolset_$v = /; s/\$/;/" "$BD_T/toolset.$v" >>"$BD_T/shapes.ts"
done
sed -i 's/^export const toolset_anthropic = /export const toolset_anthropic: Anthropic.ToolUnion = /; s/^export const toolset_openai = /export const toolset_openai: OpenAI.Responses.Tool = /; s/^export const toolset_gemini = /export const toolset_gemini: Wire<Tool> = /' \
        "$BD_T/shapes.ts"

# [agent] toolset_disabled: the declaration disables the member, and act refuses it.
printf '[agent]\ntoolset_disabled = zoom\n' >>"$BOTDESK_CONFIG"
t_is "$("$BOTDESK" toolset "$P" --vendor anthropic | py 'd')" \
        "{'type': 'computer_toolset_20260801', 'configs': {'zoom': {'enabled': False}}}" \
        "with toolset_disabled = zoom, the declaration disables zoom"
tu toolu_20 zoom '{"region":[0,0,100,100]}' >"$BD_T/zoom"
echo >>"$BD_T/zoom"
act <"$BD_T/zoom"
t_match "$(line $N 1 | py '(d["is_error"], d["content"][0]["text"])')" "True, .*not offered on this desktop" \
        "... and act answers a zoom call with an error result"
sed -i 's/^toolset_disabled = zoom$/toolset_disabled =/' "$BOTDESK_CONFIG"

# ---- the examples' loops, on recorded model output ----------------------------------------------

# The tree's clients/, examples/ and the replay beside the SDKs, as a user's checkout with npm install.
APP=$BD_T/app
mkdir -p "$APP/tests/integration"
cp -r "$BD_SOURCE_DIR/clients" "$BD_SOURCE_DIR/examples" "$APP/"
cp "$BD_SOURCE_DIR/tests/integration/examples-replay.mjs" "$APP/tests/integration/"
ln -s "$SDK_DIR/node_modules" "$APP/node_modules"
GOLDEN=$BD_SOURCE_DIR/tests/integration/recorded
for v in anthropic openai gemini; do
        : >"$TEXT"
        timeout 60 node "$APP/tests/integration/examples-replay.mjs" "$v" "$BOTDESK" "$P" "$GOLDEN/$v.json" \
                >"$BD_T/replay.$v" 2>"$BD_T/replay.$v.err"
        rc=$?
        t_is "$rc" 0 "examples/$v.mjs runs its loop on the recorded output and the desktop"
        [ "$rc" = 0 ] || t_diag "$(tail -5 "$BD_T/replay.$v.err")"
        "$PY" -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), indent=1, sort_keys=True))' \
                "$BD_T/replay.$v" >"$BD_T/requests.$v.json"
        cmp -s "$BD_T/requests.$v.json" "$GOLDEN/$v.requests.json"
        rc=$?
        t_is "$rc" 0 "... and the requests its SDK sent are the golden ones ($v.requests.json)"
        [ "$rc" = 0 ] || t_diag "$(diff "$GOLDEN/$v.requests.json" "$BD_T/requests.$v.json" | head -20)"
        # BOTDESK_TEST_RECORD=DIR keeps what was sent, to review and make the golden files from.
        [ -n "${BOTDESK_TEST_RECORD:-}" ] && cp "$BD_T/requests.$v.json" "$BOTDESK_TEST_RECORD/$v.requests.json"
done
t_ok "... the recorded clicks reached the window: Anthropic's 300,400, OpenAI's 310,410, Gemini's 512,384 (5 s)" \
        wait_for 5 eval 'log_has "button-release 1 300 400" && log_has "button-release 1 310 410" && log_has "button-release 1 512 384"'
timeout 120 "$SDK_DIR/node_modules/.bin/tsc" --noEmit --strict --allowJs --checkJs --skipLibCheck --module nodenext \
        --moduleResolution nodenext --target es2022 "$APP"/examples/*.mjs "$APP/clients/node/botdesk.mjs" >"$BD_T/tsc-examples" 2>&1
rc=$?
t_is "$rc" 0 "the examples and the client type-check against the SDKs (tsc --checkJs)"
[ "$rc" = 0 ] || t_diag "$(head -5 "$BD_T/tsc-examples")"

# ---- the vendors' own types --------------------------------------------------------------------

ln -s "$SDK_DIR/node_modules" "$BD_T/node_modules"
timeout 120 "$SDK_DIR/node_modules/.bin/tsc" --noEmit --strict --skipLibCheck --module nodenext \
        --moduleResolution nodenext "$BD_T/shapes.ts" >"$BD_T/tsc.out" 2>&1
t_is "$?" 0 "every answer type-checks against the vendors' SDK types (tsc --noEmit)" || t_diag "$(head -5 "$BD_T/tsc.out")"
# The check itself: an answer with a field the type lacks fails it.
echo 'export const wrong: Anthropic.ToolResultBlockParam = {"type": "tool_result", "tool_use_id": "x", "ok": true};' \
        >>"$BD_T/shapes.ts"
timeout 120 "$SDK_DIR/node_modules/.bin/tsc" --noEmit --strict --skipLibCheck --module nodenext \
        --moduleResolution nodenext "$BD_T/shapes.ts" >"$BD_T/tsc.out" 2>&1
t_isnt "$?" 0 "... and a tool_result with a field of botdesk's own would fail it"
t_done
