#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A gateway's home scopes its profiles (BOTDESK_HOME): two gateways that
# both name a profile "a" get two desktops, PROFILE.SCOPE each (SCOPE the
# first 8 hex digits of the SHA-256 of the home's path), with their own
# display, runtime dir and ticket URLs, the one [profile.NAME] section of
# the configuration for both, and a stop of one leaves the other; without
# BOTDESK_HOME the name is the profile's own, and a relative home is a
# usage error. Band 790, once: what varies is the name, not the caller.
. "$(dirname "$0")/lib.sh"
bd_init home 790 once
bd_need_xserver
bd_need sha256sum
bd_config
P=$(bd_profile a)
HOME_A=$BD_T/gateway-a
HOME_B=$BD_T/gateway-b/
printf '[profile.%s]\ngeometry = 800x600\n' "$P" >>"$BOTDESK_CONFIG"
scope() { printf '%s' "${1%/}" | sha256sum | cut -c1-8; }
PA=$P.$(scope "$HOME_A")
PB=$P.$(scope "$HOME_B")
bd_register "$PA"
bd_register "$PB"
json_get() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
in_home() { local h=$1; shift; BOTDESK_HOME=$h timeout 60 "$BOTDESK" "$@"; }

in_home "$HOME_A" start "$P" >"$BD_T/out/a.start" 2>&1
t_is "$?" 0 "a start of $P under gateway A's home" || t_diag "$(cat "$BD_T/out/a.start")"
in_home "$HOME_B" start "$P" >"$BD_T/out/b.start" 2>&1
t_is "$?" 0 "a start of $P under gateway B's home (its path with a trailing slash)" || t_diag "$(cat "$BD_T/out/b.start")"
SA=$(in_home "$HOME_A" status "$P" --json)
SB=$(in_home "$HOME_B" status "$P" --json)
t_is "$(json_get 'd["profile"], d["running"]' <<<"$SA")" "('$PA', True)" \
        "A's status names its desktop $PA: the profile, a dot, 8 hex digits of the SHA-256 of its home"
t_is "$(json_get 'd["profile"], d["running"]' <<<"$SB")" "('$PB', True)" "B's is $PB, running beside it"
t_ok "... each with a display of its own" test "$(json_get 'd["display"]' <<<"$SA")" != "$(json_get 'd["display"]' <<<"$SB")"
t_ok "... and a runtime dir of its own" eval 'test -d "$(bd_rt "$PA")" && test -d "$(bd_rt "$PB")"'
t_is "$(json_get 'd["geometry"]' <<<"$SA") $(json_get 'd["geometry"]' <<<"$SB")" "800x600 800x600" \
        "the one [profile.$P] section of the configuration is both desktops'"
t_is "$(json_get '(d["profile"], d["running"])' <<<"$(timeout 20 "$BOTDESK" status "$P" --json)")" "('$P', False)" \
        "without BOTDESK_HOME, $P is the profile's own name: not running"
t_is "$(json_get 'd["running"]' <<<"$(timeout 20 "$BOTDESK" status "$PA" --json)")" True \
        "the scoped name itself reaches A's desktop without BOTDESK_HOME"
BOTDESK_HOME=relative/home timeout 20 "$BOTDESK" status "$P" >/dev/null 2>"$BD_T/out/rel.err"
t_is "$?" 2 "a relative BOTDESK_HOME is a usage error (2)"
t_match "$(cat "$BD_T/out/rel.err")" "BOTDESK_HOME must be an absolute path" "... saying so"
t_match "$(in_home "$HOME_B" web ticket "$P" --viewer gw 2>&1)" "/$PB/\\?ticket=" "B's web ticket is for its own desktop's page"
in_home "$HOME_A" stop "$P" >/dev/null 2>&1
t_is "$?" 0 "A's stop of $P"
t_is "$(json_get 'd["running"]' <<<"$(in_home "$HOME_A" status "$P" --json)")" False "... stops A's desktop"
t_is "$(json_get 'd["running"]' <<<"$(in_home "$HOME_B" status "$P" --json)")" True "... and leaves B's running"
in_home "$HOME_B" stop "$P" >/dev/null 2>&1
t_is "$?" 0 "B's stop of $P"
t_done
