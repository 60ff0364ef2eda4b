#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What an application on the desktop can make the accessibility reader do:
# nothing but be refused. Three programs of the test's own (a11y-hostile-app.py,
# raw D-Bus, as any program of the desktop could be) Embed themselves in the
# AT-SPI registry and answer GetApplicationBusAddress with an address of
# their choosing: "unixexec:path=/bin/sh,argv1=-c,argv2=touch MARKER" (sd-bus
# would run it in the reader), "tcp:host=127.0.0.1,port=N" (a listener of
# the test's records every connection) and the Unix socket of another
# process (the same user's, not the application's: the peer's pid is not the
# application's). `botdesk a11y P` (JSON and text) and the MCP tool
# a11y_tree run nothing, connect to no TCP port, and report each of them as
# one node, refused, with no children; the desktop's own applications
# (Xfce's panel and desktop) are still read, through their own sockets.
. "$(dirname "$0")/lib.sh"
bd_init a11yh 365
bd_need_xserver
bd_need xfwm4 xfce4-panel xfdesktop xfsettingsd
[ -x /usr/libexec/at-spi-bus-launcher ] || t_skip_all "at-spi2-core not installed"
[ -n "$PY" ] && "$PY" -c 'from gi.repository import Gio' 2>/dev/null || t_skip_all "python3-gi not installed"
bd_config desktop=xfce timeout=60
P=$(bd_profile a)
APP=$BD_SOURCE_DIR/tests/integration/a11y-hostile-app.py
MARKER=$BD_T/marker
LOG=$BD_T/connections
: >"$LOG"

t_ok "the Xfce desktop starts" bd_start "$P" || t_diag "$(bd_err "$P")"

"$PY" "$BD_SOURCE_DIR/tests/integration/a11y-hostile-listener.py" "$BD_T/port" "$LOG" "$BD_T/other.sock" \
        2>"$BD_T/listener.err" &
bd_own_pid $!
t_ok "the test's listeners are up (5 s)" wait_for 5 test -s "$BD_T/port" || t_diag "$(cat "$BD_T/listener.err")"
PORT=$(cat "$BD_T/port")

# hostile NAME ADDRESS: an application answering ADDRESS, embedded once $BD_T/NAME.ready names it.
hostile() {
        "$BOTDESK" exec "$P" -- "$PY" "$APP" "$2" "$BD_T/$1.ready" >"$BD_T/$1.out" 2>&1 &
}
hostile exec "unixexec:path=/bin/sh,argv1=-c,argv2=touch $MARKER"
hostile tcp "tcp:host=127.0.0.1,port=$PORT"
hostile other "unix:path=$BD_T/other.sock"
for h in exec tcp other; do
        t_ok "the application answering with $h embeds itself in the registry (20 s)" \
                wait_for 20 test -s "$BD_T/$h.ready" || t_diag "$(cat "$BD_T/$h.out")"
done
ids=
for h in exec tcp other; do
        b=$(cat "$BD_T/$h.ready" 2>/dev/null)
        ids="$ids ${b#:}:root"
done
ids=${ids# }

# judge FILE: for each hostile application, its node's refused flag and how
# many nodes name it as parent; then how many nodes are refused in all and
# how many are read below an application that is not.
judge() {
        "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d = d.get("text", d)
nodes = d["nodes"]
out = []
for i in sys.argv[2].split():
    m = [n for n in nodes if n["id"] == i]
    out.append("%s/%d" % (m[0].get("refused", False) if len(m) == 1 else "missing", sum(1 for n in nodes if n["parent"] == i)))
apps = {n["id"] for n in nodes if n["parent"] is None and not n.get("refused")}
out.append("refused=%d" % sum(1 for n in nodes if n.get("refused")))
out.append("read=%s" % any(n["parent"] in apps for n in nodes))
print(" ".join(out))' "$1" "$ids"
}

"$BOTDESK" a11y "$P" --json >"$BD_T/tree.json" 2>"$BD_T/tree.err"
t_is "$?" 0 "botdesk a11y --json reads the tree" || t_diag "$(cat "$BD_T/tree.err")"
t_is "$(judge "$BD_T/tree.json")" "True/0 True/0 True/0 refused=3 read=True" \
        "... each hostile application is one node, refused, with no children; the desktop's own are read"
"$BOTDESK" a11y "$P" >"$BD_T/tree.txt" 2>"$BD_T/tree.err"
t_is "$?" 0 "botdesk a11y (text) reads the tree" || t_diag "$(cat "$BD_T/tree.err")"
t_is "$(grep -c 'REFUSED' "$BD_T/tree.txt")" 3 "... and says REFUSED on each of their lines"

SDK_DIR=${BOTDESK_MCP_SDK_DIR:-/usr/local/lib/botdesk-tests}
if command -v node >/dev/null 2>&1 && [ -d "$SDK_DIR/node_modules/@modelcontextprotocol/sdk" ]; then
        timeout 40 node "$BD_SOURCE_DIR/tests/integration/a11y-hostile-mcp-client.cjs" "$SDK_DIR" "$BOTDESK" "$P" \
                >"$BD_T/mcp.json" 2>"$BD_T/mcp.err"
        t_is "$?" 0 "the MCP tool a11y_tree answers" || t_diag "$(tail -5 "$BD_T/mcp.err")"
        t_is "$(judge "$BD_T/mcp.json")" "True/0 True/0 True/0 refused=3 read=True" \
                "... with the same three refused nodes, no children, the desktop's own read"
else
        t_skip "the a11y_tree tool through the MCP SDK's client" "node or the MCP SDK in $SDK_DIR"
fi

# A command sd-bus would have run is done within a few ms; a connection's line is logged as it is accepted.
sleep 0.5
t_ok "no reading ran the unixexec: address's command (no $MARKER)" test ! -e "$MARKER"
t_is "$(grep -c '^tcp$' "$LOG")" 0 "no reading connected to the tcp: address's listener"
t_done
