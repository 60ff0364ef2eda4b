#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The tight-memory warning (available memory below 4/3 of min_free_memory_mb)
# reaches the caller: on start's stderr and as status --json's "warning";
# outside the band "warning" is null and every other key is still there.
. "$(dirname "$0")/lib.sh"
bd_init mwn 115
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"

P=$(bd_profile a)
json_get() { "$PY" -c 'import json,sys; v=json.loads(sys.argv[1]).get(sys.argv[2]); print("null" if v is None else v)' "$1" "$2"; }

bd_config min_free=0
st=$("$BOTDESK" status --json "$P")
t_is "$(json_get "$st" warning)" null "without a floor status --json has \"warning\": null"
# What botdesk counts as available (MemAvailable, or a smaller cgroup headroom).
avail=$(json_get "$st" memory_available_mb)
t_match "$avail" '^[0-9]+$' "status --json reports available memory ($avail MB)"
meminfo=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
t_ok "that is at most /proc/meminfo's MemAvailable ($meminfo MB) plus drift" test "$avail" -le $((meminfo + meminfo / 20))

# A floor of 80 % of what is available puts this machine in the band
# [floor, floor + floor/3) = [0.8 A, 1.07 A), with room for drift either way.
floor=$((avail * 4 / 5))
bd_config min_free=$floor
bd_start "$P"
rc=$?
t_is "$rc" 0 "a start in the warning band goes ahead (floor $floor MB)"
t_match "$(bd_err "$P")" "Memory is tight: [0-9]+ MB available, $floor MB is the floor \\(min_free_memory_mb\\)" \
        "start says on stderr that memory is tight"
st=$("$BOTDESK" status --json "$P")
t_match "$(json_get "$st" warning)" "^Memory is tight: [0-9]+ MB available, $floor MB is the floor" \
        "status --json carries the warning"
keys=$("$PY" -c '
import json, sys
s = json.loads(sys.argv[1])
keys = ["profile", "supported", "installed", "missing", "running", "pid", "display", "socket", "geometry",
        "install_command", "browser", "blocker", "memory_available_mb", "memory_limit_mb", "placement",
        "unit", "session", "lease", "idle_seconds", "started_at", "warning"]
print(" ".join(k for k in keys if k not in s) or "ok")' "$st")
t_is "$keys" ok "status --json with a warning keeps every key"
t_match "$("$BOTDESK" status "$P")" "warning: Memory is tight" "plain status shows the warning too"

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
bd_config min_free=0
st=$("$BOTDESK" status --json "$P")
t_is "$(json_get "$st" warning)" null "with the floor gone the warning is null again"
t_done
