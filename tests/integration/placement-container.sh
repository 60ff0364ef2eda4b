#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# placement = podman (or docker, with "docker" as the argument), root only:
# botdesk makes the profile's container from
# [placement] image (the image of scripts/build-image.sh, built once and then
# reused from its cache), labelled with the profile and the image, with no
# capability and not on the host's network, and starts the desktop inside
# through `ENGINE exec`. status --json says placement_kind and image; the
# container is kept across a stop and a start (same id); a changed image is
# an image_switch while the desktop runs and is applied by the next start
# after a stop, or by a restart; a container removed behind botdesk's back is "does not
# exist" in status and made again by the next start; stop --remove removes
# it. An image that does not exist is a clear error that leaves no
# container; a container of that name botdesk did not make is refused (3)
# and not touched; placement = refuse refuses every verb (3).
# Podman on these machines needs runc and explicit ulimits (recipes/podman.md):
# a containers.conf of the test's own (CONTAINERS_CONF) says so, so that
# what botdesk runs is a plain `podman run`. Docker runs as a daemon of the
# test's own (lib-engine.sh: bd_dockerd), reached through DOCKER_HOST.
# Bands: 525-529 on this host (nothing starts here); inside, the image's defaults.
. "$(dirname "$0")/lib.sh"
ENGINE=${1:-podman}
case $ENGINE in podman|docker) ;; *) echo "placement-container.sh: podman or docker, not $ENGINE" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || t_skip_all "needs root ($ENGINE, mmdebstrap --mode=root)"
bd_init plc 525 once
bd_need "$ENGINE" runc mmdebstrap
[ -n "$PY" ] || t_skip_all "python3 not installed"
if [ "$ENGINE" = docker ]; then
        bd_need dockerd
        bd_dockerd
else
        bd_podman_conf
fi
eng() { "$ENGINE" "$@"; }

IMG=botdesk:test
bd_image "$IMG" "$ENGINE"
# A second name of the same image, for the switch; removed at exit (the image stays, under its first name).
IMG2=localhost/botdesk-it-plc-$$:switched
eng tag "$IMG" "$IMG2"

P=$(bd_profile a)
Q=$(bd_profile foreign)
N=$(bd_profile nosuch)
R=$(bd_profile refused)
uid=$(id -u)
C=botdesk-$uid-$P CQ=botdesk-$uid-$Q CN=botdesk-$uid-$N
plc_cleanup() {
        local rc=$?
        trap - EXIT
        for p in "$P" "$Q" "$N"; do timeout 60 "$BOTDESK" stop --force "$p" >/dev/null 2>&1; done
        # By name: each is this test's own (botdesk-UID-PROFILE, the profile named by this test's run).
        # One at a time: one already gone must not keep the others.
        for c in "$C" "$CQ" "$CN"; do eng rm -f "$c" >/dev/null 2>&1; done
        eng rmi "$IMG2" >/dev/null 2>&1
        bd_dockerd_stop
        (exit $rc)
        bd_cleanup
}
trap plc_cleanup EXIT
bd_register "$P"
bd_config
printf '[profile.%s]\nplacement = %s\nimage = %s\n' "$P" "$ENGINE" "$IMG" >>"$BOTDESK_CONFIG"
printf '[profile.%s]\nplacement = %s\nimage = %s\n' "$Q" "$ENGINE" "$IMG" >>"$BOTDESK_CONFIG"
printf '[profile.%s]\nplacement = %s\nimage = localhost/botdesk-no-such-image:0\n' "$N" "$ENGINE" >>"$BOTDESK_CONFIG"
printf '[profile.%s]\nplacement = refuse\n' "$R" >>"$BOTDESK_CONFIG"

cid() { eng inspect --format '{{.Id}}' "$1" 2>/dev/null; }
status() { timeout 60 "$BOTDESK" status "$P" --json 2>"$BD_T/out/status.err"; }
field() { "$PY" -c 'import json, sys; v = json.loads(sys.stdin.read())
for k in sys.argv[1].split("."): v = v[k] if v is not None else None
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v)' "$1"; }

# ---- before the first start, and the first start ---------------------------------------------------
t_is "$(status | field running)" false "before any start, status says not running"
t_match "$(status | field reason)" "container $C does not exist" "...because its container does not exist"
t_is "$(status | field placement_kind)" container:$ENGINE "...and placement_kind is container:$ENGINE"
timeout 300 "$BOTDESK" start "$P" >"$BD_T/out/start.out" 2>"$BD_T/out/start.err"
rc=$?
t_is "$rc" 0 "botdesk start with placement = $ENGINE makes the container and starts the desktop in it"
[ "$rc" = 0 ] || { t_diag "$(cat "$BD_T/out/start.err")"; t_done; }
ID1=$(cid "$C")
t_ok "the container is named botdesk-UID-PROFILE ($C)" test -n "$ID1"
t_is "$(eng inspect --format '{{index .Config.Labels "io.botdesk.profile"}} {{index .Config.Labels "io.botdesk.image"}}' "$C")" \
        "$P $IMG" "it is labelled with the profile and the image"
if [ "$ENGINE" = podman ]; then
        t_is "$(eng inspect --format '{{.EffectiveCaps}}' "$C")" "[]" "it has no capability"
else
        t_is "$(eng inspect --format '{{.HostConfig.CapDrop}} {{.HostConfig.CapAdd}}' "$C")" "[ALL] []" \
                "it has no capability (all dropped, none added)"
fi
t_isnt "$(eng inspect --format '{{.HostConfig.NetworkMode}}' "$C")" host "it is not on the host's network"
t_match "$(eng exec "$C" ps -e -o pid=,args=)" "botdesk-helper $P" "the desktop's helper runs inside it"
t_is "$(eng exec "$C" sh -c 'for p in xfce4-terminal thunar mousepad xdpyinfo xset; do command -v $p >/dev/null || echo $p; done
        test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || echo fonts-dejavu-core' 2>&1)" "" \
        "the image has the everyday programs botdesk install puts in (a terminal, files, an editor, fonts, x11 utilities)"
st=$(status)
t_is "$(field running <<<"$st")" true "status --json: running"
t_is "$(field placement_kind <<<"$st")/$(field image <<<"$st")/$(field image_switch <<<"$st")" \
        "container:$ENGINE/$IMG/null" "...placement_kind container:$ENGINE, image $IMG, no image switch"
t_is "$(field placement <<<"$st")" standalone "...placement, from inside, standalone"
timeout 60 "$BOTDESK" status --json >"$BD_T/out/all.json" 2>"$BD_T/out/all.err"
t_is "$("$PY" -c 'import json, sys; print([s["placement_kind"] for s in json.load(open(sys.argv[1])) if s["profile"] == sys.argv[2]])' \
        "$BD_T/out/all.json" "$P" 2>&1)" "['container:$ENGINE']" "status of every profile says the same of it"
timeout 60 "$BOTDESK" thumbnail "$P" -o "$BD_T/out/shot.png" >/dev/null 2>"$BD_T/out/thumb.err"
t_is "$?" 0 "thumbnail -o through the container succeeds"
t_is "$(head -c 8 "$BD_T/out/shot.png" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "...a PNG of the desktop inside"

# ---- kept across a stop and a start ------------------------------------------------------------------
timeout 120 "$BOTDESK" stop "$P" >/dev/null 2>"$BD_T/out/stop.err"
t_is "$?" 0 "stop succeeds"
t_is "$(cid "$C")" "$ID1" "the container is kept after the desktop stops"
timeout 300 "$BOTDESK" start "$P" >/dev/null 2>"$BD_T/out/start2.err"
t_is "$?" 0 "start again succeeds"
t_is "$(cid "$C")" "$ID1" "...in the same container"

# ---- the image changes -----------------------------------------------------------------------------
sed -i "s|^image = $IMG\$|image = $IMG2|" "$BOTDESK_CONFIG"
grep -q "^image = $IMG2\$" "$BOTDESK_CONFIG" || t_fail "the test's configuration names $IMG2" "$(cat "$BOTDESK_CONFIG")"
st=$(status)
t_is "$(field running <<<"$st")/$(field image <<<"$st")" "true/$IMG2" "after the image changed, the desktop still runs; image is the new one"
t_is "$(field image_switch.running <<<"$st")/$(field image_switch.wanted <<<"$st")/$(field image_switch.restart_pending <<<"$st")" \
        "$IMG/$IMG2/true" "image_switch: the running image, the wanted one, a restart pending"
t_is "$(cid "$C")" "$ID1" "...and its container is untouched while the desktop runs"
timeout 120 "$BOTDESK" stop "$P" >/dev/null 2>&1
timeout 300 "$BOTDESK" start "$P" >/dev/null 2>"$BD_T/out/start3.err"
t_is "$?" 0 "the next start after a stop succeeds"
ID2=$(cid "$C")
t_isnt "$ID2" "$ID1" "...in a container made again"
t_is "$(eng inspect --format '{{index .Config.Labels "io.botdesk.image"}}' "$C")" "$IMG2" "...from the new image"
t_is "$(status | field image_switch)" null "...and status has no image switch any more"
# A restart applies a pending switch: the desktop stopped there, the container made again, a start.
sed -i "s|^image = $IMG2\$|image = $IMG|" "$BOTDESK_CONFIG"
t_is "$(status | field image_switch.restart_pending)" true "the image changed back: a switch is pending again"
timeout 300 "$BOTDESK" restart "$P" --json >"$BD_T/out/restart.json" 2>"$BD_T/out/restart.err"
rc=$?
t_is "$rc" 0 "restart applies it"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/restart.err")"
ID3=$(cid "$C")
t_isnt "$ID3" "$ID2" "...in a container made again"
t_is "$(eng inspect --format '{{index .Config.Labels "io.botdesk.image"}}' "$C")" "$IMG" "...from the configured image"
t_is "$(field running <"$BD_T/out/restart.json")/$(field placement_kind <"$BD_T/out/restart.json")/$(field image_switch <"$BD_T/out/restart.json")" \
        "true/container:$ENGINE/null" "restart --json answers this side's status object: running, placement_kind, no switch"

# ---- removed behind botdesk's back -----------------------------------------------------------------
eng rm -f "$C" >/dev/null 2>&1
st=$(status)
t_is "$(field running <<<"$st")" false "a container removed behind botdesk's back: status says not running"
t_match "$(field reason <<<"$st")" "does not exist" "...because the container does not exist"
timeout 60 "$BOTDESK" thumbnail "$P" -o "$BD_T/out/gone.png" >/dev/null 2>"$BD_T/out/gone.err"
t_is "$?" 4 "thumbnail of it exits 4 (not running)"
timeout 300 "$BOTDESK" start "$P" >/dev/null 2>"$BD_T/out/start4.err"
rc=$?
t_is "$rc" 0 "the next start makes the container again"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/start4.err")"
t_is "$(status | field running)" true "...and the desktop runs in it"

# ---- stop --remove ---------------------------------------------------------------------------------
timeout 120 "$BOTDESK" stop "$P" --remove >/dev/null 2>"$BD_T/out/remove.err"
t_is "$?" 0 "stop --remove succeeds"
t_is "$(cid "$C")" "" "...and the container is gone"
timeout 60 "$BOTDESK" stop "$P" --remove >/dev/null 2>&1
t_is "$?" 0 "stop --remove of a profile without a container is done at once"

# ---- bad input ---------------------------------------------------------------------------------------
timeout 300 "$BOTDESK" start "$N" >/dev/null 2>"$BD_T/out/nosuch.err"
t_is "$?" 1 "an image that does not exist: start exits 1"
t_match "$(cat "$BD_T/out/nosuch.err")" "Cannot make container $CN from image localhost/botdesk-no-such-image:0" \
        "...saying which container and image"
t_is "$(grep -c . "$BD_T/out/nosuch.err")" 2 "...in two lines: what it tried, and why it failed"
t_is "$(cid "$CN")" "" "...and no container is left"
eng run -d --name "$CQ" "$IMG" >/dev/null 2>&1
IDQ=$(cid "$CQ")
timeout 60 "$BOTDESK" start "$Q" >/dev/null 2>"$BD_T/out/foreign.err"
t_is "$?" 3 "a container of that name botdesk did not make: start is refused (3)"
t_match "$(cat "$BD_T/out/foreign.err")" "botdesk did not make it for profile $Q.*not touched" "...saying it is not touched"
t_is "$(cid "$CQ")" "$IDQ" "...and it is not touched"
timeout 60 "$BOTDESK" stop "$Q" --remove >/dev/null 2>&1
t_is "$?" 3 "stop --remove of it is refused too"
t_is "$(cid "$CQ")" "$IDQ" "...and it is still there"
timeout 60 "$BOTDESK" start "$R" >/dev/null 2>"$BD_T/out/refuse.err"
t_is "$?" 3 "placement = refuse: start exits 3"
t_match "$(cat "$BD_T/out/refuse.err")" "placement = refuse" "...naming the placement"
timeout 60 "$BOTDESK" status "$R" --json >"$BD_T/out/refuse.json" 2>/dev/null
t_is "$?/$(field placement_kind <"$BD_T/out/refuse.json")" 3/refused "...and status exits 3 with placement_kind refused"
printf '[profile.%s]\nplacement = host\n' "$(bd_profile h)" >>"$BOTDESK_CONFIG"
timeout 60 "$BOTDESK" stop "$(bd_profile h)" --remove >/dev/null 2>"$BD_T/out/hostremove.err"
t_is "$?" 2 "stop --remove of a desktop on this host is a usage error"
t_done
