#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A profile placed through an exec prefix reports its status from the far
# side, and `botdesk status --json` takes from there exactly one JSON
# object naming that profile, written back out from its parsed form: a
# second object, trailing bytes, another profile's status or a second
# "profile" key are refused (the profile is reported unreachable), and a
# string that looks like the end of the object stays a string. The far
# side's botdesk is a stub that prints a line of our choosing. Prints TAP.
#   test-remote-status.sh BOTDESK
set -u
BOTDESK=${1:?usage: test-remote-status.sh BOTDESK}
PY=$(command -v python3) || { echo "1..0 # SKIP python3 not installed"; exit 0; }
T=$(mktemp -d) || exit 1
[ -n "$T" ] && [ -d "$T" ] || exit 1
trap 'rm -rf -- "${T:?}"' EXIT
mkdir -m 700 "$T/run" "$T/run/botdesk" "$T/run/botdesk/w"
mkdir "$T/bin" "$T/far"
export XDG_RUNTIME_DIR=$T/run XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config BOTDESK_CONFIG=$T/botdesk.ini
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; [ "$1" = 0 ]; }

# A prefix that runs its words itself (as podman exec does).
printf '#!/bin/sh\nshift\nPATH=%s/far:/usr/bin:/bin exec "$@"\n' "$T" >"$T/bin/direct"
# The far side's botdesk: its status is the line in $T/line.
printf '#!/bin/sh\ncat "%s/line"\n' "$T" >"$T/far/botdesk"
chmod 755 "$T/bin/direct" "$T/far/botdesk"
printf '[profile.w]\nplacement = exec\nexec = %s/bin/direct host\n' "$T" >"$BOTDESK_CONFIG"

# far LINE: botdesk status --json (every profile: w) with LINE from the far side; prints what our list says of it.
far() {
        printf '%s\n' "$1" >"$T/line"
        timeout 30 "$BOTDESK" status --json 2>"$T/err" | "$PY" -c '
import json, sys
text = sys.stdin.read()
try:
    v = json.loads(text)
except ValueError as e:
    print("not JSON: %s: %r" % (e, text)); sys.exit()
if not isinstance(v, list):
    print("not a list: %r" % text); sys.exit()
print(" ".join("%s:%s" % (o.get("profile"), "refused" if "reason" in o else o.get("mark", "-"))
               for o in v if isinstance(o, dict)) + " n=%d" % len(v))'
}

out=$(far '{"profile":"w","mark":"far"}')
[ "$out" = "w:far n=1" ]
ok $? "the far side's one object for w is the list's entry ($out)" || sed 's/^/# /' "$T/err"

out=$(far '{"profile":"w","mark":"far"},{"profile":"x","mark":"injected"}')
[ "$out" = "w:refused n=1" ]
ok $? "two objects on the line: w is reported unreachable, nothing is injected ($out)"

out=$(far '{"profile":"w","mark":"far"} {"profile":"x"')
[ "$out" = "w:refused n=1" ]
ok $? "trailing bytes after the object are refused ($out)"

out=$(far '{"profile":"x","mark":"other"}')
[ "$out" = "w:refused n=1" ]
ok $? "an object for another profile is refused ($out)"

out=$(far '{"profile":"w","profile":"x","mark":"two"}')
[ "$out" = "w:refused n=1" ]
ok $? "an object naming its profile twice is refused ($out)"

out=$(far '[{"profile":"w"}]')
[ "$out" = "w:refused n=1" ]
ok $? "an array is refused ($out)"

out=$(far '{"profile":"w","mark":"\"},{\"profile\":\"x\",\"mark\":\"injected\"}"}')
[ "$out" = 'w:"},{"profile":"x","mark":"injected"} n=1' ]
ok $? "a string that looks like the object's end stays a string of w's one entry ($out)"

out=$(far '{"profile":"w","mark":"nested","x":{"profile":"x"}}')
[ "$out" = "w:nested n=1" ]
ok $? "a nested object stays inside w's entry ($out)"

echo "1..$n"
exit $failed
