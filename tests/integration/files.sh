#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Files between the agent and its desktop's home, on a real desktop:
# botdesk files put/get/ls/rm/downloads and the MCP tools file_upload,
# file_download, file_list and downloads. A file goes in and comes back
# byte for byte after a program of the desktop changed it; a traversal
# corpus (../, absolute paths, a symlink to /etc, a symlink to a directory
# outside, a FIFO, a device node, a 2 GiB sparse file) is refused with the
# rule named and nothing read or created; a file that exists needs --force;
# under a human's control nothing is read or written; the journal has each
# transfer's path, size and SHA-256, never its content; a finished download
# (a browser's partial name renamed) is reported, and a wait for one ends
# when it appears, also when Chromium on the desktop downloads a local file. The clipboard carries PNG images both ways, over MCP and
# the CLI. Band 390.
. "$(dirname "$0")/lib.sh"
bd_init fil 390
bd_need_xserver
[ -n "$PY" ] || t_skip_all "python3 not installed"
bd_need sha256sum
bd_need_browser
bd_config
P=$(bd_profile a)
H=$XDG_STATE_HOME/botdesk/$P
OUT=$BD_T/outside
mkdir -p "$OUT" "$BD_T/local"
cd "$BD_T/local" || exit 1

files() { timeout 30 "$BOTDESK" files "$P" "$@" 2>"$BD_T/out/files.err"; }
err() { cat "$BD_T/out/files.err"; }
lease() { timeout 20 "$BOTDESK" lease "$P" "$@"; }
in_desktop() { timeout 20 "$BOTDESK" exec "$P" -- sh -c "$1" >/dev/null 2>>"$BD_T/out/exec.err"; }
json() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
outside_listing() { ls -A "$OUT"; }
mcp_call() { bd_mcp_call "$P" "$@"; }
# The text of a result (its first item), and whether it is an error.
mcp_text() { json 'd["content"][0]["text"]'; }
mcp_is_error() { json 'd.get("isError", False)'; }

t_ok "the desktop starts" bd_start "$P" || t_diag "$(bd_err "$P")"

# ---- put, change in the desktop, get back --------------------------------------------------------
head -c 300000 /dev/urandom >blob.bin
printf 'line one\n' >notes.txt
sum() { sha256sum "$1" | cut -d' ' -f1; }
files put notes.txt >put.out
t_is "$?" 0 "files put copies a local file into the desktop's home"
t_is "$(cat "$H/notes.txt")" "line one" "... where the desktop's home has it"
t_is "$(stat -c '%a %u' "$H/notes.txt")" "600 $(id -u)" "... mode 0600, the desktop's uid"
t_match "$(cat put.out)" "sha256 $(sum notes.txt)" "... and says its SHA-256"
t_ok "a program of the desktop changes it" in_desktop "printf 'changed in the desktop\n' >>\"\$XDG_CONFIG_HOME/../../notes.txt\""
rm -f notes.txt
t_ok "files get copies it back" files get notes.txt
t_is "$(cat notes.txt)" "line one
changed in the desktop" "... with the desktop's change"
files put blob.bin docs.bin --json >put.json
t_is "$(json 'd["size"]' <put.json) $(json 'd["sha256"]' <put.json)" "300000 $(sum blob.bin)" "put --json: size and SHA-256 of a binary file"
t_ok "files get SRC - writes it to standard output, byte for byte" bash -c "timeout 30 '$BOTDESK' files '$P' get docs.bin - | cmp - blob.bin"
mkdir -p "$H/docs"
t_ok "put into a directory of the home keeps the name" files put blob.bin docs
t_ok "... docs/blob.bin, byte for byte" cmp "$H/docs/blob.bin" blob.bin

# ---- a file that exists ---------------------------------------------------------------------------
printf 'other\n' >other.txt
files put other.txt notes.txt
t_is "$?" 3 "put over a file that exists: refused (3)"
t_match "$(err)" "give --force" "... naming --force"
t_is "$(head -1 "$H/notes.txt")" "line one" "... and the file is as it was"
t_ok "put --force replaces it" files put other.txt notes.txt --force
t_is "$(cat "$H/notes.txt")" "other" "... with the new content"
files get notes.txt >/dev/null
t_is "$?" 3 "get onto a local file that exists: refused (3)"
t_isnt "$(cat notes.txt)" "other" "... and the local file is as it was"

# ---- the traversal corpus -------------------------------------------------------------------------
printf 'secret outside\n' >"$OUT/secret"
ln -s "$OUT/secret" "$H/link-out"
ln -s /etc "$H/etc-link"
ln -s "$OUT" "$H/dir-out"
mkfifo "$H/fifo"
truncate -s 2G "$H/sparse"
before=$(outside_listing)
refused() {
        local what=$1 rule=$2 rc
        shift 2
        files "$@" >"$BD_T/out/refused.out"
        rc=$?
        t_is "$rc" 3 "$what: refused (3)"
        t_match "$(err)" "$rule" "... naming the rule"
}
for p in ../outside/secret dir-out/secret link-out etc-link/passwd; do
        refused "get $p" "leads out of the desktop's home" get "$p" stolen
        t_ok "... nothing copied" test ! -e stolen
done
refused "get /etc/passwd" "relative to the desktop's home" get /etc/passwd stolen
refused "get a FIFO" "not a regular file" get fifo stolen
# Only root can make a device node: the root run checks it, the user run cannot have one.
if [ "$(id -u)" = 0 ]; then
        mknod "$H/null" c 1 3
        refused "get a device node" "not a regular file" get null stolen
fi
refused "get a 2 GiB sparse file" "larger than" get sparse stolen
t_ok "... nothing copied" test ! -e stolen
refused "put to ../outside/x" "leads out of the desktop's home" put other.txt ../outside/x
refused "put through a symlink to a directory outside" "leads out of the desktop's home" put other.txt dir-out/x
refused "put over a FIFO with --force" "not a regular file" put other.txt fifo --force
refused "rm ../outside/secret" "leads out of the desktop's home" rm ../outside/secret
refused "ls ../" "leads out of the desktop's home" ls ../
t_is "$(outside_listing)" "$before" "nothing was created or removed outside the home"
t_is "$(cat "$OUT/secret")" "secret outside" "... and the file outside is untouched"
truncate -s 200M big.local
files put big.local
t_is "$?" 3 "put of a 200 MiB file over the 100 MiB cap: refused (3)"
t_ok "... nothing written" test ! -e "$H/big.local"
t_ok "rm of a symlink to /etc removes the link" files rm etc-link
t_ok "... not /etc" test -d /etc -a ! -L "$H/etc-link"

# ---- ls ---------------------------------------------------------------------------------------------
files ls --json >ls.json
t_is "$(json '[e["type"] for e in d["entries"] if e["name"] in ("docs", "fifo", "notes.txt", "link-out")]' <ls.json)" \
        "['directory', 'other', 'symlink', 'file']" "ls --json: each entry's type"
t_is "$(files ls docs --json | json '[(e["name"], e["size"]) for e in d["entries"]]')" "[('blob.bin', 300000)]" "ls DIR lists that directory"

# ---- under a human's control ------------------------------------------------------------------------
lease take --viewer human >/dev/null
files put other.txt held.txt
t_is "$?" 3 "put while a human holds control: refused (3)"
t_ok "... nothing written" test ! -e "$H/held.txt"
rm -f got.txt
files get notes.txt got.txt
t_is "$?" 3 "get while a human holds control: refused (3)"
t_ok "... nothing read" test ! -e got.txt
r=$(mcp_call file_download '{"path": "notes.txt"}')
t_match "$(mcp_text <<<"$r")" '"suppressed": "human_has_control"' "MCP file_download while a human holds control: suppressed"
lease release --viewer human >/dev/null

# ---- MCP --------------------------------------------------------------------------------------------
b64=$(base64 -w0 blob.bin)
r=$(mcp_call file_upload "{\"path\": \"docs/up.bin\", \"content\": \"$b64\"}")
t_is "$(mcp_is_error <<<"$r")" False "MCP file_upload writes a file"
t_ok "... byte for byte" cmp "$H/docs/up.bin" blob.bin
t_is "$(mcp_text <<<"$r" | json 'd["sha256"]')" "$(sum blob.bin)" "... and says its SHA-256"
r=$(mcp_call file_upload "{\"path\": \"docs/up.bin\", \"content\": \"$b64\"}")
t_match "$(mcp_text <<<"$r")" '"force": true' "MCP file_upload over a file that exists: refused, naming force"
r=$(mcp_call file_upload '{"path": "../x", "content": "aGk="}')
t_match "$(mcp_text <<<"$r")" "leads out of the desktop's home" "MCP file_upload to ../x: refused with the rule"
r=$(mcp_call file_upload '{"path": "bad.b64", "content": "not base64!"}')
t_match "$(mcp_text <<<"$r")" "not base64" "MCP file_upload of content that is not base64: refused"
t_ok "... nothing written" test ! -e "$H/bad.b64"
r=$(mcp_call file_download '{"path": "docs/blob.bin"}')
t_is "$(json 'd["content"][1]["resource"]["mimeType"]' <<<"$r")" "application/octet-stream" "MCP file_download: a resource blob with a MIME type"
json 'd["content"][1]["resource"]["blob"]' <<<"$r" | base64 -d >dl.bin
t_ok "... whose bytes are the file's" cmp dl.bin blob.bin
r=$(mcp_call file_download '{"path": "sparse"}')
t_match "$(mcp_text <<<"$r")" "mcp_max_bytes" "MCP file_download over the MCP cap: refused, naming [files] mcp_max_bytes"
r=$(mcp_call file_list '{"path": "docs"}')
t_is "$(mcp_text <<<"$r" | json 'sorted(e["name"] for e in d["entries"])')" "['blob.bin', 'up.bin']" "MCP file_list lists a directory"

# ---- downloads --------------------------------------------------------------------------------------
files downloads >dl0.json
t_is "$?" 0 "downloads answers with the Downloads folder as it is"
cursor=$(json 'd["cursor"]' <dl0.json)
t_ok "a browser's partial download appears" in_desktop 'printf partial >"$XDG_CONFIG_HOME/../../Downloads/report.pdf.crdownload"'
t_is "$(files downloads --since "$cursor" | json 'len(d["files"])')" 0 "... and is not reported while partial"
t_ok "... then is renamed to its name, finished" in_desktop 'cd "$XDG_CONFIG_HOME/../../Downloads" && mv report.pdf.crdownload report.pdf'
files downloads --since "$cursor" >dl1.json
t_is "$(json '[(f["name"], f["path"], f["size"]) for f in d["files"]]' <dl1.json)" "[('report.pdf', 'Downloads/report.pdf', 7)]" \
        "downloads --since CURSOR reports the finished file"
cursor=$(json 'd["cursor"]' <dl1.json)
t_is "$(files downloads --since "$cursor" | json 'len(d["files"])')" 0 "... and not again since its cursor"
# Chromium and Firefox hold the final name with an empty file from the start and rename the partial one
# over it at the end (Chromium's may still be "Unconfirmed N.crdownload"): the placeholder is no finished
# download while a browser writes.
t_ok "a browser's placeholder and its partial file appear" \
        in_desktop 'cd "$XDG_CONFIG_HOME/../../Downloads" && : >held.zip && printf 12345 >"Unconfirmed 4711.crdownload"'
t_is "$(files downloads --since "$cursor" | json 'len(d["files"])')" 0 "... the empty placeholder is not reported"
t_ok "... then the partial file is renamed over it" \
        in_desktop 'cd "$XDG_CONFIG_HOME/../../Downloads" && mv "Unconfirmed 4711.crdownload" held.zip'
files downloads --since "$cursor" >dlh.json
t_is "$(json '[(f["name"], f["size"]) for f in d["files"]]' <dlh.json)" "[('held.zip', 5)]" "... and now it is, with its size"
cursor=$(json 'd["cursor"]' <dlh.json)
t_match "$(cat "$H/xdg/config/user-dirs.dirs")" "XDG_DOWNLOAD_DIR=\"$H/Downloads\"" "the desktop's XDG_DOWNLOAD_DIR is its home's Downloads"
# A wait that a download ends: the answer comes when the file appears, not at the timeout.
timeout 40 "$BOTDESK" files "$P" downloads --since "$cursor" --timeout 30 >dl2.json 2>"$BD_T/out/wait.err" &
waiter=$!
bd_own_pid "$waiter"
t_ok "a program of the desktop finishes another download" in_desktop 'cd "$XDG_CONFIG_HOME/../../Downloads" && printf x >b.part && mv b.part b.zip'
t_ok "downloads --timeout returns once it appears (waited up to 30 s)" wait_for 30 bash -c "! kill -0 $waiter 2>/dev/null"
wait "$waiter"
t_is "$?" 0 "... with 0"
t_is "$(json '[f["name"] for f in d["files"]]' <dl2.json)" "['b.zip']" "... naming it"
files downloads --since "$(json 'd["cursor"]' <dl2.json)" --timeout 1 >/dev/null
t_is "$?" 1 "downloads --timeout 1 with nothing new: 1"
r=$(mcp_call downloads "{\"since\": \"$cursor\"}")
t_is "$(mcp_text <<<"$r" | json '[f["name"] for f in d["files"]]')" "['b.zip']" "MCP downloads reports it too"

# A real browser's download: Chromium on the desktop's screen opens a local server's archive, which it
# saves into the desktop's Downloads (as NAME.crdownload, then renamed); the wait ends when it is done.
mkdir -p "$BD_T/www" && head -c 200000 /dev/urandom >"$BD_T/www/data.zip"
"$PY" -c 'import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True)
s.serve_forever()' "$BD_T/www" >"$BD_T/out/www.port" 2>"$BD_T/out/www.err" &
bd_own_pid $!
t_ok "a local HTTP server listens (waited up to 10 s)" wait_for 10 test -s "$BD_T/out/www.port"
cursor=$(files downloads | json 'd["cursor"]')
timeout 90 "$BOTDESK" exec "$P" -- "$CHROMIUM" --no-sandbox --disable-gpu --no-first-run --no-default-browser-check \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$BD_T/chromium" \
        "http://127.0.0.1:$(head -n1 "$BD_T/out/www.port")/data.zip" >"$BD_T/out/chromium.out" 2>&1 &
browser=$!
bd_own_pid "$browser"
files downloads --since "$cursor" --timeout 40 >dl3.json
t_is "$?" 0 "downloads --timeout returns when Chromium's download is done (waited up to 40 s)"
t_is "$(json '[(f["name"], f["size"]) for f in d["files"]]' <dl3.json)" "[('data.zip', 200000)]" "... naming the file and its size"
t_ok "... which is the server's, byte for byte" cmp "$H/Downloads/data.zip" "$BD_T/www/data.zip"
kill "$browser" 2>/dev/null
t_ok "Chromium ends on SIGTERM to its pid (waited up to 20 s)" wait_for 20 bash -c "! kill -0 $browser 2>/dev/null"

# ---- the clipboard's images, both ways ----------------------------------------------------------------
# png W H R G B FILE: a real PNG of one colour.
png() {
        "$PY" - "$@" <<'PYEOF'
import struct, sys, zlib
w, h, r, g, b, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
raw = b"".join(b"\0" + bytes((r, g, b)) * w for _ in range(h))
open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                      chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PYEOF
}
png 40 30 200 10 10 red.png
png 20 20 10 10 200 blue.png
r=$(mcp_call clipboard_write "{\"type\": \"image/png\", \"content\": \"$(base64 -w0 red.png)\"}")
t_is "$(mcp_is_error <<<"$r")" False "MCP clipboard_write puts a PNG image on the clipboard"
t_ok "... which botdesk clipboard get --type image/png reads back, byte for byte" \
        bash -c "timeout 20 '$BOTDESK' clipboard '$P' get --type image/png | cmp - red.png"
t_ok "botdesk clipboard set --type image/png puts another" \
        bash -c "timeout 20 '$BOTDESK' clipboard '$P' set --type image/png <blue.png"
r=$(mcp_call clipboard_read '{"type": "image/png"}')
t_is "$(json 'd["content"][0]["mimeType"]' <<<"$r")" "image/png" "MCP clipboard_read image/png returns an image"
json 'd["content"][0]["data"]' <<<"$r" | base64 -d >clip.png
t_ok "... the one set, byte for byte" cmp clip.png blue.png
r=$(mcp_call clipboard_write '{"type": "image/png", "content": "%%%"}')
t_match "$(mcp_text <<<"$r")" "not base64" "MCP clipboard_write of an image that is not base64: refused"

# ---- the journal ------------------------------------------------------------------------------------
timeout 20 "$BOTDESK" journal "$P" --json >j.json 2>"$BD_T/out/journal.err"
t_ok "the journal has the puts with path, size and SHA-256" \
        "$PY" -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if any(e["action"] == "files put" and e["args"].get("path") == "docs.bin" and e["args"].get("size") == 300000 and e["args"].get("sha256") == sys.argv[2] for e in d) else 1)' j.json "$(sum blob.bin)"
t_ok "... the gets, MCP's too" \
        "$PY" -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if any(e["action"] == "files get" and e["args"].get("via") == "mcp" for e in d) else 1)' j.json
t_ok "... never the content" bash -c "! grep -rq 'changed in the desktop' '$H/journal'"

# ---- the caps are the configuration's ----------------------------------------------------------------
printf '[files]\nmax_bytes = 1000\nmcp_max_bytes = 100\n' >>"$BOTDESK_CONFIG"
files put blob.bin capped.bin
t_is "$?" 3 "with [files] max_bytes = 1000, a put of 300000 bytes: refused (3)"
t_match "$(err)" "larger than 1000 bytes" "... naming the cap"
t_ok "... nothing written" test ! -e "$H/capped.bin"
r=$(mcp_call file_upload "{\"path\": \"capped.bin\", \"content\": \"$(head -c 200 blob.bin | base64 -w0)\"}")
t_match "$(mcp_text <<<"$r")" "larger than 100 bytes" "with [files] mcp_max_bytes = 100, an MCP upload of 200 bytes: refused"
t_ok "... nothing written" test ! -e "$H/capped.bin"

t_ok "the desktop stops" bd_stop "$P"
t_done
