#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Placement by exec prefix over ssh (DESIGN section 15), root only: an sshd
# of this test on 127.0.0.1 (its own host key, user key and port, started
# and killed by pid) lets root log in as the second user botdesk-test. A
# profile with placement = exec and exec = WRAPPER "a b" ... -- ssh ... starts
# its desktop as botdesk-test on the far side of ssh: the wrapper receives
# its quoted arguments as single words (no word splitting, no shell on our
# side); status, env and thumbnail come from there; gvnccapture reads a
# framebuffer through `botdesk rfb` over the prefix; once the setting
# changed to host, the owner record is not run (it is no command: code in
# a desktop can write the runtime dir) and status says so, naming both,
# until the setting is put back; an
# unreachable far side reads as not running with the reason, and its start
# is a refusal that starts nothing here; stop leaves nothing running there.
# botdesk web serves the far desktop: its lease, its stream, Take over and
# Hand back, all through the prefix.
# Bands: 500-504 (botdesk-test's desktops; nothing of root's runs).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || t_skip_all "needs root (an sshd and a second user)"
bd_init pls 500
bd_need_xserver
bd_need ssh ssh-keygen socat gvnccapture runuser
[ -x /usr/sbin/sshd ] || t_skip_all "sshd not installed (openssh-server)"
[ -n "$PY" ] || t_skip_all "python3 not installed"

# The second user, the one as-user.sh runs tests as.
bd_second_user
U=$BD_U

P=$(bd_profile a)
UT= SSHD_PID= MADE_PRIVSEP=
# Only botdesk-test's processes of this test: their command lines name $UT
# or the staged binaries, or they carry the far desktop's token.
RTOK=
remote_pids() {
        { cmdline_pids "$UT/"; cmdline_pids "$BD_T/stage/helper/"; [ -n "$RTOK" ] && token_pids "$RTOK"; } | sort -un
}

# At exit: stop the far desktop while sshd still runs, then kill by pid what
# is left of it, then the common cleanup (which kills sshd by its pid).
pls_cleanup() {
        local rc=$? pid
        trap - EXIT
        [ -n "$SSHD_PID" ] && timeout 60 "$BOTDESK" stop --force "$P" >/dev/null 2>&1
        for pid in $(remote_pids); do kill -KILL "$pid" 2>/dev/null; done
        [ -n "${UT:-}" ] && [ -d "$UT" ] && rm -rf -- "${UT:?}"
        [ -n "$MADE_PRIVSEP" ] && rmdir /run/sshd 2>/dev/null
        (exit $rc)
        bd_cleanup
}
trap pls_cleanup EXIT

# botdesk-test runs a readable copy of the binaries (the build dir may be private).
chmod 711 "$BD_T"
mkdir -m 755 "$BD_T/stage" "$BD_T/stage/conf" "$BD_T/ssh"
"$BD_LIB_DIR/stage-build.sh" "$BD_BUILD_DIR" "$BD_T/stage"
cp -r "$BD_SOURCE_DIR/conf/skel" "$BD_T/stage/conf/"
chmod -R a+rX "$BD_T/stage"

# botdesk-test's side: its own runtime, state and config, in a 0700 dir it owns.
UT=$(mktemp -d /tmp/botdesk-pls-u.XXXXXX) || t_skip_all "mktemp failed"
chown "$U:" "$UT" && chmod 700 "$UT"
runuser -u "$U" -- mkdir -m 700 "$UT/run" "$UT/state" "$UT/config"
BOTDESK_CONFIG=$UT/botdesk.ini bd_config band=500-504
chown "$U:" "$UT/botdesk.ini"

# ---- sshd --------------------------------------------------------------------------------------
S=$BD_T/ssh
ssh-keygen -q -t ed25519 -N '' -C botdesk-test-host -f "$S/host_key" || t_skip_all "ssh-keygen failed"
ssh-keygen -q -t ed25519 -N '' -C botdesk-test-user -f "$S/user_key" || t_skip_all "ssh-keygen failed"
cp "$S/user_key.pub" "$S/authorized_keys"
chmod 644 "$S/authorized_keys"
# UsePAM: without it sshd refuses an account whose password is locked ("!"), as a
# system user's is; PAM's account check does not.
# sshd needs its privilege separation dir; the system's service creates it. Removed if made here (and empty).
if [ ! -d /run/sshd ]; then mkdir -m 755 /run/sshd && MADE_PRIVSEP=1; fi

PORT=
# start_sshd: on $PORT when set, else the first free of a few high ports; sets SSHD_PID.
start_sshd() {
        local port w ports
        if [ -n "$PORT" ]; then ports=$PORT; else ports=$(seq $((22000 + $$ % 1000)) 7 $((22100 + $$ % 1000))); fi
        for port in $ports; do
                # SetEnv gives the far side botdesk's paths: the remote shell sees them as its own.
                cat >"$S/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $S/host_key
PidFile none
AuthorizedKeysFile $S/authorized_keys
StrictModes no
UsePAM yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin no
AllowUsers $U
AllowTcpForwarding no
X11Forwarding no
SetEnv PATH=$BD_T/stage/helper:/usr/bin:/bin XDG_RUNTIME_DIR=$UT/run XDG_STATE_HOME=$UT/state XDG_CONFIG_HOME=$UT/config BOTDESK_CONFIG=$UT/botdesk.ini BOTDESK_HELPER=$BD_T/stage/helper/botdesk-helper BOTDESK_SKEL_DIR=$BD_T/stage/conf/skel BOTDESK_PLACEMENT=standalone LC_ALL=C
EOF
                /usr/sbin/sshd -D -e -f "$S/sshd_config" 2>>"$BD_T/out/sshd.log" &
                SSHD_PID=$!
                bd_own_pid "$SSHD_PID"
                # Bounded: 5 s for sshd to listen on the port (its own socket) or to exit.
                for ((w = 0; w < 100; w++)); do
                        if tcp_listening "$SSHD_PID" "$port"; then
                                PORT=$port
                                return 0
                        fi
                        proc_alive "$SSHD_PID" || break
                        sleep 0.05
                done
                kill "$SSHD_PID" 2>/dev/null
                wait "$SSHD_PID" 2>/dev/null
                SSHD_PID=
        done
        return 1
}
stop_sshd() {
        [ -n "$SSHD_PID" ] || return 0
        kill "$SSHD_PID" 2>/dev/null
        wait "$SSHD_PID" 2>/dev/null
        SSHD_PID=
}
start_sshd || t_skip_all "sshd did not listen on 127.0.0.1: $(tail -n 3 "$BD_T/out/sshd.log")"

cat >"$S/config" <<EOF
Host bd-remote
  HostName 127.0.0.1
  Port $PORT
  User $U
  IdentityFile $S/user_key
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking yes
  UserKnownHostsFile $S/known_hosts
  ConnectTimeout 5
EOF
printf '[127.0.0.1]:%s %s\n' "$PORT" "$(cut -d' ' -f1,2 "$S/host_key.pub")" >"$S/known_hosts"

# The prefix's first words go to a wrapper that records them one per line
# and then runs the rest (ssh ...): quotes and spaces must arrive intact.
cat >"$S/wrap" <<EOF
#!/bin/sh
: >"$S/wrap.args"
while [ "\$1" != -- ]; do printf '%s\n' "\$1" >>"$S/wrap.args"; shift; done
shift
exec "\$@"
EOF
chmod 755 "$S/wrap"

bd_register "$P"
host_config() {
        bd_config
        printf '[profile.%s]\nplacement = %s\n' "$P" "$1" >>"$BOTDESK_CONFIG"
        printf 'exec = %s "a b" '\''c "d"'\'' e\\ f -- ssh -F %s -T bd-remote\n' "$S/wrap" "$S/config" >>"$BOTDESK_CONFIG"
}
host_config exec
"$BOTDESK" config check >"$BD_T/out/check" 2>&1
t_is "$?" 0 "the exec prefix (with quotes, spaces and a backslash) is a valid configuration"


# ---- start, status, env ------------------------------------------------------------------------
bd_start "$P"
rc=$?
t_is "$rc" 0 "botdesk start through the ssh prefix succeeds"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")" "the far helper's log: $(cat "$UT"/run/botdesk/"$P"/helper.log 2>&1 | tail -n 15)"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P"; tail -n 5 "$BD_T/out/sshd.log")"
t_is "$(cat "$S/wrap.args" 2>/dev/null | tr '\n' '|')" 'a b|c "d"|e f|' \
        "the prefix's quoted words reach it as single words, quotes and spaces intact"
RTOK=$(sed -n 's/^TOKEN=//p' "$UT/run/botdesk/$P/helper" 2>/dev/null)
t_ok "the owner record names the prefix" grep -qa "bd-remote" "$(bd_rt "$P")/owner"
t_is "$(stat -c %a "$(bd_rt "$P")/owner" 2>/dev/null)" 600 "the owner record is 0600"

timeout 60 "$BOTDESK" status "$P" --json >"$BD_T/out/status.json" 2>"$BD_T/out/status.err"
t_is "$?" 0 "status --json through the prefix succeeds"
t_match "$(cat "$BD_T/out/status.json")" '"running": true' "status comes from the far side: running"
t_match "$(cat "$BD_T/out/status.json")" "\"socket\": \"$UT/run/botdesk/$P/rfb.sock\"" \
        "status comes from the far side: botdesk-test's socket"
t_match "$(cat "$BD_T/out/status.json")" '"placement": "standalone"' "the far side reports its own placement"
RPID=$("$PY" -c 'import json,sys; print(json.load(sys.stdin)["pid"])' <"$BD_T/out/status.json" 2>/dev/null)
t_is "$(stat -c %U "/proc/$RPID" 2>/dev/null)" "$U" "the desktop's helper runs as botdesk-test, not as the caller"
t_is "$(helpers_of "$P" | wc -w)" 0 "no helper of this profile runs on this side's runtime dir"

env_out=$(timeout 60 "$BOTDESK" env "$P" 2>"$BD_T/out/env.err")
t_match "$env_out" "export XAUTHORITY='$UT/run/botdesk/$P/Xauthority'" "env comes from the far side"
t_match "$(timeout 60 "$BOTDESK" exec "$P" -- sh -c 'printf "%s|%s" "$(id -un)" "$1"' zero 'one "two" three' 2>&1)" \
        "^$U\\|one \"two\" three\$" "exec runs there as botdesk-test, its arguments word for word through ssh"

# ---- a real RFB client through the prefix ------------------------------------------------------
if bd_tcp_front "$P" v1 2>"$BD_T/out/front.err"; then
        timeout 60 gvnccapture "127.0.0.1:$((BD_FRONT_PORT - 5900))" "$BD_T/out/capture.png" >"$BD_T/out/capture.log" 2>&1
        rc=$?
        t_is "$rc" 0 "gvnccapture through socat and botdesk rfb over ssh succeeds"
        [ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/capture.log" "$BD_T/out/socat.err" 2>/dev/null)"
        size=$("$PY" -c '
import struct, sys
d = open(sys.argv[1], "rb").read(24)
print("%dx%d" % struct.unpack(">II", d[16:24]) if d[:8] == b"\x89PNG\r\n\x1a\n" else "not a PNG")' "$BD_T/out/capture.png" 2>&1)
        t_is "$size" 1024x768 "the framebuffer has the far desktop's size"
        kill "$BD_FRONT_PID" 2>/dev/null
        wait "$BD_FRONT_PID" 2>/dev/null
else
        t_fail "a loopback socat front for botdesk rfb" "$(cat "$BD_T/out/front.err")"
fi

# ---- a record that is not the setting is not run -----------------------------------------------
host_config host
timeout 60 "$BOTDESK" status "$P" --json >"$BD_T/out/status2.json" 2>&1
t_is "$?" 1 "after the setting changed to host, status refuses to run the owner record (exit 1)"
t_match "$(cat "$BD_T/out/status2.json")" \
        "owner record $(bd_rt "$P")/owner is not the configured prefix of $P \\(\\[profile.$P\\] placement = host\\)" \
        "...naming the record's file and the setting"
host_config exec
timeout 60 "$BOTDESK" status "$P" --json >"$BD_T/out/status2.json" 2>&1
t_match "$(cat "$BD_T/out/status2.json")" '"running": true' \
        "with the setting put back, status follows the owner record to the far side again"

# ---- botdesk web through ssh --------------------------------------------------------------------
# The page of the far desktop, served here: its lease and stream come through
# the prefix of the owner record, which is the setting's.
bd_web_placed "$P" "placed over ssh"
bd_web_placed_end

# ---- an unreachable far side -------------------------------------------------------------------
stop_sshd
timeout 60 "$BOTDESK" status "$P" --json >"$BD_T/out/status3.json" 2>"$BD_T/out/status3.err"
rc=$?
t_is "$rc" 0 "status of an unreachable owner succeeds"
t_match "$(cat "$BD_T/out/status3.json")" '"running": false' "an unreachable owner reads as not running"
t_match "$(cat "$BD_T/out/status3.json")" '"reason": "the exec prefix .*failed with exit status 255' \
        "...with the reason (ssh's failure)"
t_match "$(cat "$BD_T/out/status3.json")" '"placement": "exec"' "...and its placement is exec, never the host's"
timeout 60 "$BOTDESK" stop "$P" >"$BD_T/out/stop1.out" 2>"$BD_T/out/stop1.err"
t_is "$?" 1 "stop of an unreachable owner fails (exit 1)"
t_ok "...and keeps the owner record" test -f "$(bd_rt "$P")/owner"
t_ok "...while the far desktop still runs" proc_alive "$RPID"

# ---- stop there --------------------------------------------------------------------------------
start_sshd || t_fail "sshd listens again on port $PORT"
bd_stop "$P"
rc=$?
t_is "$rc" 0 "stop through the prefix succeeds once the far side is reachable again"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/$P.stop.err")"
t_ok "stop removes the owner record" test ! -e "$(bd_rt "$P")/owner"
left=$(remote_pids)
t_is "$left" "" "stop leaves nothing of botdesk-test's desktop running"
[ -z "$left" ] || t_diag "$(describe_pids $left)"

# ---- a refusal: nothing starts here ------------------------------------------------------------
host_config exec
stop_sshd
bd_start "$P"
rc=$?
t_is "$rc" 1 "start through an unreachable prefix is a refusal (exit 1)"
t_match "$(bd_err "$P")" "Nothing was started on this host" "...that says nothing was started here"
t_is "$(helpers_of "$P" | wc -w)$(xservers_of "$P" | wc -w)" 00 "...and nothing was started here"
t_ok "...and leaves no owner record" test ! -e "$(bd_rt "$P")/owner"

t_done
