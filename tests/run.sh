#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite on a fresh Debian machine: installs what the tests
# need, then
#   1. unit and integration tiers built with ASan+UBSan,
#   2. the unit tier under valgrind,
#   3. the fuzz targets with libFuzzer (clang) for a bounded time,
#   4. every other tier (unit, system, SELinux) of a -Werror build,
# and ends with the tests that came nearest their timeouts and one line
# counting the tests of stages 1 and 4. The integration tier runs once,
# under the sanitizers: a second run of its real desktops in the -Werror
# build would double the suite's longest stage and prove nothing more.
#   tests/run.sh            everything
#   tests/run.sh --quick    stage 4 only
# Extra arguments after the options go to the last `meson test`.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${BOTDESK_TEST_BUILD:-$src/build-tests}
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }

# stage NAME: announce a stage; the wall time of each is printed at the end.
stage_names=() stage_starts=()
stage() {
        stage_names+=("$*") stage_starts+=("$SECONDS")
        printf '\n==> %s\n' "$*"
}
stage_times() {
        local i end
        echo
        echo "wall time of each stage:"
        for i in "${!stage_names[@]}"; do
                end=${stage_starts[$((i + 1))]:-$SECONDS}
                printf '  %5d s  %s\n' "$((end - stage_starts[i]))" "${stage_names[$i]}"
        done
}

stage "install what the tests need (scripts/install-deps.sh --tests)"
"$src/scripts/install-deps.sh" --tests

# setup DIR [meson options...]: configure DIR with exactly these options
# (also when it exists from an earlier run, so that an option such as
# -Dwerror=true is never silently left out), then build it.
# Quiet when it works; on a failure the last lines say why.
setup() {
        local dir=$1 log; shift
        log=$(mktemp /tmp/botdesk-setup.XXXXXX)
        if [ -f "$dir/build.ninja" ]; then
                meson configure "$dir" "$@" >"$log" 2>&1
        else
                meson setup "$dir" "$src" "$@" >"$log" 2>&1
        fi && ninja -C "$dir" >>"$log" 2>&1 || {
                tail -n 40 "$log" >&2
                echo "tests/run.sh: configuring or building $dir failed" >&2
                rm -f -- "$log"
                return 1
        }
        rm -f -- "$log"
}

if [ "$quick" = 0 ]; then
        stage "unit and integration tiers under ASan+UBSan"
        setup "$out-asan" -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debug
        # Reports go to files: the helper is a daemon whose stderr no test
        # reads, so a report from it must fail the stage by itself.
        reports=$(mktemp -d /tmp/botdesk-sanitizer.XXXXXX)
        chmod 1777 "$reports"   # the integration tier also runs as another user
        # log_exe_name: each report's file names its program as well as its pid.
        # intercept_tls_get_addr=0: GCC 12's LeakSanitizer, tracking dynamic TLS through __tls_get_addr, read a
        # stale DTV slot of glibc 2.36 at a `botdesk mcp --listen`'s exit and crashed in its tracer ("DTLS 6 at
        # 0x2c1"), as soon as a change moved the program's layout; botdesk keeps no heap pointer in thread-local
        # storage, so the dynamic TLS blocks it no longer scans hold none of ours.
        ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:log_exe_name=1:log_path=$reports/asan:intercept_tls_get_addr=0 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_exe_name=1:log_path=$reports/ubsan \
                meson test -C "$out-asan" --suite unit --suite integration --print-errorlogs --num-processes 2
        # Any finding fails the stage (tests/sanitizer-reports.sh says which do not).
        "$src/tests/sanitizer-reports.sh" "$reports" >&2 || exit 1
        rm -rf -- "${reports:?}"

        stage "unit tier under valgrind"
        setup "$out"
        meson test -C "$out" --suite unit --no-suite shell --print-errorlogs --num-processes 2 \
                --wrapper "valgrind --quiet --error-exitcode=66 --leak-check=full --errors-for-leak-kinds=definite,indirect --track-fds=yes"

        stage "fuzz targets (libFuzzer, bounded)"
        CC=clang setup "$out-fuzz" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
                -Dpam=disabled --buildtype=debugoptimized
        meson test -C "$out-fuzz" --suite fuzz --print-errorlogs --num-processes 2
fi

stage "every other tier: unit, system, SELinux (-Werror build)"
# A build dir of its own: the valgrind stage's build is not a -Werror one.
setup "$out-werror" -Dwerror=true
[ "$(meson introspect --buildoptions "$out-werror" | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "werror"][0])')" = True ] ||
        { echo "tests/run.sh: $out-werror is not configured with werror=true" >&2; exit 1; }
rc=0
if [ "$quick" = 1 ]; then
        # Alone, the quick run is every tier of one build.
        meson test -C "$out-werror" --print-errorlogs --num-processes 2 "$@" || rc=$?
        builds=("$out-werror")
else
        meson test -C "$out-werror" --no-suite integration --print-errorlogs --num-processes 2 "$@" || rc=$?
        builds=("$out-asan" "$out-werror")
fi
stage_times
# The tests that came nearest their timeouts (a machine half as fast needs
# the other half), then the closing line, counting every test of the stages.
python3 - "${builds[@]}" <<'EOF'
import json, subprocess, sys
n = {"OK": 0, "FAIL": 0, "SKIP": 0}
runs = []
failed = []
leaked = []
for build in sys.argv[1:]:
    tests = json.loads(subprocess.run(["meson", "introspect", "--tests", build], capture_output=True, text=True).stdout or "[]")
    limits = {t["name"]: t["timeout"] for t in tests}
    for line in open(build + "/meson-logs/testlog.json"):
        r = json.loads(line)
        res = r["result"]
        key = "OK" if res in ("OK", "EXPECTEDFAIL") else "SKIP" if res == "SKIP" else "FAIL"
        n[key] += 1
        t = limits.get(r["name"].split(" / ")[-1]) or 0
        d = r.get("duration") or 0
        runs.append((d / t if t else 0, d, t, r["name"]))
        if key == "FAIL":
            failed.append((r["name"], r.get("stdout") or ""))
        for l in (r.get("stdout") or "").splitlines():
            if l.startswith("# cleanup: process ") and "outlived the test" in l:
                leaked.append((r["name"], l[2:]))
# A TAP test's diagnostics are on its stdout, which meson parses and does
# not print: show each failed test's "not ok" lines and the notes under
# them, so a CI log alone says why.
for name, out in failed:
    print("\nwhy %s failed (its \"not ok\" lines and their notes):" % name)
    lines, keep = [], False
    for l in out.splitlines():
        if l.startswith("not ok"):
            keep = True
        elif l.startswith("ok") or l.startswith("1.."):
            keep = False
        if keep:
            lines.append(l)
    for l in (lines or out.splitlines()[-40:])[:120]:
        print("  " + l)
# Processes a test's cleanup found alive by its XDG_RUNTIME_DIR only: killed
# there, named here, so that a leak is seen before it is a machine's problem.
if leaked:
    print("\nprocesses that outlived their test (killed by its cleanup):")
    for name, l in leaked:
        print("  %s: %s" % (name, l))
print("\nslowest tests against their timeouts:")
for share, d, t, name in sorted(runs, reverse=True)[:5]:
    print("  %5.0f s of %4d s (%3.0f %%)  %s%s" % (d, t, 100 * share, name, "   <- over half" if share > 0.5 else ""))
print("%d passed, %d failed, %d skipped" % (n["OK"], n["FAIL"], n["SKIP"]))
EOF
exit "$rc"
