#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk(1)'s JSON OUTPUT is the reference of every key botdesk prints:
# the keys of status --json, lease --json, watch --json (its state event,
# with and without --full), journal --json entries and the error object,
# read from a real desktop's answers, each appear in that section (as
# *key*): a key added to the code and not to the page fails here. Band 515
# (once).
. "$(dirname "$0")/lib.sh"
bd_init mjs 515 once
bd_need_xserver
MAN=$BD_SOURCE_DIR/conf/man/botdesk.1.scd
t_ok "botdesk.1.scd has a JSON OUTPUT section" grep -q '^# JSON OUTPUT$' "$MAN"
bd_config
P=$(bd_profile a)
t_ok "the desktop starts" bd_start "$P"
O=$BD_T/out

"$BOTDESK" status "$P" --json >"$O/status.json" 2>>"$O/errs"
"$BOTDESK" lease "$P" --json >"$O/lease.json" 2>>"$O/errs"
timeout 20 "$BOTDESK" watch "$P" --json >"$O/watch.json" 2>>"$O/errs" &
w=$!
bd_own_pid "$w"
timeout 20 "$BOTDESK" watch "$P" --json --full >"$O/watch-full.json" 2>>"$O/errs" &
wf=$!
bd_own_pid "$wf"
t_ok "both watches said the state (waited at most 10 s)" wait_for 10 eval 'test -s "$O/watch.json" -a -s "$O/watch-full.json"'
kill "$w" "$wf" 2>/dev/null
wait "$w" "$wf" 2>/dev/null
timeout 20 "$BOTDESK" input "$P" move 10 10 >/dev/null 2>>"$O/errs"
"$BOTDESK" journal "$P" --json >"$O/journal.json" 2>>"$O/errs"
"$BOTDESK" status no-such-verb-here --json >/dev/null 2>&1
"$BOTDESK" stauts --json >"$O/error.json" 2>/dev/null
t_ok "each printed JSON (status, lease, two watches, a journal entry, an error)" \
        eval 'for f in status lease watch watch-full journal error; do test -s "$O/$f.json" || exit 1; done'

# keys FILE...: every key of every object in them (nested too, by name), one a line.
keys() {
        "$PY" - "$@" <<'EOF'
import json, sys
seen = set()
def walk(v):
        if isinstance(v, dict):
                for k, x in v.items():
                        seen.add(k)
                        walk(x)
        elif isinstance(v, list):
                for x in v:
                        walk(x)
for f in sys.argv[1:]:
        for line in open(f):
                if line.strip():
                        walk(json.loads(line))
print("\n".join(sorted(seen)))
EOF
}
# The section's bold words: *key* (scdoc escapes _ as \_).
SECTION=$(sed -n '/^# JSON OUTPUT$/,/^# /p' "$MAN" | sed 's/\\_/_/g')
named=$(grep -o '\*[a-z_][a-z0-9_]*\*' <<<"$SECTION" | tr -d '*' | sort -u)
printed=$(keys "$O"/status.json "$O"/lease.json "$O"/watch.json "$O"/watch-full.json "$O"/journal.json "$O"/error.json)
missing=$(comm -23 <(echo "$printed") <(echo "$named") | tr '\n' ' ')
t_is "$missing" "" "every key botdesk printed is named in JSON OUTPUT"
[ -z "$missing" ] ||
        for f in status lease watch watch-full journal error; do t_diag "$f: $(head -c 2000 "$O/$f.json")"; done
t_ok "... the status keys among them ($(keys "$O/status.json" | wc -l))" test "$(keys "$O/status.json" | wc -l)" -gt 15
t_done
