#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A QEMU VM's console as an agent's computer: Debian's cloud kernel booted
# under qemu (TCG) from a busybox initramfs the test makes, its VGA console
# on QEMU's own VNC server on loopback; a profile with remote = names it.
# An MCP client (botdesk mcp) takes a screenshot, types a command with
# capitals and shifted symbols (QEMU maps a keysym to its key alone, so
# botdesk sends Shift as a keyboard would) whose output the guest writes to
# its serial port, and a command that paints the console; the screen's
# revision changes and its picture shows the painted colour. The guest's
# serial port is the test's witness of what was typed. Band 755, once.
. "$(dirname "$0")/lib.sh"
bd_init qvm 755 once
bd_need qemu-system-x86_64 cpio
[ -n "$PY" ] || t_skip_all "python3 not installed"
BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] && ! file -L "$BUSYBOX" 2>/dev/null | grep -q 'dynamically linked' ||
        t_skip_all "no static busybox (busybox-static)"

# ---- the kernel: the SELinux tier's cache, else Debian's cloud kernel fetched into it -----------------
CACHE=${BOTDESK_VM_CACHE:-/var/cache/botdesk-vm}
KERNEL=
if [ -e "$CACHE/kernel/.ok" ] && [ -f "$CACHE/kernel/vmlinuz" ]; then
        KERNEL=$CACHE/kernel/vmlinuz
elif mkdir -p "$CACHE" 2>/dev/null; then
        exec 9>"$CACHE/.lock"
        flock 9
        if [ ! -f "$CACHE/vnc-kernel/vmlinuz" ]; then
                kpkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
                K=$BD_T/kernel
                mkdir -p "$K" "$CACHE/vnc-kernel"
                [ -n "$kpkg" ] && (cd "$K" && apt-get download -q "$kpkg" >/dev/null 2>&1 && dpkg-deb -x ./*.deb x) &&
                        cp "$K"/x/boot/vmlinuz-* "$CACHE/vnc-kernel/vmlinuz.new" &&
                        mv "$CACHE/vnc-kernel/vmlinuz.new" "$CACHE/vnc-kernel/vmlinuz"
        fi
        exec 9>&-
        [ -f "$CACHE/vnc-kernel/vmlinuz" ] && KERNEL=$CACHE/vnc-kernel/vmlinuz
fi
[ -n "$KERNEL" ] || t_skip_all "no kernel to boot: apt cannot fetch linux-image-cloud-amd64 into $CACHE"

# ---- the guest: busybox, a shell on the VGA console, the serial port for the test -------------------
I=$BD_T/initrd
mkdir -p "$I/bin" "$I/proc" "$I/dev"
cp "$BUSYBOX" "$I/bin/busybox"
cat >"$I/init" <<'GUEST'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
# paint: the console's background grey, the whole screen cleared to it.
printf '#!/bin/sh\nprintf "\\033[47m\\033[2J"\necho painted >/dev/ttyS0\n' >/bin/paint
chmod 755 /bin/paint
echo botdesk-guest-ready >/dev/ttyS0
while :; do setsid sh -c 'exec sh -i </dev/tty1 >/dev/tty1 2>&1'; done
GUEST
chmod 755 "$I/init"
(cd "$I" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$BD_T/initrd.img"
N=55 PORT=$((5900 + 55))
# TCG: this machine kind has no KVM. -no-reboot: a guest that dies stops.
qemu-system-x86_64 -m 256 -nodefaults -vga std -display none -vnc "127.0.0.1:$N" \
        -serial "file:$BD_T/serial.log" -kernel "$KERNEL" -initrd "$BD_T/initrd.img" \
        -append "console=tty1 quiet" -no-reboot >"$BD_T/out/qemu.log" 2>&1 &
QP=$!
bd_own_pid $QP
t_ok "the guest boots to its shell (waited 90 s for its word on the serial port)" \
        wait_for 90 grep -qs botdesk-guest-ready "$BD_T/serial.log" || t_diag "$(cat "$BD_T/out/qemu.log")"

V=$(bd_profile vm)
printf '[profile.%s]\nremote = 127.0.0.1:%s\nremote_allow_loopback = yes\n' "$V" "$PORT" >"$BOTDESK_CONFIG"

out=$(timeout 150 "$PY" - "$BOTDESK" "$V" <<'PYEOF' 2>&1
import json, subprocess, sys
botdesk, profile = sys.argv[1:3]
calls = [("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
         ("tools/call", {"name": "computer", "arguments": {"action": "screenshot"}}),
         ("tools/call", {"name": "computer", "arguments": {"action": "type", "text": 'echo OK_Bot:"vm"!?~ >/dev/ttyS0\n'}}),
         ("tools/call", {"name": "computer", "arguments": {"action": "type", "text": "paint\n"}}),
         ("tools/call", {"name": "computer", "arguments": {"action": "screenshot"}})]
lines = [json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}) for i, (m, p) in enumerate(calls)]
lines.insert(1, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
p = subprocess.run([botdesk, "mcp", profile], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=140)
res = {json.loads(l)["id"]: json.loads(l) for l in p.stdout.splitlines()}
def text(i):
    return json.loads(next(c["text"] for c in res[i]["result"]["content"] if c["type"] == "text"))
first, last = text(1), text(4)
print("shot", [c.get("mimeType") for c in res[1]["result"]["content"] if c["type"] == "image"], first.get("screenshot"))
print("type", res[2]["result"].get("isError", False), res[3]["result"].get("isError", False), text(3).get("settle"))
print("changed", first.get("revision") != last.get("revision"))
PYEOF
)
printf '%s\n' "$out" >"$BD_T/out/mcp.txt"
t_match "$(sed -n 's/^shot //p' <<<"$out")" "^\\['image/jpeg'\\] \\{'width': [0-9]+, 'height': [0-9]+" \
        "botdesk mcp takes a screenshot of the VM's console (a JPEG)" || t_diag "$out"
t_match "$(sed -n 's/^type //p' <<<"$out")" "^False False (settled|still_changing|no_change)$" "... types two commands into it"
t_ok "the guest ran the first with its capitals and shifted symbols intact (waited 20 s for its serial line)" \
        wait_for 20 grep -qF 'OK_Bot:vm!?~' "$BD_T/serial.log"
t_ok "... and the second, which paints the console (waited 20 s)" wait_for 20 grep -q '^painted' "$BD_T/serial.log"
t_is "$(sed -n 's/^changed //p' <<<"$out")" True "the screenshot after the commands has another revision than the one before"
# centre FILE: the PNG's colour at its centre.
centre() {
        "$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
import web_client as w
wd, h, bpp, rows = w.png_pixels(open(sys.argv[2], "rb").read())
r, g, b = rows[h // 2][bpp * (wd // 2):bpp * (wd // 2) + 3]
print("%02x%02x%02x" % (r, g, b))' "$BD_LIB_DIR" "$1"
}
timeout 30 "$BOTDESK" thumbnail "$V" -o "$BD_T/after.png" 2>"$BD_T/out/thumb.err"
t_is "$(centre "$BD_T/after.png" 2>&1)" a8a8a8 "the picture of the console shows what the command painted (VGA light grey)"
t_match "$(timeout 30 "$BOTDESK" journal "$V" --json 2>&1 | grep -c '"action": "agent type"')" "^2$" \
        "the journal records both commands the agent typed"

kill -TERM "$QP"
t_ok "qemu exits on SIGTERM (waited 20 s)" wait_for 20 sh -c "! kill -0 $QP 2>/dev/null"
t_is "$(cmdline_pids "mcp $V" | wc -w)" 0 "no botdesk process of the profile outlives the test"
t_done
