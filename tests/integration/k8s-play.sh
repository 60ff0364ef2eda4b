#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Kubernetes example, run by a real consumer of its YAML: podman kube
# play takes conf/examples/k8s/botdesk-pod.yaml as it is (the pod template
# of the StatefulSet beside it, its ConfigMap mounted as the example
# mounts it), with the image from scripts/build-image.sh tagged as the
# manifest names it. The host drives the pod's desktop through
# placement = exec with exec = podman exec -i POD-desktop, the argv shape
# of the example's `kubectl exec -i pod/NAME -c desktop --`: start, status,
# input, thumbnail, a real viewer (gvnccapture) through `botdesk rfb`,
# `botdesk mcp`, `botdesk web` (its page, lease, stream, Take over and Hand
# back, through the prefix), stop. Then nothing of the desktop runs in the pod, the
# pod's liveness command answers, and `podman kube down` leaves no pod and
# no container (podman 4.3 keeps the ConfigMap's volume: removed here).
# Root only (podman as root: recipes/podman.md). Band 450 is
# this script's on the host; inside the pod the example's default band
# holds (the pod has its own network namespace and /tmp).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || t_skip_all "needs root (podman, mmdebstrap --mode=root)"
bd_init k8s 450 once
bd_need podman runc mmdebstrap socat gvnccapture
[ -n "$PY" ] || t_skip_all "python3 not installed"

MANIFEST=$BD_SOURCE_DIR/conf/examples/k8s/botdesk-pod.yaml
POD=$("$PY" -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
pod = next(d for d in docs if d.get("kind") == "Pod")
c = pod["spec"]["containers"][0]
print(pod["metadata"]["name"], c["name"], c["image"])' "$MANIFEST" 2>"$BD_T/out/manifest.err")
read -r POD_NAME CONTAINER_NAME IMAGE <<<"$POD"
t_ok "the manifest names a pod, its container and its image" test -n "$IMAGE"
[ -n "$IMAGE" ] || { t_diag "$(cat "$BD_T/out/manifest.err")"; t_done; }
C=$POD_NAME-$CONTAINER_NAME

# podman needs runc and explicit ulimits here (recipes/podman.md); kube play
# takes neither as an option, so this test's own containers.conf gives them.
bd_podman_conf
bd_image botdesk:test

k8s_cleanup() {
        local rc=$?
        trap - EXIT
        for p in $(cat "$BD_T/profiles" 2>/dev/null); do timeout 60 "$BOTDESK" stop --force "$p" >/dev/null 2>&1; done
        timeout 120 podman kube down "$MANIFEST" >/dev/null 2>&1
        # podman 4.3's kube down keeps the ConfigMap's volume (no --force yet).
        [ -n "${VOLUME:-}" ] && podman volume rm -f "$VOLUME" >/dev/null 2>&1
        [ -n "${TAGGED:-}" ] && podman untag "$TAGGED" "$IMAGE" >/dev/null 2>&1
        (exit $rc)
        bd_cleanup
}
trap k8s_cleanup EXIT
VOLUME=$("$PY" -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
print(next(d for d in docs if d.get("kind") == "ConfigMap")["metadata"]["name"])' "$MANIFEST")
if podman pod exists "$POD_NAME" || podman volume exists "$VOLUME"; then
        t_fail "no pod $POD_NAME and no volume $VOLUME exist before the test" \
                "another run holds them: podman kube down $MANIFEST; podman volume rm $VOLUME"
        VOLUME=
        t_done
fi
# The manifest's image, as is: the local build under the manifest's name
# (a tag that is not "latest" is not pulled when it is present).
TAGGED=$(podman image inspect --format '{{.Id}}' botdesk:test)
podman tag botdesk:test "$IMAGE"
t_is "$?" 0 "the image is tagged as the manifest names it ($IMAGE)"

timeout 300 podman kube play "$MANIFEST" >"$BD_T/out/play.out" 2>"$BD_T/out/play.err"
rc=$?
t_is "$rc" 0 "podman kube play takes the manifest as it is"
[ "$rc" = 0 ] || { t_diag "$(cat "$BD_T/out/play.out" "$BD_T/out/play.err")"; t_done; }
t_is "$(podman inspect --format '{{.State.Status}}' "$C" 2>&1)" running "the pod's container $C runs"
t_is "$(podman exec "$C" sh -c 'cat "$BOTDESK_CONFIG"' 2>&1 | sed -n 2p)" "geometry = 1440x900" \
        "the ConfigMap's botdesk.ini is where the pod's BOTDESK_CONFIG says"
t_match "$(podman exec "$C" sh -c 'cat /proc/1/cmdline | tr "\0" " "' 2>&1)" "catatonit|pause" \
        "the pod shares its process namespace: its infra process is PID 1 and reaps"

P=$(bd_profile a)
bd_register "$P"
bd_config
printf '[profile.%s]\nplacement = exec\nexec = podman exec -i %s\n' "$P" "$C" >>"$BOTDESK_CONFIG"

# ---- start, status, input, thumbnail -----------------------------------------------------------
bd_start "$P"
rc=$?
t_is "$rc" 0 "botdesk start through podman exec -i $C succeeds"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }
t_is "$(helpers_of "$P" | wc -w)$(xservers_of "$P" | wc -w)" 00 "no helper or X server of the profile runs on this host"
st=$(timeout 60 "$BOTDESK" status "$P" --json 2>&1)
t_match "$st" '"running": true' "status through the prefix: running"
t_match "$st" '"placement": "standalone"' "inside the pod the desktop is standalone, as the manifest's env says"
t_match "$st" '"geometry": "1440x900"' "...with the ConfigMap's geometry"

timeout 60 "$BOTDESK" input "$P" move 700 450 >"$BD_T/out/input.out" 2>&1
t_is "$?" 0 "input through the prefix succeeds"
t_is "$(timeout 60 "$BOTDESK" cursor "$P" 2>&1)" "700 450" "...and moved the pointer inside the pod"

timeout 60 "$BOTDESK" thumbnail "$P" -o "$BD_T/out/thumb.png" --size 360x225 >"$BD_T/out/thumb.out" 2>&1
t_is "$?" 0 "thumbnail through the prefix succeeds"
t_is "$(head -c 8 "$BD_T/out/thumb.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "...and is a PNG"

# ---- a real viewer through botdesk rfb ---------------------------------------------------------
if bd_tcp_front "$P" v1 2>"$BD_T/out/front.err"; then
        timeout 60 gvnccapture "127.0.0.1:$((BD_FRONT_PORT - 5900))" "$BD_T/out/capture.png" >"$BD_T/out/capture.log" 2>&1
        rc=$?
        t_is "$rc" 0 "gvnccapture reads the pod's framebuffer through botdesk rfb over the prefix"
        [ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/capture.log" 2>/dev/null)"
        size=$("$PY" -c '
import struct, sys
d = open(sys.argv[1], "rb").read(24)
print("%dx%d" % struct.unpack(">II", d[16:24]) if d[:8] == b"\x89PNG\r\n\x1a\n" else "not a PNG")' "$BD_T/out/capture.png" 2>&1)
        t_is "$size" 1440x900 "the framebuffer has the ConfigMap's geometry"
        kill "$BD_FRONT_PID" 2>/dev/null
        wait "$BD_FRONT_PID" 2>/dev/null
else
        t_fail "a loopback socat front for botdesk rfb" "$(cat "$BD_T/out/front.err")"
fi

# ---- botdesk mcp through the prefix ------------------------------------------------------------
mcp_out=$(printf '%s\n' \
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"k8s-play","version":"1"}}}' \
        '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{}}}' |
        timeout 60 "$BOTDESK" mcp "$P" 2>"$BD_T/out/mcp.err")
answer=$("$PY" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id") == 2:
        r = m.get("result") or {}
        print("error" if r.get("isError") or "error" in m else "".join(c.get("text", "") for c in r.get("content", [])))' <<<"$mcp_out" 2>&1)
t_match "$answer" '"screen": \[1440, 900\]' "botdesk mcp through the prefix answers its status tool with the pod desktop's screen"
[ -n "$mcp_out" ] || t_diag "$(cat "$BD_T/out/mcp.err")"

# ---- botdesk web for the desktop in the pod ----------------------------------------------------
bd_web_placed "$P" "in the kube-played pod"
bd_web_placed_end

# ---- stop; the pod's liveness command; kube down -----------------------------------------------
bd_stop "$P"
rc=$?
t_is "$rc" 0 "stop through the prefix succeeds"
[ "$rc" = 0 ] || t_diag "$(cat "$BD_T/out/$P.stop.err")"
# What may remain: the infra process (PID 1), the container's command and ps itself.
# Bounded (20 tries, 0.5 s apart): what ends with the desktop (a far watch of botdesk web's) may take a moment.
nothing_left() { left=$(podman exec "$C" ps -e -o pid=,args= | grep -v '^ *1 \| /bin/sleep infinity$\| ps -e -o'); [ -z "$left" ]; }
for _ in $(seq 20); do nothing_left && break; sleep 0.5; done
t_is "$left" "" "after stop nothing of the desktop runs in the pod (asked 20 times over 10 s)"

probe=$("$PY" -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
pod = next(d for d in docs if d.get("kind") == "Pod")
print("\0".join(pod["spec"]["containers"][0]["livenessProbe"]["exec"]["command"]))' "$MANIFEST" | tr '\0' '\n')
mapfile -t probe_argv <<<"$probe"
timeout 30 podman exec "$C" "${probe_argv[@]}" >"$BD_T/out/probe.out" 2>&1
t_is "$?" 0 "the pod's liveness command (${probe_argv[*]}) answers"

timeout 120 podman kube down "$MANIFEST" >"$BD_T/out/down.out" 2>&1
t_is "$?" 0 "podman kube down succeeds"
t_ok "...and leaves no pod" sh -c "! podman pod exists '$POD_NAME'"
t_is "$(podman ps -a --filter "name=^$POD_NAME" --format '{{.Names}}')" "" "...and no container of it"
t_done
