#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# No shipped doc teaches a bare TCP listener in front of the RFB socket.
# A loopback port is every local user's: whoever connects sees the screen
# and, while the viewer holds the lease, types into the desktop. So a line
# that opens a TCP listener (socat TCP-LISTEN, websockify HOST:PORT,
# ssh -L PORT:, nc -l) near a mention of the RFB socket (UNIX-CONNECT,
# botdesk rfb, rfb.sock, --unix-target, the status's socket) must have
# the warning ("every local user", "every user") within WINDOW lines.
# Prints TAP, one test per file.
#   test-doc-rfb-tcp.sh SOURCE_DIR
set -u
src=${1:?usage: test-doc-rfb-tcp.sh SOURCE_DIR}
WINDOW=12
listener='TCP[46]?-LISTEN|TCP[46]?-L:|websockify[^|]*[[:space:]][^[:space:]]*:[0-9]{2,5}([[:space:]]|$)|ssh[^|]*-L[[:space:]]*[0-9]+:|(^|[[:space:]])n(c|cat)[[:space:]][^|]*-l'
rfb='UNIX-CONNECT|botdesk rfb|rfb\.sock|unix-target|\.socket([^a-z]|$)|botdesk-[a-z0-9-]*\.sock'
warning='every (local )?user'

n=0 failed=0
files=("$src/README.md" "$src/SECURITY.md")
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$src/doc" -maxdepth 1 -type f -name '*.md' -print0 | sort -z)
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$src/conf" -type f \( -name '*.scd' -o -name '*.md' -o -name '*.ini' \
        -o -name '*.in' -o -name '*.socket' -o -name '*.yaml' -o -name '*.yml' -o -name '*.txt' \) -print0 | sort -z)
for f in "${files[@]}"; do
        [ -f "$f" ] || continue
        rel=${f#"$src"/}
        # The patterns through the environment: -v would interpret their backslashes.
        bad=$(W=$WINDOW L=$listener R=$rfb WARN=$warning awk '
                { line[NR] = $0 }
                END {
                        W = ENVIRON["W"]; L = ENVIRON["L"]; R = ENVIRON["R"]; WARN = ENVIRON["WARN"]
                        for (i = 1; i <= NR; i++) {
                                if (line[i] !~ L)
                                        continue
                                near_rfb = 0; warned = 0
                                for (j = i - W; j <= i + W; j++) {
                                        if (j < 1 || j > NR)
                                                continue
                                        if (line[j] ~ R)
                                                near_rfb = 1
                                        if (tolower(line[j]) ~ WARN)
                                                warned = 1
                                }
                                if (near_rfb && !warned)
                                        printf "%d: %s\n", i, line[i]
                        }
                }' "$f")
        n=$((n + 1))
        if [ -z "$bad" ]; then
                echo "ok $n - $rel pairs no TCP listener with the RFB socket without the warning"
        else
                failed=$((failed + 1))
                echo "not ok $n - $rel pairs no TCP listener with the RFB socket without the warning"
                while IFS= read -r l; do
                        echo "# $rel:$l"
                done <<<"$bad"
                echo "# say within $WINDOW lines that every local user can reach a loopback port, or use a 0600 Unix listener"
        fi
done
echo "1..$n"
[ "$failed" = 0 ]
