#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The parts of helper/ include only what lies below them (helper/README.md):
#   shared      nothing above it
#   alloc, systemd, desktop, control   shared and themselves (desktop never
#               reaches systemd/: it starts no units)
#   web         shared, control
#   mcp         shared (the agent's protocol, pure)
#   supervisor  anything but cli, web, generator
#   cli         anything but supervisor, generator
#   generator   shared, systemd
#   pam/        shared and alloc only
# no source lies loose in helper/, and no C file under helper/, pam/ or
# tests/ is over 700 lines (a file does one thing). Prints TAP.
#   test-layout.sh SOURCE_DIR
set -u
src=${1:?usage: test-layout.sh SOURCE_DIR}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)) failed=$((failed + 1)); echo "not ok $n - $1"; shift; for d in "$@"; do echo "# $d"; done; }

declare -A allowed=(
        [shared]="shared"
        [alloc]="shared alloc"
        [systemd]="shared systemd"
        [desktop]="shared desktop"
        [control]="shared control"
        [web]="shared control web"
        [mcp]="shared mcp"
        [supervisor]="shared alloc systemd desktop control supervisor"
        [cli]="shared alloc systemd desktop control web mcp cli"
        [generator]="shared systemd generator"
        [pam]="shared alloc"
)
# Which part a header lives in (a folder inside a part, such as
# shared/config/, belongs to that part).
declare -A home
for h in "$src"/helper/*/*.h "$src"/helper/*/*/*.h; do
        [ -e "$h" ] || continue
        part=${h#"$src"/helper/}; part=${part%%/*}
        home[${h##*/}]=$part
done
[ "${#home[@]}" -gt 20 ] && ok "the parts' headers were found (${#home[@]})" ||
        not_ok "the parts' headers were found (only ${#home[@]})"

check_part() { # PART DIR
        local part=$1 dir=$2 f h to bad=()
        for f in "$dir"/*.[ch] "$dir"/*/*.[ch]; do
                [ -e "$f" ] || continue
                while read -r h; do
                        to=${home[$h]:-}
                        [ -n "$to" ] || continue   # a system or generated header
                        case " ${allowed[$part]} " in *" $to "*) ;; *) bad+=("${f#"$src"/} includes $h ($to/)") ;; esac
                done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
        done
        if [ ${#bad[@]} -eq 0 ]; then
                ok "$part/ includes only ${allowed[$part]// /, }"
        else
                not_ok "$part/ includes only ${allowed[$part]// /, }" "${bad[@]}"
        fi
}
for d in "$src"/helper/*/; do
        part=${d%/}; part=${part##*/}
        if [ -z "${allowed[$part]:-}" ]; then
                not_ok "helper/$part/ is a known part" "add it to tests/unit/test-layout.sh and helper/README.md"
                continue
        fi
        check_part "$part" "${d%/}"
done
check_part pam "$src/pam"
# The PAM module's include dirs are the ones helper/meson.build lets it see
# (pam_visible_inc), not paths of its own into helper/.
reach=$(grep -n "\.\./helper" "$src/pam/meson.build" || true)
[ -z "$reach" ] && ok "pam/meson.build does not reach into ../helper" ||
        not_ok "pam/meson.build does not reach into ../helper" "$reach"

loose=$(find "$src/helper" -maxdepth 1 -name '*.[ch]' -printf '%f ')
[ -z "$loose" ] && ok "no source lies loose in helper/" || not_ok "no source lies loose in helper/" "loose: $loose"

# Lines of every C file, in one awk per batch of files (a fork per file
# costs seconds on a loaded machine).
max_lines=700
long=()
while IFS= read -r line; do
        long+=("$line")
done < <(find "$src/helper" "$src/pam" "$src/tests" -name '*.c' -type f -print0 | sort -z |
         xargs -0 -r awk -v max="$max_lines" -v src="$src/" '
                { n[FILENAME]++ }
                END { for (f in n) if (n[f] > max) { g = index(f, src) == 1 ? substr(f, length(src) + 1) : f; print g " has " n[f] " lines" } }')
if [ ${#long[@]} -eq 0 ]; then
        ok "no C file under helper/, pam/ or tests/ is over $max_lines lines"
else
        not_ok "no C file under helper/, pam/ or tests/ is over $max_lines lines" "${long[@]}" "split it by concern"
fi

echo "1..$n"
[ "$failed" = 0 ]
