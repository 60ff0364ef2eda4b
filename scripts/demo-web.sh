# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by demo.sh (and by tests/unit/test-demo-web.sh): how the demo's
# user reaches the desktop through `botdesk web`.
#
# demo_web_message PROFILE URL SOCKET SSH_CONNECTION USER HOST
#   URL      the ticket URL `botdesk web ticket` printed: a whole
#            http://127.0.0.1:PORT/... (a loopback listener) or a path
#            /PROFILE/?ticket=... (the Unix socket of botdesk-web.socket)
#   SOCKET   that Unix socket (empty for a loopback listener)
#   SSH_CONNECTION  as ssh sets it ("CLIENT CPORT SERVER SPORT"), or empty
# Prints the lines that open the desktop in a browser: the ssh -L line
# where one is needed (a Unix socket, or a remote host), then the URL.
demo_web_message() {
        local profile=$1 url=$2 sock=$3 ssh_conn=$4 user=$5 host=$6 port local_port=6080 path
        if [ -n "$sock" ]; then
                # Only a tunnel reaches a Unix socket from a browser; on this
                # host itself the tunnel is to localhost.
                [ -n "$ssh_conn" ] || host=localhost
                printf 'Tunnel:   ssh -N -L %s:%s %s@%s\n' "$local_port" "$sock" "$user" "$host"
                printf 'Open:     http://127.0.0.1:%s%s\n' "$local_port" "$url"
        elif [ -n "$ssh_conn" ]; then
                port=${url#http://127.0.0.1:}
                port=${port%%/*}
                path=/${url#http://127.0.0.1:*/}
                printf 'Tunnel:   ssh -N -L %s:127.0.0.1:%s %s@%s\n' "$local_port" "$port" "$user" "$host"
                printf 'Open:     http://127.0.0.1:%s%s\n' "$local_port" "$path"
        else
                printf 'Open:     %s\n' "$url"
        fi
        printf '          (a single-use ticket for viewer "me", valid 10 minutes: botdesk web ticket %s --viewer me --ttl 600 mints another)\n' "$profile"
}

# The host name an ssh client would use to reach this one: the address it
# connected to (SSH_CONNECTION's third word), else the host name.
demo_ssh_host() {
        local words
        read -ra words <<<"${1:-}"
        if [ "${#words[@]}" -ge 3 ]; then printf '%s\n' "${words[2]}"; else hostname -f 2>/dev/null || hostname; fi
}
