#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The sanitizer stage's verdict (tests/sanitizer-reports.sh): a finding
# fails, alone or beside a note; LeakSanitizer's failure to finish the
# check of a killed process is a note and passes; no report passes.
#   test-sanitizer-reports.sh SOURCE_DIR
set -u
verdict=${1:?usage: test-sanitizer-reports.sh SOURCE_DIR}/tests/sanitizer-reports.sh
. "$(dirname "$0")/check.sh"
W=$(mktemp -d /tmp/botdesk-sanitizer-reports.XXXXXX)
trap 'rm -rf -- "${W:?}"' EXIT
mkdir "$W/none" "$W/tracer" "$W/leak" "$W/both"
# As LeakSanitizer wrote them in a rehearsal: two processes killed while it checked them.
printf '%s\n' 'Tracer caught signal 11: addr=0x1d0 pc=0x7f1369ce80f0 sp=0x7f13667ffd10' \
        '==21491==LeakSanitizer has encountered a fatal error.' \
        '==21491==HINT: For debugging, try setting environment variable LSAN_OPTIONS=verbosity=1:log_threads=1' \
        '==21491==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)' >"$W/tracer/asan.botdesk.21491"
printf '%s\n' '==22301==Unable to get registers from thread 22275.' >"$W/tracer/asan.botdesk.22275"
# With log_exe_name=1 the program's name comes first.
printf '%s\n' 'Tracer caught signal 11: addr=0x1c8 pc=0x7f2f88ae80f0 sp=0x7f2f857ffd10' \
        '==botdesk==23669==LeakSanitizer has encountered a fatal error.' \
        '==botdesk==23669==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)' >"$W/tracer/asan.botdesk.23669"
printf '%s\n' '=================================================================' \
        '==botdesk==4242==ERROR: LeakSanitizer: detected memory leaks' '' \
        'Direct leak of 16 byte(s) in 1 object(s) allocated from:' >"$W/leak/asan.botdesk.4242"
cp "$W/tracer/"* "$W/leak/"* "$W/both/"

"$verdict" "$W/none" >"$W/out" 2>&1
check "no report: no finding" [ $? -eq 0 ]
"$verdict" "$W/tracer" >"$W/out" 2>&1
check "only LeakSanitizer's failures to finish: no finding" [ $? -eq 0 ]
check "... each shown as a note naming its file" [ "$(grep -c '^note: LeakSanitizer could not finish checking asan\.botdesk\.' "$W/out")" -eq 3 ]
"$verdict" "$W/leak" >"$W/out" 2>&1
check "a leak fails" [ $? -eq 1 ]
check "... and is printed" grep -q 'Direct leak of 16 byte' "$W/out"
"$verdict" "$W/both" >"$W/out" 2>&1
check "a leak beside the notes still fails" [ $? -eq 1 ]
printf '%s\n' 'Tracer caught signal 11: addr=0x1d0 pc=0x1 sp=0x2' 'helper/x.c:10:5: runtime error: signed integer overflow' \
        >"$W/none/ubsan.botdesk.7"
"$verdict" "$W/none" >"$W/out" 2>&1
check "a finding in the same file as a tracer line fails" [ $? -eq 1 ]
echo "1..$n"
