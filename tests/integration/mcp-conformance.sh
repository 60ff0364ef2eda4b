#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The official MCP conformance suite's server scenarios (pinned
# @modelcontextprotocol/conformance, installed by scripts/install-deps.sh
# --tests) against botdesk mcp's Streamable HTTP endpoint (--listen
# unix:PATH, reached through a loopback socat front: the suite takes a URL),
# for the 2026-07-28 requirements and for 2025-11-25. Every scenario
# botdesk serves must pass; the others are the scenarios of a test server's
# own tools, prompts and resources, and of features botdesk does not offer
# (doc/agents-mcp.md lists each with its reason). Prints the pass counts.
# Band 520 (once).
. "$(dirname "$0")/lib.sh"
bd_init mcpc 520 once
bd_need_xserver
bd_need node
bd_need socat
SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
SUITE=$SDK_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -f "$SUITE" ] || t_skip_all "the MCP conformance suite is not in $SDK_DIR (scripts/install-deps.sh --tests installs it)"
bd_config
P=$(bd_profile a)
t_ok "the desktop starts" bd_start "$P"
mkdir -p "$BD_T/out"
SOCKDIR=$(mktemp -d "$BD_T/http.XXXXXX") && chmod 0700 "$SOCKDIR"
"$BOTDESK" mcp "$P" --listen "unix:$SOCKDIR/mcp.sock" 2>"$BD_T/out/mcp.err" &
mcp_pid=$!
bd_own_pid "$mcp_pid"
t_ok "botdesk mcp --listen makes its socket (waited at most 10 s)" wait_for 10 test -S "$SOCKDIR/mcp.sock"
bd_tcp_front "$P" - "UNIX-CONNECT:$SOCKDIR/mcp.sock" ",fork"
t_ok "a loopback TCP front reaches it" test -n "${BD_FRONT_PORT:-}"
URL="http://127.0.0.1:$BD_FRONT_PORT/mcp"

# run NAME ARGS...: the suite's server scenarios with ARGS; results under $BD_T/NAME.
run() {
        local name=$1
        shift
        timeout 300 node --import "$(dirname "$0")/node/conformance-register.mjs" "$SUITE" server --url "$URL" \
                -o "$BD_T/$name" "$@" >"$BD_T/out/$name.out" 2>"$BD_T/out/$name.err"
}
# The suite exits 1 when any scenario fails: most are of a test server's own tools (below).
run r2026 --requirements 2026-07-28
t_ok "the suite ran the 2026-07-28 requirements (results saved)" test -n "$(ls "$BD_T/r2026" 2>/dev/null)"
run r2025 --spec-version 2025-11-25
t_ok "the suite ran the 2025-11-25 scenarios (results saved)" test -n "$(ls "$BD_T/r2025" 2>/dev/null)"
# summary DIR: "SCENARIO PASSED FAILED UNTESTABLE" per scenario: a WARNING
# counts as failed (a SHOULD the scenario checks), a failure that says "Not
# testable" (the check needs a diagnostic tool of the suite's own test
# server) as untestable.
summary() {
        "$PY" - "$1" <<'EOF'
import json, os, sys
root = sys.argv[1]
for d in sorted(os.listdir(root)):
        name = d.split("-2026-")[0].removeprefix("server-")
        try:
                checks = json.load(open(os.path.join(root, d, "checks.json")))
        except (OSError, ValueError):
                print(name, 0, 1)
                continue
        # (Not "for c in": tests/unit/test-deps.py reads that as a VM test's table of programs.)
        untestable = [k for k in checks if (k.get("errorMessage") or "").startswith("Not testable")]
        bad = [k for k in checks if k.get("status") in ("FAILURE", "WARNING") and k not in untestable]
        good = [k for k in checks if k.get("status") == "SUCCESS"]
        print(name, len(good), len(bad), len(untestable))
        for k in bad:
                print("#", name, k.get("id"), k.get("status"), (k.get("errorMessage") or "")[:200], file=sys.stderr)
EOF
}
summary "$BD_T/r2026" >"$BD_T/s2026" 2>"$BD_T/s2026.why"
summary "$BD_T/r2025" >"$BD_T/s2025" 2>"$BD_T/s2025.why"
sed 's/^/# 2026-07-28: /' "$BD_T/s2026"
sed 's/^/# 2025-11-25: /' "$BD_T/s2025"

# served REVISION SCENARIO...: each ran, and passed every check.
served() {
        local rev=$1 sc line
        shift
        for sc in "$@"; do
                line=$(grep "^$sc " "$BD_T/s$rev")
                t_ok "conformance $rev: $sc passes (passed, failed, untestable: ${line#* })" \
                        eval '[ -n "$line" ] && [ "$(cut -d" " -f3 <<<"$line")" = 0 ] && [ "$(cut -d" " -f2 <<<"$line")" -gt 0 ]'
                [ -n "$line" ] && [ "$(cut -d" " -f3 <<<"$line")" = 0 ] || { t_diag "$(grep " $sc " "$BD_T/s$rev.why")"; served_failed=1; }
        done
}
served 2026 server-stateless tools-list dns-rebinding-protection http-header-validation \
        input-required-result-unsupported-methods input-required-result-validate-input \
        resources-list sep-2164-resource-not-found
served 2025 server-initialize ping tools-list dns-rebinding-protection resources-list
# What the server and the front said, when a scenario it serves failed.
if [ -n "${served_failed:-}" ]; then
        t_diag "botdesk mcp --listen: $(kill -0 "$mcp_pid" 2>/dev/null && echo running || echo gone); its stderr: $(tail -n 5 "$BD_T/out/mcp.err")"
        t_diag "the TCP front: $(tail -n 5 "$BD_T/out/socat.err" 2>/dev/null)"
fi
total() { awk '{ p += $2; f += $3; u += $4 } END { print p + 0 " passed, " f + 0 " failed, " u + 0 " untestable" }' "$BD_T/s$1"; }
echo "# conformance checks, 2026-07-28: $(total 2026); 2025-11-25: $(total 2025)"
kill "$mcp_pid" 2>/dev/null
wait "$mcp_pid" 2>/dev/null
t_done
