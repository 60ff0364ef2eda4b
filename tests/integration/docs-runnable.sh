#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The docs' examples run: every fenced block marked ```sh runnable in the
# README and doc/*.md, and every block of a man page's source after a
# comment line "; runnable", is run, as written, on real desktops named as the
# docs name them (demo and work), with botdesk on PATH, each in bash -e
# with pipefail, within 60 s, and must exit 0. A doc example that drifts
# from what botdesk does fails here, naming its file and line. Band 200
# (once: the docs are what it checks).
. "$(dirname "$0")/lib.sh"
bd_init docs 200 once
bd_need_xserver
SRC=$BD_SOURCE_DIR
bd_config desktop=xfce timeout=60
for p in demo work; do
        t_ok "desktop $p starts" bd_start "$p"
done
mkdir -m 700 "$BD_T/cwd"

# blocks FILE...: each runnable block as "FILE:LINE" then its lines, then a line "\x1e".
blocks() {
        "$PY" - "$@" <<'EOF'
import sys
for path in sys.argv[1:]:
        inside = None
        marked = False
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
                words = line.rstrip("\n").split()
                # Markdown: ```sh runnable. A man page's scdoc source: a comment
                # line "; runnable..." right before a plain ``` block.
                if inside is None and (words == ["```sh", "runnable"] or (marked and words == ["```"])):
                        inside = n
                        print(f"{path}:{n}")
                        continue
                marked = inside is None and path.endswith(".scd") and line.startswith("; runnable")
                if inside is not None and line.startswith("```"):
                        print("\x1e")
                        inside = None
                elif inside is not None:
                        sys.stdout.write(line)
EOF
}

n=0
where= text=
while IFS= read -r line; do
        if [ -z "$where" ]; then
                where=$line text=
                continue
        fi
        if [ "$line" = $'\x1e' ]; then
                n=$((n + 1))
                # Under the sanitizer stage, no exit-time leak check: LeakSanitizer's own failure to finish one
                # (tests/sanitizer-reports.sh) aborts the process, which here would be taken for the example's
                # failure; every command shown is leak-checked by the tests of its verb.
                (cd "$BD_T/cwd" && PATH=$BD_BUILD_DIR/helper:$PATH \
                        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
                        timeout 60 bash -e -o pipefail -c "$text") \
                        >"$BD_T/out/block-$n.out" 2>"$BD_T/out/block-$n.err" </dev/null
                rc=$?
                t_is "$rc" 0 "${where#"$SRC"/} runs as written (exit $rc)"
                [ "$rc" = 0 ] || t_diag "$(tail -n 5 "$BD_T/out/block-$n.err")"
                where=
                continue
        fi
        text+=$line$'\n'
done < <(blocks "$SRC/README.md" "$SRC"/doc/*.md "$SRC"/conf/man/*.scd)
t_ok "the docs mark runnable blocks ($n found)" test "$n" -ge 3
t_ok "botdesk.1's EXAMPLES run too" grep -q "^; runnable" "$SRC/conf/man/botdesk.1.scd"
for p in demo work; do bd_stop "$p" >/dev/null; done
t_done
