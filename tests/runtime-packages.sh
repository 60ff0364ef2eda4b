#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# runtime-packages.sh FILE...: the Debian packages of the shared libraries
# that FILEs (built binaries, the PAM module) load, one a line. The system
# and SELinux tiers install these into their root file systems, so a new
# library dependency of botdesk reaches them without a hand-kept list.
set -u
for f in "$@"; do
        [ -e "$f" ] && ldd "$f" 2>/dev/null
done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u | while read -r lib; do
        real=$(readlink -f "$lib")
        # usrmerge: dpkg may know the file under /lib or /usr/lib.
        for p in "$lib" "$real" "${lib#/usr}" "${real#/usr}" "/usr$lib" "/usr$real"; do
                owner=$(dpkg-query -S "$p" 2>/dev/null | grep -v '^diversion' | head -n1) && [ -n "$owner" ] && break
        done
        if [ -z "${owner:-}" ]; then
                echo "runtime-packages.sh: no package owns $lib" >&2
                continue
        fi
        echo "${owner%%:*}"
        owner=
done | tr ',' '\n' | sed 's/^ *//' | sort -u
