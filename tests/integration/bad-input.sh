#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Bad input is refused early and clearly: invalid profile names (exit 2, one
# line, no file touched), configuration errors (exit 2, file:line), verbs on a
# desktop that does not run (exit 4), unknown verbs (exit 2), and a stop of a
# profile never started (exit 0).
. "$(dirname "$0")/lib.sh"
bd_init bad 75
bd_config

run() { # run NAME CMD...: exit code in $RC, stderr in $ERR, stdout in $OUT
        local name=$1
        shift
        timeout 30 "$@" >"$BD_T/out/$name.out" 2>"$BD_T/out/$name.err"
        RC=$?
        OUT=$(cat "$BD_T/out/$name.out")
        ERR=$(cat "$BD_T/out/$name.err")
}

long=$(printf 'a%.0s' $(seq 33))
i=0
for name in '..' 'a/b' '' "$long" 'é' '.' '-a' '_a' 'a b' '../x' 'x/../y'; do
        i=$((i + 1))
        for verb in start stop status env; do
                run "n$i$verb" "$BOTDESK" "$verb" "$name"
                t_is "$RC" 2 "$verb \"$name\" exits 2"
                t_is "$(printf '%s\n' "$ERR" | grep -c .)" 1 "$verb \"$name\": the message is one line"
                [ "$verb" = start ] && [ "${name#-}" = "$name" ] && t_match "$ERR" 'nvalid profile name' "$verb \"$name\": the message says the name is invalid"
        done
        run "n${i}exec" "$BOTDESK" exec "$name" -- true
        t_is "$RC" 125 "exec \"$name\" -- true exits 125 (exec's own usage error)"
done
left=$(find "$XDG_RUNTIME_DIR" "$XDG_STATE_HOME" -mindepth 1 2>/dev/null)
t_is "$left" "" "no runtime or state file was created for any invalid name"
run n32 "$BOTDESK" stop "$(printf 'b%.0s' $(seq 32))"
t_is "$RC" 0 "33 characters are refused but 32 are accepted (stop exits 0)"

# Configuration errors name the file and the line.
printf '[display]\nband = banana\n[session]\ncommand_settle_ms = 200\n' >"$BOTDESK_CONFIG"
P=$(bd_profile c)
run cfg1 "$BOTDESK" start "$P"
t_is "$RC" 2 "start with an invalid band value exits 2"
t_match "$ERR" "$BOTDESK_CONFIG:2" "the message names $BOTDESK_CONFIG:2"
t_diag "$ERR"
printf '[session]\ndesktop = command\ncommand = sleep infinity\nno_such_key = 1\n' >"$BOTDESK_CONFIG"
run cfg2 "$BOTDESK" start "$P"
t_is "$RC" 2 "start with an unknown key exits 2"
t_match "$ERR" "$BOTDESK_CONFIG:4" "the message names $BOTDESK_CONFIG:4"
t_is "$(helpers_of "$P")" "" "no helper was started for a bad configuration"
t_ok "no runtime env exists for it" test ! -e "$(bd_rt "$P")/env"
bd_config

# Verbs on desktops that do not run.
run env4 "$BOTDESK" env "$(bd_profile nosuch)"
t_is "$RC" 4 "env of a profile that does not run exits 4"
t_is "$OUT" "" "env prints nothing on stdout for it"
run envj4 "$BOTDESK" env --json "$(bd_profile nosuch)"
t_is "$RC" 4 "env --json of a profile that does not run exits 4"
run exec4 "$BOTDESK" exec "$(bd_profile nosuch)" -- true
t_is "$RC" 125 "exec of a profile that does not run exits 125 (its own failure, never a status its command could have)"
run exec2 "$BOTDESK" exec "$(bd_profile nosuch)" --
t_is "$RC" 125 "exec without a command exits 125"
run verb "$BOTDESK" frobnicate "$(bd_profile x)"
t_is "$RC" 2 "an unknown verb exits 2"
t_match "$ERR" 'frobnicate' "the message names the unknown verb"
run none "$BOTDESK"
t_is "$RC" 2 "no verb at all exits 2"
run noprof "$BOTDESK" start
t_is "$RC" 2 "start without a profile exits 2"
run opt "$BOTDESK" start "$(bd_profile x)" --no-such-option
t_is "$RC" 2 "an unknown option exits 2"
run tmo "$BOTDESK" start "$(bd_profile x)" --timeout 0
t_is "$RC" 2 "--timeout 0 exits 2"
run stop0 "$BOTDESK" stop "$(bd_profile never)"
t_is "$RC" 0 "stop of a profile never started exits 0"
run st0 "$BOTDESK" status --json "$(bd_profile never)"
t_is "$RC" 0 "status of a profile never started exits 0"
t_match "$OUT" '"running": false' "and says it is not running"
# The system files are the ones the build was configured for (--sysconfdir),
# and an error about a host-wide key in the user's file names them.
sysconf=$(sed -n 's/^#define BOTDESK_CONFIG_PATH "\(.*\)"$/\1/p' "$BD_BUILD_DIR/botdesk-config.h" 2>/dev/null)
mkdir -p "$XDG_CONFIG_HOME/botdesk"
printf '[display]\nband = 20-30\n' >"$XDG_CONFIG_HOME/botdesk/botdesk.ini"
run hostwide "$BOTDESK" config check
t_is "$RC" 2 "a host-wide key in the user's file is a configuration error"
[ -n "$sysconf" ] || sysconf="(BOTDESK_CONFIG_PATH not found in botdesk-config.h)"
t_match "$ERR" "host-wide and may only be set in a system file: ${sysconf%.ini}/botdesk.ini, its drop-ins or $sysconf\$" \
        "the error names the system files of the configured sysconfdir, $sysconf among them"
rm -f "$XDG_CONFIG_HOME/botdesk/botdesk.ini"

# [network]: a bad entry names FILE:LINE and the rule (2); standalone, where nothing enforces a policy,
# a start that needs one is refused (3) and starts nothing; `network set` needs a running desktop (4).
net_bad() { # net_bad LINE PATTERN TEXT: the configuration TEXT is refused at LINE for PATTERN
        printf '%b' "$3" >"$BOTDESK_CONFIG"
        run netbad "$BOTDESK" start "$P"
        t_is "$RC" 2 "[network] $(sed -n "$1p" "$BOTDESK_CONFIG") is a configuration error"
        t_match "$ERR" "$BOTDESK_CONFIG:$1: .*$2" "... at $BOTDESK_CONFIG:$1, saying $2 ($(head -n1 <<<"$ERR"))"
}
net_bad 3 'bits set past its /8' '[network]\nmode = allowlist\nallow = 10.0.0.1/8\n'
net_bad 2 'wildcard is one' '[network]\nallow = *.*.example.org\n'
net_bad 2 'two labels or more' '[network]\nallow = *.org\n'
net_bad 2 'neither an address range nor a domain name' '[network]\nallow = 10.0.0.0/8 under_score.example\n'
net_bad 2 'domain names only in allow' '[network]\ndeny = example.org\n'
net_bad 2 'not open, allowlist or offline' '[network]\nmode = closed\n'
net_bad 3 'prefix length is not 0..128' '[profile.x]\n[network]\ndeny = 2001:db8::/129\n'
net_refused() { # net_refused PATTERN TEXT: standalone, the start is refused for PATTERN
        printf '[session]\ndesktop = command\ncommand = sleep infinity\n%b' "$2" >"$BOTDESK_CONFIG"
        run netref "$BOTDESK" start "$P"
        t_is "$RC" 3 "standalone, a start with $(tr '\n' ' ' <<<"$2") is refused with 3"
        t_match "$ERR" "$1" "... saying $1 ($ERR)"
        t_is "$(helpers_of "$P")" "" "... and no helper was started"
}
net_refused 'standalone .*nothing enforces \[network\] mode = offline' '[network]\nmode = offline\n'
net_refused 'standalone .*mode = allowlist' '[network]\nmode = allowlist\nallow = 10.0.0.0/8\n'
net_refused 'standalone .*mode = open with deny' '[network]\ndeny = 192.0.2.0/24\n'
net_refused 'standalone .*mode = allowlist' '[network]\nmode = allowlist\nallow = example.org\n'
printf '[network]\nmode = allowlist\nallow = 10.0.0.0/8, 2001:db8::/32\ndeny = 192.0.2.0/24\n' >"$BOTDESK_CONFIG"
run netshow "$BOTDESK" network "$P" --json
t_is "$RC" 0 "network show exits 0 for a desktop that is not running"
t_is "$OUT" "{\"profile\": \"$P\", \"network\": {\"mode\": \"allowlist\", \"allow\": [\"10.0.0.0/8\", \"2001:db8::/32\"], \"deny\": [\"192.0.2.0/24\"]}}" \
        "network show --json gives the configuration's policy"
run netstatus "$BOTDESK" status "$P" --json
t_match "$OUT" '"network": \{"mode": "allowlist", "allow": \["10.0.0.0/8", "2001:db8::/32"\]' "status --json carries the policy"
run netset "$BOTDESK" network "$P" set mode=offline
t_is "$RC" 4 "network set on a desktop that is not running exits 4"
t_match "$ERR" 'applies at its next start' "... and says the configuration applies at the next start"
run netset2 "$BOTDESK" network "$P" set mode=closed
t_is "$RC" 2 "network set mode=closed is a usage error"
run netset3 "$BOTDESK" network "$P" set colour=red
t_match "$ERR" 'unknown key "colour"' "network set names an unknown key ($ERR)"
: >"$BOTDESK_CONFIG"

# Before the verb, only --help and --version: anything else says where options go.
run preverb "$BOTDESK" --json status x
t_is "$RC" 2 "an option before the verb is a usage error"
t_match "$ERR" "options follow it" "... that says options follow the verb ($ERR)"
run version "$BOTDESK" --version
t_match "$OUT" '^botdesk [0-9]' "botdesk --version prints the version"

# An inherited JOURNAL_STREAM that is not our stderr (a unit's child whose
# stderr went to a file or terminal) must not put journal priorities there.
run journal env JOURNAL_STREAM=1:1 "$BOTDESK" status 'a b'
t_is "$RC" 2 "with a stale JOURNAL_STREAM, a bad name still exits 2"
t_match "$ERR" '^botdesk: ' "with a stale JOURNAL_STREAM, stderr carries no '<N>' journal priority ($ERR)"

t_done
