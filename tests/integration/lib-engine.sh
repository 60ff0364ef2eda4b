# SPDX-License-Identifier: LGPL-2.1-or-later
# Part of lib.sh, which sources it: the container engines the placement
# tests drive (podman, docker) and the image they run.

# bd_image TAG [ENGINE]: scripts/build-image.sh builds TAG into podman (or ENGINE), or reuses it from its
# cache, as a check; the test ends here when it cannot. Bounded: a cold build (packages from the mirror)
# takes about a minute here.
bd_image() {
        local t0 rc
        t0=$(date +%s)
        timeout 900 "$BD_SOURCE_DIR/scripts/build-image.sh" --tag "$1" --engine "${2:-podman}" \
                >"$BD_T/out/image.out" 2>"$BD_T/out/image.err"
        rc=$?
        t_is "$rc" 0 "scripts/build-image.sh builds (or reuses) $1"
        [ "$rc" = 0 ] || { t_diag "$(tail -n 20 "$BD_T/out/image.err")"; t_done; }
        t_diag "image ready in $(($(date +%s) - t0)) s: $(grep -o '[^:]*$' "$BD_T/out/image.err" | tail -n 1)"
}

# bd_podman_conf: podman as these machines need it (runc and explicit ulimits, recipes/podman.md), in a
# containers.conf of the test's own (CONTAINERS_CONF), so that what runs is a plain podman command.
bd_podman_conf() {
        printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n' \
                >"$BD_T/containers.conf"
        export CONTAINERS_CONF=$BD_T/containers.conf
}

# bd_dockerd: a Docker daemon of the test's own, its state, sockets and
# containers below $BD_T/docker, reached through DOCKER_HOST (exported, so
# that botdesk's `docker` and build-image.sh's reach it and no other);
# without bridge or iptables rules, so that it changes nothing of the
# host's network. Waits (bounded: 60 s) until it answers. Stopped by
# bd_dockerd_stop, by its pid: it stops its containers, then containerd.
bd_dockerd() {
        local d=$BD_T/docker
        mkdir -m 700 "$d"
        dockerd --data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/pid" -H "unix://$d/docker.sock" \
                --iptables=false --ip-masq=false --bridge=none >"$BD_T/out/dockerd.log" 2>&1 &
        BD_DOCKERD_PID=$!
        bd_own_pid "$BD_DOCKERD_PID"
        export DOCKER_HOST=unix://$d/docker.sock
        wait_for 60 docker info >/dev/null 2>&1 ||
                t_fail "a Docker daemon of the test's own answers within 60 s" "$(tail -n 5 "$BD_T/out/dockerd.log")"
}

# bd_dockerd_stop: SIGTERM to the test's dockerd (it stops its containers
# first; bounded: 60 s, then SIGKILL), then what it left: containerd's
# shims by their command line, which names the test's own socket, and
# mounts below $BD_T/docker, so that the scratch dir is removed whole.
bd_dockerd_stop() {
        local pid m
        [ -n "${BD_DOCKERD_PID:-}" ] || return 0
        kill -TERM "$BD_DOCKERD_PID" 2>/dev/null
        wait_for 60 sh -c "! kill -0 $BD_DOCKERD_PID 2>/dev/null" || kill -KILL "$BD_DOCKERD_PID" 2>/dev/null
        wait "$BD_DOCKERD_PID" 2>/dev/null
        for pid in $(cmdline_pids "$BD_T/docker/"); do
                kill -KILL "$pid" 2>/dev/null
        done
        findmnt -rn -o TARGET | grep "^$BD_T/docker/" | sort -r | while read -r m; do umount -l "$m"; done
        BD_DOCKERD_PID=
}
