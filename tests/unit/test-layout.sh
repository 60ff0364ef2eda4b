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
# and no source lies loose in helper/. Prints TAP.
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

echo "1..$n"
[ "$failed" = 0 ]
