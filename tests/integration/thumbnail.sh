#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# botdesk thumbnail on real desktops: a 1440x900 Xfce screen becomes a
# 960x600 PNG by default, a JPEG of the size asked for, a data: URL; files
# are replaced atomically with mode 0600 and activity is stamped; the exact
# colours survive depth 16, 24 and 32; bad options are usage errors (2); a
# profile that is not running is exit 4 and nothing is written; --json says
# the screen's revision, and --since-revision says "unchanged" without a
# picture, a change with one, and a reset after a restart.
. "$(dirname "$0")/lib.sh"
bd_init thn 90
bd_need_xserver
bd_need xfwm4 xfsettingsd xfdesktop xfce4-panel xsetroot
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_config desktop=xfce timeout=60
# The screen size of DESIGN section 13's latency target.
sed -i 's/^geometry = .*/geometry = 1440x900/' "$BOTDESK_CONFIG"

P=$(bd_profile work)
RT=$(bd_rt "$P")
O=$BD_T/shots
mkdir -m 700 "$O"

# "png|jpeg W H" of an image file (or of a data: URL in it), "bad: why" otherwise.
image_size() {
        "$PY" - "$1" <<'EOF'
import base64, struct, sys
d = open(sys.argv[1], "rb").read()
if d.startswith(b"data:"):
    head, _, b64 = d.partition(b",")
    d = base64.b64decode(b64.strip(), validate=True)
if d[:8] == b"\x89PNG\r\n\x1a\n" and d[12:16] == b"IHDR":
    print("png", *struct.unpack(">II", d[16:24]))
elif d[:3] == b"\xff\xd8\xff":
    i = 2
    while i + 4 <= len(d):
        if d[i] != 0xFF:
            sys.exit(print("bad: no JPEG marker at", i))
        m, n = d[i + 1], struct.unpack(">H", d[i + 2:i + 4])[0]
        if m in (0xC0, 0xC1, 0xC2):
            h, w = struct.unpack(">HH", d[i + 5:i + 9])
            sys.exit(print("jpeg", w, h))
        i += 2 + n
    print("bad: no SOF in JPEG")
else:
    print("bad: neither PNG nor JPEG:", d[:16])
EOF
}

# The RGB of the centre pixel of a PNG, and how many colours it has.
png_probe() {
        "$PY" - "$1" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
w, h, depth, ctype = struct.unpack(">IIBB", d[16:26])
assert depth == 8 and ctype == 2, "not 8-bit RGB"
idat, i = b"", 8
while i < len(d):
    n, t = struct.unpack(">I", d[i:i + 4])[0], d[i + 4:i + 8]
    if t == b"IDAT":
        idat += d[i + 8:i + 8 + n]
    i += 12 + n
raw, stride, prev, rows, p = zlib.decompress(idat), w * 3, bytearray(w * 3), [], 0
for y in range(h):
    f, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
    p += 1 + stride
    for x in range(stride if f else 0):
        a = line[x - 3] if x >= 3 else 0
        b = prev[x]
        c = prev[x - 3] if x >= 3 else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
colours = {r[x:x + 3] for r in rows for x in range(0, stride, 3)}
mid = rows[h // 2][(w // 2) * 3:(w // 2) * 3 + 3]
print(*mid, len(colours))
EOF
}

# ---- not running ---------------------------------------------------------------------------------

"$BOTDESK" thumbnail "$P" -o "$O/never.png" 2>"$O/never.err"
t_is "$?" 4 "thumbnail of a profile that never ran exits 4"
t_match "$(cat "$O/never.err")" "not running" "and says it is not running"
t_ok "and writes no file" test ! -e "$O/never.png"

# ---- usage errors --------------------------------------------------------------------------------

for args in "--size 0x600" "--size 960" "--size 8193x600" "--size 960x600x2" "--size=-1x5" "--format gif" \
            "--quality 0" "--quality 101" "--quality 80" "--bogus" "-o" "--json --since-revision yesterday" \
            "--json --since-revision 3F9A1C2B4D5E.0123456789ABCDEF" "--since-revision 3f9a1c2b4d5e.0123456789abcdef" \
            "--json --since-revision"; do
        # shellcheck disable=SC2086
        "$BOTDESK" thumbnail "$P" $args >/dev/null 2>"$O/usage.err"
        rc=$?
        if [ "$rc" = 2 ] && [ -s "$O/usage.err" ]; then t_pass "thumbnail $args is a usage error (exit 2)"; else
                t_fail "thumbnail $args is a usage error (exit 2)" "exit $rc" "$(cat "$O/usage.err")"; fi
done
"$BOTDESK" thumbnail >/dev/null 2>&1
t_is "$?" 2 "thumbnail without a profile exits 2"
"$BOTDESK" thumbnail "../x" -o "$O/bad.png" >/dev/null 2>&1
t_is "$?" 2 "thumbnail of an invalid profile name exits 2"

# ---- a real Xfce desktop at 1440x900 ------------------------------------------------------------

bd_start "$P"
rc=$?
t_is "$rc" 0 "an Xfce desktop at 1440x900 starts"
if [ "$rc" != 0 ]; then
        t_diag "$(bd_err "$P")" "$(tail -n 20 "$RT/helper.log" 2>/dev/null)"
        t_done
fi

touch -d @1000000000 "$RT/activity"
"$BOTDESK" thumbnail "$P" -o "$O/a.png" 2>"$O/a.err"
t_is "$?" 0 "thumbnail -o FILE exits 0"
t_is "$(image_size "$O/a.png")" "png 960 600" "the default is a 960x600 PNG"
t_is "$(stat -c %a "$O/a.png" 2>&1)" 600 "the file has mode 0600"
t_ok "the thumbnail stamped the activity file" test "$(stat -c %Y "$RT/activity")" -gt 1000000000
# Ready means a window manager manages the screen; the wallpaper and the
# panel are drawn a moment later.
for _ in $(seq 50); do
        probe=$(png_probe "$O/a.png")
        [ "${probe##* }" -ge 16 ] 2>/dev/null && break
        sleep 0.2
        "$BOTDESK" thumbnail "$P" -o "$O/a.png" 2>>"$O/a.err"
done
colours=${probe##* }
if [ "${colours:-0}" -ge 16 ] 2>/dev/null; then t_pass "the PNG decodes to a drawn Xfce screen ($colours colours)"; else
        t_fail "the PNG decodes to a drawn Xfce screen" "probe: $probe" "$(cat "$O/a.err")"; fi

printf 'old\n' >"$O/c.png"
chmod 644 "$O/c.png"
"$BOTDESK" thumbnail "$P" -o "$O/c.png" 2>/dev/null
t_is "$?" 0 "thumbnail over an existing file exits 0"
t_is "$(image_size "$O/c.png") $(stat -c %a "$O/c.png")" "png 960 600 600" "the file is replaced by the image, mode 0600"
t_is "$(find "$O" -name '.#*' | wc -l)" 0 "no temporary file is left beside it"

"$BOTDESK" thumbnail "$P" --format jpeg --size 320x200 -o "$O/b.jpg"
t_is "$?" 0 "thumbnail --format jpeg --size 320x200 exits 0"
t_is "$(image_size "$O/b.jpg")" "jpeg 320 200" "it is a 320x200 JPEG"

"$BOTDESK" thumbnail "$P" --format jpeg --quality 90 --size 100x100 >"$O/stdout.jpg"
t_is "$?" 0 "thumbnail to stdout exits 0"
t_is "$(image_size "$O/stdout.jpg")" "jpeg 100 63" "JPEG to stdout fits 100x100 as 100x63, keeping the aspect ratio"
"$BOTDESK" thumbnail "$P" --size 2000x2000 >"$O/big.png"
t_is "$(image_size "$O/big.png")" "png 1440 900" "a box larger than the screen gives the screen's own size, not an upscale"

"$BOTDESK" thumbnail "$P" --data-url >"$O/url.txt"
t_is "$?" 0 "thumbnail --data-url exits 0"
t_match "$(cat "$O/url.txt")" '^data:image/png;base64,[A-Za-z0-9+/]+=*$' "--data-url prints data:image/png;base64,..."
t_is "$(image_size "$O/url.txt")" "png 960 600" "the data URL holds the 960x600 PNG"
url=$("$BOTDESK" thumbnail "$P" --data-url --format jpeg --size 64x64)
t_match "$url" '^data:image/jpeg;base64,' "--data-url --format jpeg names image/jpeg"

"$BOTDESK" thumbnail "$P" -o "$O/missing/dir/x.png" 2>"$O/missing.err"
t_is "$?" 1 "-o into a missing directory exits 1"

# A cookie the server refuses: exit 1, naming the display. The published env
# is pointed at a copy of the Xauthority file with one byte changed (the
# server's own file is left alone: X reloads it when it changes) and put back.
D=$(sed -n 's/^DISPLAY=//p' "$RT/env")
cp -p "$RT/env" "$O/env.good"
"$PY" -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[-1] ^= 0xff; open(sys.argv[2], "wb").write(d)' \
        "$RT/Xauthority" "$O/Xauthority.bad"
sed "s|^XAUTHORITY=.*|XAUTHORITY=$O/Xauthority.bad|" "$O/env.good" >"$RT/env.new" && mv -f "$RT/env.new" "$RT/env"
"$BOTDESK" thumbnail "$P" -o "$O/refused.png" 2>"$O/refused.err"
rc=$?
mv -f "$O/env.good" "$RT/env"
t_is "$rc" 1 "a server refusing the connection is exit 1"
t_match "$(cat "$O/refused.err")" "display $D " "and the message names display $D"
t_ok "and writes no file" test ! -e "$O/refused.png"

# Latency, as a diagnostic: DESIGN section 13 makes it a benchmark, not a test.
lat=$(for _ in $(seq 20); do
        s=$(date +%s%N)
        "$BOTDESK" thumbnail "$P" --format jpeg -o "$O/t.jpg" 2>/dev/null
        echo $(($(date +%s%N) - s))
done | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f ms median, %.1f ms min", a[int((NR + 1) / 2)] / 1e6, a[1] / 1e6 }')
t_diag "thumbnail 1440x900 -> 960x600 JPEG: $lat (20 runs)"

bd_stop "$P"
t_is "$?" 0 "the desktop stops"
"$BOTDESK" thumbnail "$P" -o "$O/stopped.png" 2>/dev/null
t_is "$?" 4 "thumbnail of a stopped desktop exits 4"
t_ok "and writes no file" test ! -e "$O/stopped.png"

# ---- revisions: "unchanged" without a picture, a change, a restart ---------------------------------

# KEY of thumbnail --json's line in FILE (python's repr; None when absent).
jkey() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$1" "$2"; }

# revisions PROFILE: on a desktop whose root is one colour (nothing else draws there).
revisions() {
        local Q=$1 r1 r2 r3
        "$BOTDESK" thumbnail "$Q" --json --size 96x96 >"$O/r1.json" 2>"$O/r1.err"
        t_is "$?" 0 "thumbnail --json exits 0"
        r1=$(jkey "$O/r1.json" revision)
        t_match "$r1" '^[0-9a-f]{12}\.[0-9a-f]{16}$' "thumbnail --json says the screen's revision, RUN.HASH"
        t_is "$(image_size <(jkey "$O/r1.json" data_url))" "png 96 60" "... and carries the picture as a data URL"
        "$BOTDESK" thumbnail "$Q" --json --size 96x96 --since-revision "$r1" -o "$O/r2.png" >"$O/r2.json" 2>"$O/r2.err"
        t_is "$?" 0 "thumbnail --since-revision of the screen as it is exits 0"
        t_is "$(jkey "$O/r2.json" unchanged) $(jkey "$O/r2.json" revision) $(jkey "$O/r2.json" data_url)" "True $r1 None" \
                "... says unchanged, the same revision, and carries no picture"
        t_ok "... and writes no file" test ! -e "$O/r2.png"
        "$BOTDESK" exec "$Q" -- xsetroot -solid "#c08020"
        "$BOTDESK" thumbnail "$Q" --json --size 96x96 --since-revision "$r1" -o "$O/r3.png" >"$O/r3.json" 2>"$O/r3.err"
        r3=$(jkey "$O/r3.json" revision)
        t_is "$(jkey "$O/r3.json" unchanged) $(jkey "$O/r3.json" file)" "False $O/r3.png" \
                "after the root changed colour: not unchanged, and the picture written to -o"
        t_ok "... under a new revision of the same run" eval '[ "$r3" != "$r1" ] && [ "${r3%.*}" = "${r1%.*}" ]'
        read -r r g b _ <<<"$(png_probe "$O/r3.png")"
        t_is "$r $g $b" "192 128 32" "... showing the new colour"
        "$BOTDESK" thumbnail "$Q" --json --since-revision "not-a-revision" >"$O/bad.json" 2>"$O/bad.err"
        t_is "$?" 2 "a malformed --since-revision on a running desktop is a usage error (exit 2)"
        t_match "$(cat "$O/bad.err")" "RUN\.HASH, 12 and 16 lowercase hex digits" "... that names the valid form"
        t_is "$("$PY" -c 'import json,sys; e = json.load(sys.stdin)["error"]; print(e["code"], e["exit"])' <"$O/bad.json")" \
                "usage 2" "... and, with --json, no picture: only the error object, code usage"

        # The same pixels after a restart are another run: never "unchanged".
        bd_stop "$Q"
        if ! bd_start "$Q"; then
                t_fail "the desktop starts again" "$(bd_err "$Q")"
                return
        fi
        for _ in $(seq 30); do
                "$BOTDESK" thumbnail "$Q" --json --size 96x96 >"$O/r4.json" 2>/dev/null || break
                r2=$(jkey "$O/r4.json" revision)
                [ "${r2#*.}" = "${r1#*.}" ] && break
                sleep 0.1
        done
        t_is "${r2#*.}" "${r1#*.}" "after a restart the screen shows the first colour again: the same hash (waited up to 3 s for xsetroot)"
        "$BOTDESK" thumbnail "$Q" --json --size 96x96 --since-revision "$r1" >"$O/r5.json" 2>"$O/r5.err"
        t_is "$(jkey "$O/r5.json" revision_reset) $(jkey "$O/r5.json" unchanged)" "True False" \
                "a revision from before the restart: revision_reset, not unchanged"
        t_is "$(image_size <(jkey "$O/r5.json" data_url))" "png 96 60" "... with the full picture"
        t_isnt "$(jkey "$O/r5.json" revision)" "$r1" "... under the new run's revision"
}

# ---- exact colours at every depth ------------------------------------------------------------------

# A bare X server whose root window is one known colour. At depth 16 the
# server keeps 5-6-5 bits of #2080c0 and we widen them back.
for depth in 16 24 32; do
        Q=$(bd_profile "d$depth")
        printf '[profile.%s]\ndepth = %s\ndesktop = command\ncommand = xsetroot -solid "#2080c0"; exec sleep infinity\ncommand_settle_ms = 200\n' \
                "$Q" "$depth" >>"$BOTDESK_CONFIG"
        if ! bd_start "$Q"; then
                t_fail "a depth $depth desktop starts" "$(bd_err "$Q")"
                continue
        fi
        # xsetroot may still be on its way when the session counts as settled.
        for _ in $(seq 30); do
                "$BOTDESK" thumbnail "$Q" --size 96x96 -o "$O/d$depth.png" 2>"$O/d$depth.err" || break
                probe=$(png_probe "$O/d$depth.png")
                [ "${probe% *}" = "0 0 0" ] || break
                sleep 0.1
        done
        read -r r g b n <<<"$probe"
        if [ "$depth" = 16 ]; then want="33 130 18[0-9]|33 130 19[0-9]"; else want="32 128 192"; fi
        if printf '%s %s %s' "$r" "$g" "$b" | grep -Eqx "$want" && [ "$n" = 1 ]; then
                t_pass "a depth $depth screen of #2080c0 is one colour, $r $g $b, in the thumbnail"
        else
                t_fail "a depth $depth screen of #2080c0 is one colour in the thumbnail" "centre $r $g $b, $n colours" \
                        "$(cat "$O/d$depth.err")"
        fi
        [ "$depth" = 24 ] && revisions "$Q"
        bd_stop "$Q"
done

t_done
