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
#
# Then the caller's own bus: a dbus-daemon of the test's, outside the
# desktop, with a secret in its environment and service files for
# org.a11y.Bus and the AT-SPI registry whose program records that it ran.
# A program of the desktop can point the reader at it two ways: by
# rewriting the runtime dir's env (the desktop can write it), and through a
# relay of its own (socat, in the desktop, so that the peer is the
# desktop's). The first is refused (the peer is not the desktop's), the
# second finds no accessibility bus (the reader asks nothing with
# auto-start), and neither runs the caller's program.
. "$(dirname "$0")/lib.sh"
bd_init a11yh 365
bd_need_xserver
bd_need xfwm4 xfce4-panel xfdesktop xfsettingsd socat dbus-daemon dbus-send
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

# ---- the caller's own bus ----------------------------------------------------------------------
CALLER=$BD_T/caller
mkdir -p "$CALLER/services"
RAN=$CALLER/ran
# The program either service would start: it records its environment.
printf '#!/bin/sh\nenv >>%s\n' "$RAN" >"$CALLER/record-env"
chmod 0755 "$CALLER/record-env"
for name in org.a11y.Bus org.a11y.atspi.Registry; do
        printf '[D-BUS Service]\nName=%s\nExec=%s\n' "$name" "$CALLER/record-env" >"$CALLER/services/$name.service"
done
printf '%s\n' '<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"' \
        ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">' \
        '<busconfig><type>session</type>' \
        "<listen>unix:path=$CALLER/bus</listen><servicedir>$CALLER/services</servicedir><auth>EXTERNAL</auth>" \
        '<policy context="default"><allow send_destination="*"/><allow own="*"/><allow receive_sender="*"/></policy></busconfig>' \
        >"$CALLER/bus.conf"
BOTDESK_CALLER_SECRET=s3cret dbus-daemon --config-file="$CALLER/bus.conf" --nofork --nopidfile --nosyslog \
        >"$CALLER/bus.out" 2>&1 &
bd_own_pid $!
t_ok "the caller's bus is up (5 s)" wait_for 5 test -S "$CALLER/bus" || t_diag "$(cat "$CALLER/bus.out")"
# The bus's own proof that it runs the program for a call that asks it to, so that "nothing ran" means something.
# A call again each second (a loaded machine may lose the first to a bus still settling in), at most 20.
caller_runs() {
        local i
        for i in $(seq 20); do
                timeout 5 dbus-send --bus="unix:path=$CALLER/bus" --print-reply --reply-timeout=2000 --dest=org.a11y.Bus \
                        /org/a11y/bus org.a11y.Bus.GetAddress >/dev/null 2>&1
                wait_for 1 grep -q BOTDESK_CALLER_SECRET=s3cret "$RAN" && return 0
        done
        return 1
}
t_ok "... and runs its org.a11y.Bus program, with its environment, when a call starts it (20 calls, a second apart)" \
        caller_runs
rm -f -- "${RAN:?}"

# env_bus ADDRESS: the runtime dir's env with the session bus at ADDRESS, as a program of the desktop can write it.
ENV=$(bd_rt "$P")/env
cp -- "$ENV" "$BD_T/env.saved"
env_bus() {
        sed "s|^DBUS_SESSION_BUS_ADDRESS=.*|DBUS_SESSION_BUS_ADDRESS=$1|" "$BD_T/env.saved" >"$ENV.new" && mv -- "$ENV.new" "$ENV"
}
env_bus "unix:path=$CALLER/bus"
"$BOTDESK" a11y "$P" --json >"$BD_T/caller.json" 2>"$BD_T/caller.err"
t_is "$?" 1 "an env naming the caller's bus: botdesk a11y fails"
t_match "$(cat "$BD_T/caller.err")" "not one of the desktop's" "... saying the process at that socket is not the desktop's"

"$BOTDESK" exec "$P" -- socat "UNIX-LISTEN:$BD_T/relay,fork" "UNIX-CONNECT:$CALLER/bus" >"$BD_T/relay.out" 2>&1 &
t_ok "a relay of the desktop's to the caller's bus listens (5 s)" wait_for 5 test -S "$BD_T/relay" ||
        t_diag "$(cat "$BD_T/relay.out")"
env_bus "unix:path=$BD_T/relay"
"$BOTDESK" a11y "$P" --json >"$BD_T/relay.json" 2>"$BD_T/relay.err"
t_is "$?" 1 "an env naming that relay: botdesk a11y fails"
t_match "$(cat "$BD_T/relay.err")" "no accessibility bus running" "... finding no accessibility bus, since it starts none"
cp -- "$BD_T/env.saved" "$ENV.new" && mv -- "$ENV.new" "$ENV"
"$BOTDESK" a11y "$P" --json >/dev/null 2>"$BD_T/after.err"
t_is "$?" 0 "with the env put back, botdesk a11y reads the tree again" || t_diag "$(cat "$BD_T/after.err")"

# A command sd-bus would have run is done within a few ms; a connection's line is logged as it is accepted.
sleep 0.5
t_ok "no reading ran the unixexec: address's command (no $MARKER)" test ! -e "$MARKER"
t_is "$(grep -c '^tcp$' "$LOG")" 0 "no reading connected to the tcp: address's listener"
t_ok "no reading started a program on the caller's bus (no $RAN)" test ! -e "$RAN" || t_diag "$(head -3 "$RAN")"
t_done
