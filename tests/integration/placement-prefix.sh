#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Placement by exec prefix with a plain local prefix (DESIGN section 15):
# a wrapper script of the test's own plays the sandbox (its own runtime dir
# and configuration, the same binaries). Its quoted words arrive as single
# words; start, status, env, lease and windows run on the far side; stop
# removes the owner record and leaves nothing there; botdesk mcp's stdio
# and botdesk clipboard's content cross the prefix (a build with input); a prefix that hangs is
# killed with its process group at the verb's deadline, and says so; a
# prefix without botdesk is a refusal that starts nothing here.
# Bands: 510-514 (610-614 unprivileged) (the far side's desktops).
. "$(dirname "$0")/lib.sh"
bd_init plx 510
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"

# The far side: its own runtime, state and configuration.
F=$BD_T/far
mkdir -m 700 "$F" "$F/run" "$F/state" "$F/config"
BOTDESK_CONFIG=$F/botdesk.ini bd_config
cat >"$BD_T/wrap" <<EOF
#!/bin/sh
: >"$BD_T/wrap.args"
while [ "\$1" != -- ]; do printf '%s\n' "\$1" >>"$BD_T/wrap.args"; shift; done
shift
export XDG_RUNTIME_DIR=$F/run XDG_STATE_HOME=$F/state XDG_CONFIG_HOME=$F/config BOTDESK_CONFIG=$F/botdesk.ini
export BOTDESK_PLACEMENT=standalone PATH=$(dirname "$BOTDESK"):\$PATH
exec "\$@"
EOF
# A prefix that never answers; it says who it is first.
printf '#!/bin/sh\necho $$ >"%s"\nexec sleep 600\n' "$BD_T/hang.pid" >"$BD_T/hang"
chmod 755 "$BD_T/wrap" "$BD_T/hang"

P=$(bd_profile a) H=$(bd_profile h) M=$(bd_profile m)
bd_config
{
        printf '[profile.%s]\nplacement = exec\n' "$P"
        printf 'exec = %s "a b" '\''c "d"'\'' e\\ f --\n' "$BD_T/wrap"
        printf '[profile.%s]\nplacement = exec\nexec = %s\n' "$H" "$BD_T/hang"
        printf '[profile.%s]\nplacement = exec\nexec = env PATH=/nonexistent\n' "$M"
} >>"$BOTDESK_CONFIG"
far_rt() { printf '%s/botdesk/%s' "$F/run" "$1"; }
# The far side's helper of PROFILE (its record is in the far runtime dir).
far_helper() { sed -n 's/^PID=//p' "$(far_rt "$1")/helper" 2>/dev/null | head -n1; }
# Registered for the cleanup: the far desktop is stopped through the prefix;
# what is left of it is killed by pid (its token, its X server's paths under $F).
bd_register "$P"
bd_far_cleanup "$P" "$F/run"

# ---- the cycle ---------------------------------------------------------------------------------
bd_start "$P"
rc=$?
t_is "$rc" 0 "start through a local prefix succeeds"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")"
t_is "$(tr '\n' '|' <"$BD_T/wrap.args" 2>/dev/null)" 'a b|c "d"|e f|' \
        "the prefix's quoted words arrive as single words, quotes and spaces intact"
t_ok "the owner record exists (0600)" test "$(stat -c %a "$(bd_rt "$P")/owner" 2>/dev/null)" = 600
FPID=$(far_helper "$P")
FAR_TOKEN=$(sed -n 's/^TOKEN=//p' "$(far_rt "$P")/helper" 2>/dev/null)
t_ok "the desktop's helper runs on the far side" proc_alive "$FPID"
t_is "$(helpers_of "$P" | wc -w)" 0 "no helper of this profile runs on this side's runtime dir"
t_match "$(timeout 60 "$BOTDESK" status "$P" --json 2>&1)" "\"socket\": \"$(far_rt "$P")/rfb.sock\"" \
        "status comes from the far side"
t_match "$(timeout 60 "$BOTDESK" env "$P" 2>&1)" "export XAUTHORITY='$(far_rt "$P")/Xauthority'" "env comes from the far side"
t_match "$(timeout 60 "$BOTDESK" lease "$P" show --json 2>&1)" '"holder": "agent"' "lease runs on the far side"
timeout 60 "$BOTDESK" windows "$P" --json >"$BD_T/out/windows" 2>&1
rc=$?
t_is "$rc" 0 "windows runs on the far side"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/windows")"
all=$(timeout 60 "$BOTDESK" status --json 2>"$BD_T/out/all.err")
t_is "$("$PY" -c '
import json, sys
d = {o["profile"]: o for o in json.loads(sys.argv[1])}
print(d[sys.argv[2]]["running"], d[sys.argv[2]]["socket"])' "$all" "$P" 2>&1)" "True $(far_rt "$P")/rfb.sock" \
        "status --json of all profiles is one JSON array, the placed profile's entry from the far side"
t_match "$(timeout 60 "$BOTDESK" status 2>&1)" "RFB socket: $(far_rt "$P")/rfb.sock" \
        "status of all profiles reports the placed profile from the far side"
timeout 60 "$BOTDESK" exec "$P" -- sh -c 'exit 7'
t_is "$?" 7 "exit codes pass through the prefix"
# A build with input builds the recorder: then it has botdesk mcp and clipboard too.
if [ -x "${BOTDESK_INPUT_RECORDER:-$BD_BUILD_DIR/tests/integration/input-recorder}" ]; then
        printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "method": "ping"}' \
                '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "status", "arguments": {}}}' |
                timeout 60 "$BOTDESK" mcp "$P" >"$BD_T/out/mcp" 2>&1
        t_is "$("$PY" -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
print(d[0]["result"], json.loads(d[1]["result"]["content"][0]["text"])["control"])' "$BD_T/out/mcp" 2>&1)" "{} agent" \
                "botdesk mcp runs on the far side, its messages crossing the prefix on stdin and stdout"
        printf 'Grüße through the prefix' | timeout 60 "$BOTDESK" clipboard "$P" set
        t_is "$(timeout 60 "$BOTDESK" clipboard "$P" get 2>&1)" "Grüße through the prefix" \
                "botdesk clipboard set and get run on the far side, the content crossing the prefix"
fi

bd_stop "$P"
t_is "$?" 0 "stop through the prefix succeeds"
t_ok "stop removes the owner record" test ! -e "$(bd_rt "$P")/owner"
t_ok "the far helper is gone" test -z "$(proc_starttime "$FPID")"
t_is "$(token_pids "$FAR_TOKEN")" "" "nothing of the far desktop runs"

# ---- a prefix that hangs -----------------------------------------------------------------------
t0=$(date +%s)
out=$(timeout 60 "$BOTDESK" status "$H" --json --timeout 2 2>&1)
rc=$?
t_is "$rc" 0 "status through a hanging prefix returns"
t_match "$out" '"running": false' "...reads as not running"
t_match "$out" 'did not finish within 2 s and was killed with its process group' "...and says the prefix was killed"
t_ok "...at its deadline (2 s), not later than 10 s" test $(($(date +%s) - t0)) -lt 10
hp=$(cat "$BD_T/hang.pid" 2>/dev/null)
t_ok "the hanging prefix was killed" test -n "$hp" -a -z "$(proc_starttime "$hp")"
timeout 60 "$BOTDESK" env "$H" --timeout 2 >"$BD_T/out/hang-env" 2>&1
t_is "$?" 1 "env through a hanging prefix fails (exit 1)"
t_match "$(cat "$BD_T/out/hang-env")" 'did not finish within 2 s' "...and says why"

# ---- botdesk missing on the far side -----------------------------------------------------------
bd_start "$M"
t_is "$?" 1 "start where botdesk is missing on the far side is a refusal (exit 1)"
t_match "$(bd_err "$M")" "not found on the other side.*install botdesk there.*Nothing was started on this host" \
        "...that says what to install"
t_is "$(helpers_of "$M" | wc -w)$(xservers_of "$M" | wc -w)" 00 "...and nothing was started on this host"
t_ok "...and no owner record is left" test ! -e "$(bd_rt "$M")/owner"

# ---- an owner record that is not the setting's prefix ------------------------------------------
# The runtime dir is writable from inside a desktop: a record there that names
# a command of its own (here: touch a marker) is refused, never run, by every
# placed verb, whatever the setting (another prefix, or placement = host).
K=$(bd_profile k) Q=$(bd_profile q)
# Without the hanging prefix, whose status of all profiles would wait its 30 s.
sed -i "/^\\[profile.$H\\]\$/,+2d" "$BOTDESK_CONFIG"
printf '[profile.%s]\nplacement = exec\nexec = %s --\n' "$K" "$BD_T/wrap" >>"$BOTDESK_CONFIG"
MARKER=$BD_T/owner-marker
forge() {
        mkdir -p -m 700 "$(bd_rt "$1")"
        printf 'botdesk-owner 1\0003\000/bin/sh\000-c\000touch %s\000\000' "$MARKER" >"$(bd_rt "$1")/owner"
        chmod 600 "$(bd_rt "$1")/owner"
}
forge "$K"
forge "$Q"
timeout 60 "$BOTDESK" status "$K" >"$BD_T/out/forged" 2>&1
t_is "$?" 1 "status of a profile whose owner record is another prefix than its exec fails (exit 1)"
t_match "$(cat "$BD_T/out/forged")" "owner record $(bd_rt "$K")/owner is not the configured prefix of $K \\(\\[profile.$K\\] exec = $BD_T/wrap --\\)" \
        "...naming the record's file and the configured value"
timeout 60 "$BOTDESK" status "$Q" >"$BD_T/out/forged-host" 2>&1
t_is "$?" 1 "so does status of a host profile with an owner record"
t_match "$(cat "$BD_T/out/forged-host")" "\\[profile.$Q\\] placement = host" "...naming placement = host"
timeout 60 "$BOTDESK" status --json >"$BD_T/out/forged-all" 2>&1
t_match "$(cat "$BD_T/out/forged-all")" "\"reason\": \"its owner record is not the configured exec prefix" \
        "status of all profiles reports the record refused"
t_ok "none of them ran the record's command" test ! -e "$MARKER"
timeout 60 "$BOTDESK" stop "$K" --force >"$BD_T/out/forged-stop" 2>&1
t_is "$?" 0 "stop --force forgets such a record" || t_diag "$(cat "$BD_T/out/forged-stop")"
t_ok "...removing it" test ! -e "$(bd_rt "$K")/owner"
timeout 60 "$BOTDESK" stop "$Q" --force >/dev/null 2>&1
t_ok "...without running it" test ! -e "$MARKER"
t_done
