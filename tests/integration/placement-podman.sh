#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Placement by exec prefix into a podman container (DESIGN section 15), root
# only: the image from scripts/build-image.sh (built once, then reused from
# its cache) runs as a container of this test's own (--init, runc and
# explicit ulimits per call: recipes/podman.md). A profile with placement =
# exec and exec = podman exec -i NAME starts its desktop inside; status
# (placement standalone, from inside), env and thumbnail come from there;
# the owner record carries the container's id; gvnccapture reads the
# framebuffer through `botdesk rfb` over the prefix; thumbnail -o FILE
# writes FILE on this host; stop leaves nothing
# running in the container; a removed container makes status say why it is
# not running; a container that is not running, and one without botdesk on
# its PATH, are refusals (exit 1) that start nothing on this host.
# botdesk web serves the desktop inside (lease, stream, Take over, Hand
# back through podman exec); once the container is removed, or for one
# that does not run, its lease is answered with the prefix's error and its
# stream closes with 4001, starting nothing on this host.
# Bands: 505-509 (inside the container).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || t_skip_all "needs root (podman, mmdebstrap --mode=root)"
bd_init plp 505
bd_need podman runc mmdebstrap socat gvnccapture
[ -n "$PY" ] || t_skip_all "python3 not installed"

IMG=botdesk:test
bd_image "$IMG"

# Containers of this test only, removed by name at exit.
C=botdesk-it-plp-$$
C2=botdesk-it-plp2-$$
plp_cleanup() {
        local rc=$?
        trap - EXIT
        for p in $(cat "$BD_T/profiles" 2>/dev/null); do timeout 60 "$BOTDESK" stop --force "$p" >/dev/null 2>&1; done
        podman rm -f -t 0 "$C" "$C2" >/dev/null 2>&1
        (exit $rc)
        bd_cleanup
}
trap plp_cleanup EXIT
RUN=(podman --runtime runc run -d --init --ulimit nofile=1024:1024 --ulimit nproc=4096:4096)
"${RUN[@]}" --name "$C" "$IMG" >"$BD_T/out/run.out" 2>"$BD_T/out/run.err"
rc=$?
t_is "$rc" 0 "podman run -d --init $IMG starts a container"
[ "$rc" = 0 ] || { t_diag "$(cat "$BD_T/out/run.err")"; t_done; }
CID=$(podman inspect --format '{{.Id}}' "$C")

# The desktop's configuration inside the container: a light command desktop.
BOTDESK_CONFIG=$BD_T/inner.ini bd_config band=505-509
podman exec -i "$C" sh -c 'cat >/etc/botdesk.ini' <"$BD_T/inner.ini"

P=$(bd_profile a)
bd_register "$P"
bd_config
printf '[profile.%s]\nplacement = exec\nexec = podman exec -i %s\n' "$P" "$C" >>"$BOTDESK_CONFIG"

# ---- start, status, env, thumbnail -------------------------------------------------------------
bd_start "$P"
rc=$?
t_is "$rc" 0 "botdesk start with exec = podman exec -i NAME succeeds"
[ "$rc" = 0 ] || t_diag "$(bd_err "$P")"
t_ok "the owner record carries the container's id" grep -qaF "$CID" "$(bd_rt "$P")/owner"
t_is "$(helpers_of "$P" | wc -w)$(xservers_of "$P" | wc -w)" 00 "no helper or X server of the profile runs on this host"

timeout 60 "$BOTDESK" status "$P" --json >"$BD_T/out/status.json" 2>"$BD_T/out/status.err"
t_is "$?" 0 "status --json through the prefix succeeds"
st=$(cat "$BD_T/out/status.json")
t_match "$st" '"running": true' "status comes from inside: running"
t_match "$st" '"placement": "standalone"' "inside, the desktop's placement is standalone"
t_match "$st" '"display": ":50[5-9]"' "inside, the display is of the container's band"
inside_ps=$(podman exec "$C" ps -e -o pid=,args=)
t_match "$inside_ps" "botdesk-helper $P" "the helper runs inside the container"
t_match "$inside_ps" "^ *1 /run/podman-init" "the container's PID 1 is podman's reaping init"
timeout 60 podman exec "$C" botdesk doctor --json >"$BD_T/out/doctor.json" 2>&1
t_diag "inside: $(grep -o '"reaping": "[^"]*"' "$BD_T/out/doctor.json") $(grep -o '"cgroup_writable": [a-z]*' "$BD_T/out/doctor.json")"

env_out=$(timeout 60 "$BOTDESK" env "$P" 2>"$BD_T/out/env.err")
t_match "$env_out" "export DISPLAY=':50[5-9]'" "env comes from inside"
t_match "$(timeout 60 "$BOTDESK" exec "$P" -- sh -c 'cat /proc/1/cmdline | tr "\0" " "; echo "|$1"' zero 'a "b" c' 2>&1)" \
        '^/run/podman-init .*\|a "b" c$' "exec runs inside the container, its arguments word for word"

timeout 60 "$BOTDESK" thumbnail "$P" >"$BD_T/out/thumb.png" 2>"$BD_T/out/thumb.err"
t_is "$?" 0 "thumbnail through the prefix succeeds"
t_is "$(head -c 8 "$BD_T/out/thumb.png" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "the thumbnail is a PNG from inside"
timeout 60 "$BOTDESK" thumbnail "$P" -o "$BD_T/out/thumb-o.png" --size 320x200 >"$BD_T/out/thumb-o.out" 2>&1
t_is "$?" 0 "thumbnail -o FILE through the prefix succeeds"
t_is "$(stat -c %a "$BD_T/out/thumb-o.png" 2>/dev/null)" 600 "-o FILE is written on this host, mode 0600"
t_is "$(head -c 8 "$BD_T/out/thumb-o.png" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "...with the PNG from inside"
t_is "$(podman exec "$C" sh -c "test -e '$BD_T/out/thumb-o.png' && echo there")" "" "...and nothing is written inside"

# ---- a real RFB client through the prefix ------------------------------------------------------
if bd_tcp_front "$P" v1 2>"$BD_T/out/front.err"; then
        timeout 60 gvnccapture "127.0.0.1:$((BD_FRONT_PORT - 5900))" "$BD_T/out/capture.png" >"$BD_T/out/capture.log" 2>&1
        rc=$?
        t_is "$rc" 0 "gvnccapture through socat and botdesk rfb over podman exec succeeds"
        [ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/capture.log" "$BD_T/out/socat.err" 2>/dev/null)"
        size=$("$PY" -c '
import struct, sys
d = open(sys.argv[1], "rb").read(24)
print("%dx%d" % struct.unpack(">II", d[16:24]) if d[:8] == b"\x89PNG\r\n\x1a\n" else "not a PNG")' "$BD_T/out/capture.png" 2>&1)
        t_is "$size" 1024x768 "the framebuffer has the container desktop's size"
        kill "$BD_FRONT_PID" 2>/dev/null
        wait "$BD_FRONT_PID" 2>/dev/null
else
        t_fail "a loopback socat front for botdesk rfb" "$(cat "$BD_T/out/front.err")"
fi

# ---- botdesk web through podman exec -----------------------------------------------------------
bd_web_placed "$P" "in a container, through podman exec"

# ---- stop leaves nothing in the container ------------------------------------------------------
bd_stop "$P"
rc=$?
t_is "$rc" 0 "stop through the prefix succeeds"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/$P.stop.err")"
t_ok "stop removes the owner record" test ! -e "$(bd_rt "$P")/owner"
# What may remain: PID 1 (podman-init), the image's CMD (sleep infinity) and ps itself.
# Bounded (20 tries, 0.5 s apart): what ends with the desktop (a far watch of botdesk web's) may take a moment.
nothing_left() { left=$(podman exec "$C" ps -e -o pid=,args= | grep -v ' /run/podman-init \| /bin/sleep infinity$\| ps -e -o'); [ -z "$left" ]; }
for _ in $(seq 20); do nothing_left && break; sleep 0.5; done
t_is "$left" "" "after stop nothing of the desktop runs in the container (asked 20 times over 10 s)"

# ---- the container goes away -------------------------------------------------------------------
bd_start "$P"
t_is "$?" 0 "a second start inside succeeds"
podman rm -f -t 0 "$C" >/dev/null 2>&1
timeout 60 "$BOTDESK" status "$P" --json >"$BD_T/out/status2.json" 2>"$BD_T/out/status2.err"
t_is "$?" 0 "status of a profile whose container was removed succeeds"
st=$(cat "$BD_T/out/status2.json")
t_match "$st" '"running": false' "a removed container reads as not running"
t_match "$st" "\"reason\": \"container $C does not exist" "...with the reason: the container is gone"
t_is "$(helpers_of "$P" | wc -w)" 0 "...and is never read as a desktop of this host"
out=$(wclient http "unix:$BD_T/web.sock" GET "/$P/lease" "$(wsession "$P" alice)")
t_is "$(head -n1 <<<"$out")" 502 "botdesk web: the lease of a removed container's desktop is refused (502)"
t_match "$out" "container $C does not exist" "...with the prefix's error"
t_is "$(wclient upgrade "unix:$BD_T/web.sock" "/$P/websockify?$(wquery "$P" bob)" --then code)" 4001 \
        "...and its stream closes with 4001"
t_is "$(helpers_of "$P" | wc -w)$(xservers_of "$P" | wc -w)" 00 "...starting nothing on this host"
timeout 60 "$BOTDESK" stop "$P" >"$BD_T/out/stop2.out" 2>"$BD_T/out/stop2.err"
t_is "$?" 1 "stop of a removed container's desktop fails and says so"
timeout 60 "$BOTDESK" stop --force "$P" >"$BD_T/out/stop3.out" 2>"$BD_T/out/stop3.err"
t_is "$?" 0 "stop --force forgets the owner record of a removed container"
t_ok "...which is then gone" test ! -e "$(bd_rt "$P")/owner"

# ---- refusals: nothing starts here -------------------------------------------------------------
# A container that exists but does not run (created, never started).
podman --runtime runc create --init --name "$C2" "$IMG" >/dev/null 2>"$BD_T/out/create.err"
P2=$(bd_profile b)
bd_register "$P2"
printf '[profile.%s]\nplacement = exec\nexec = podman exec -i %s\n' "$P2" "$C2" >>"$BOTDESK_CONFIG"
bd_start "$P2"
t_is "$?" 1 "start in a container that is not running is a refusal (exit 1)"
t_match "$(bd_err "$P2")" "container $C2.*not running.*Nothing was started on this host" "...that says what failed"
t_is "$(helpers_of "$P2" | wc -w)$(xservers_of "$P2" | wc -w)" 00 "...and nothing was started on this host"
t_ok "...and no owner record is left" test ! -e "$(bd_rt "$P2")/owner"
out=$(wclient http "unix:$BD_T/web.sock" GET "/$P2/lease" "$(wsession "$P2" alice)")
t_is "$(head -n1 <<<"$out")" 502 "botdesk web: the lease in a container that is not running is refused (502)"
t_match "$out" "container $C2 is not running" "...with the prefix's error"
t_is "$(helpers_of "$P2" | wc -w)$(xservers_of "$P2" | wc -w)" 00 "...starting nothing on this host"

# A running container without botdesk on the prefix's PATH.
"${RUN[@]}" --name "$C" "$IMG" >/dev/null 2>"$BD_T/out/run2.err"
P3=$(bd_profile c)
bd_register "$P3"
printf '[profile.%s]\nplacement = exec\nexec = podman exec -i %s env PATH=/nowhere\n' "$P3" "$C" >>"$BOTDESK_CONFIG"
bd_start "$P3"
t_is "$?" 1 "start where botdesk is missing inside is a refusal (exit 1)"
t_match "$(bd_err "$P3")" "botdesk.*not found on the other side.*install botdesk there" "...that says what to install"
t_is "$(helpers_of "$P3" | wc -w)$(xservers_of "$P3" | wc -w)" 00 "...and nothing was started on this host"
bd_web_placed_end
t_done
