#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install what is missing, build and install botdesk, start a demo desktop,
# start botdesk web for its user and print the ticket URL that opens it in a
# browser (with the ssh -L line that reaches it when run over ssh).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
profile=${1:-demo}

"$src/scripts/install-deps.sh" --demo
# Quiet when it works; meson says why it failed on stdout, shown then. A
# build dir whose setup failed has no build.ninja: meson sets it up again.
if [ ! -f "$src/build/build.ninja" ]; then
        # Without the tests: tests/run.sh builds those in build-tests*.
        setup=(meson setup "$src/build" --prefix=/usr/local --sysconfdir=/etc -Dtests=false)
        setup_log=$("${setup[@]}" 2>&1) || {
                printf '%s\n' "$setup_log" | tail -n 30 >&2
                echo "demo.sh: ${setup[*]} failed (above)" >&2
                exit 1
        }
fi
ninja -C "$src/build"
meson install -C "$src/build" --quiet

# The desktop belongs to whoever asked for it, not to root.
user=${SUDO_USER:-$(id -un)}
uid=$(id -u "$user")
run=(env)
if [ "$uid" -ne "$(id -u)" ]; then
        run=(runuser -u "$user" -- env)
        [ -d "/run/user/$uid" ] && run+=("XDG_RUNTIME_DIR=/run/user/$uid")
fi
"${run[@]}" /usr/local/bin/botdesk start "$profile"
"${run[@]}" /usr/local/bin/botdesk status --json "$profile"

# Watching: botdesk web, the socket unit where the user has a user manager
# (its 0600 Unix socket, reached through ssh -L), else a loopback listener
# (every request needs a ticket).
. "$src/scripts/demo-web.sh"
# sudo drops SSH_CONNECTION: the shell that ran sudo still has it.
ssh_conn=${SSH_CONNECTION:-}
if [ -z "$ssh_conn" ] && [ -n "${SUDO_USER:-}" ]; then
        shell_pid=$(ps -o ppid= -p "$PPID" 2>/dev/null | tr -d ' ')
        [ -n "$shell_pid" ] && ssh_conn=$(tr '\0' '\n' <"/proc/$shell_pid/environ" 2>/dev/null | sed -n 's/^SSH_CONNECTION=//p')
fi
sock=
if "${run[@]}" systemctl --user enable --now botdesk-web.socket >/dev/null 2>&1; then
        sock=/run/user/$uid/botdesk/web.sock
else
        rt=$("${run[@]}" sh -c 'echo "${XDG_RUNTIME_DIR:-/tmp}"')
        # Already listening from an earlier run: web.url says where.
        if ! "${run[@]}" test -s "$rt/botdesk/web.url"; then
                "${run[@]}" setsid /usr/local/bin/botdesk web --listen 127.0.0.1:0 </dev/null >/dev/null 2>&1 &
                for _ in $(seq 50); do "${run[@]}" test -s "$rt/botdesk/web.url" && break; sleep 0.1; done
        fi
fi
url=$("${run[@]}" /usr/local/bin/botdesk web ticket "$profile" --viewer me --ttl 600)

cat <<MSG

Watch it in a browser (botdesk web: the page shows the desktop and who holds control):
$(demo_web_message "$profile" "$url" "$sock" "$ssh_conn" "$user" "$(demo_ssh_host "$ssh_conn")")
Take it:  the page's Take over button, or: botdesk lease $profile take --viewer me
Use it:   botdesk input $profile click 100 100 --settle; botdesk thumbnail $profile -o shot.png
Stop it:  botdesk stop $profile
MSG
