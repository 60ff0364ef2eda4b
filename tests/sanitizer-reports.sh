#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The sanitizer stage's verdict (tests/run.sh): every report file in DIR
# (ASan, UBSan and LeakSanitizer write one per process there) is a finding
# and fails, except a file that holds nothing but LeakSanitizer's own
# failure to finish: a process killed while its exit-time leak check ran
# (a cleanup's SIGKILL), or one whose dynamic TLS the checker misreads
# (GCC 12's LeakSanitizer on glibc 2.36: "Tracer caught signal 11" after
# a "DTLS" range at a bogus address), leaves exactly that, and no finding.
# Those are shown as notes, not counted.
#   sanitizer-reports.sh DIR    exit 0: no finding; 1: findings (printed)
set -u
dir=${1:?usage: sanitizer-reports.sh DIR}
# Each line "==PID==" or, with log_exe_name, "==PROGRAM==PID==" first.
only_tracer='^(Tracer caught signal [0-9]+: .*|==([^=]+==)?[0-9]+==(LeakSanitizer has encountered a fatal error\.|HINT: .*|Unable to get registers from thread [0-9]+\.))$'
found=()
for f in "$dir"/*; do
        [ -e "$f" ] || continue
        if grep -qvE "$only_tracer" "$f"; then
                found+=("$f")
        else
                echo "note: LeakSanitizer could not finish checking ${f##*/} (killed while it exited, or its dynamic TLS misread); no finding:"
                sed 's/^/  /' "$f"
        fi
done
[ "${#found[@]}" -eq 0 ] && exit 0
cat "${found[@]}"
echo "sanitizer reports above: failing"
exit 1
