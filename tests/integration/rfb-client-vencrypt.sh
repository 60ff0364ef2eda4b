#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A remote profile whose VNC server speaks VeNCrypt (control/rfb-client.h,
# control/rfb-tls.h), against real TigerVNC servers on 127.0.0.1: one
# offering X509Vnc alone with a certificate for 127.0.0.1 from a CA the test
# makes, one with anonymous TLSVnc, one whose certificate names another
# address. With remote_ca_file, botdesk thumbnail and botdesk rfb see the
# server's screen through TLS (and through remote = exec:); another CA, a
# certificate for another address, no remote_ca_file, and a CA for a server
# of anonymous TLS alone are each refused in botdesk's words; a server that
# stalls in the TLS handshake is given up at the 10 s deadline. The
# password is in nothing botdesk wrote, and no process of the profile
# outlives a verb. The certificates are made with certtool (gnutls-bin):
# the same library as botdesk's client, and its templates say the IP
# subjectAltName in one line. Band 760, once.
. "$(dirname "$0")/lib.sh"
bd_init rve 760 once
bd_need_xserver
bd_need vncpasswd xsetroot certtool socat
X=$(command -v Xtigervnc || command -v Xvnc)
V=$(bd_profile tls)
gone() { ! kill -0 "$1" 2>/dev/null; }

# ---- the certificates: a CA, a server's for 127.0.0.1, one for 127.0.0.2, and a CA of nobody's ----------
P=$BD_T/pki
mkdir -p "$P"
# cert NAME TEMPLATE-LINES [CA]: NAME.key and NAME.pem, self-signed or signed by CA.
cert() {
        local name=$1 tmpl=$2 ca=${3:-}
        printf '%s\nexpiration_days = 2\n' "$tmpl" >"$P/$name.tmpl"
        certtool --generate-privkey --key-type=ecdsa --outfile "$P/$name.key" >"$BD_T/out/certtool-$name.log" 2>&1 || return 1
        if [ -z "$ca" ]; then
                certtool --generate-self-signed --load-privkey "$P/$name.key" --template "$P/$name.tmpl" \
                        --outfile "$P/$name.pem" >>"$BD_T/out/certtool-$name.log" 2>&1
        else
                certtool --generate-certificate --load-privkey "$P/$name.key" --load-ca-certificate "$P/$ca.pem" \
                        --load-ca-privkey "$P/$ca.key" --template "$P/$name.tmpl" --outfile "$P/$name.pem" \
                        >>"$BD_T/out/certtool-$name.log" 2>&1
        fi
}
CA_TMPL=$'cn = "botdesk test CA"\nca\ncert_signing_key'
SRV_TMPL=$'tls_www_server\nsigning_key\nencryption_key'
t_ok "certtool makes a CA" cert ca "$CA_TMPL"
t_ok "... a certificate for 127.0.0.1 (an IP subjectAltName) signed by it" \
        cert srv "cn = \"127.0.0.1\""$'\n'"ip_address = \"127.0.0.1\""$'\n'"$SRV_TMPL" ca
t_ok "... one for 127.0.0.2 signed by it too" cert other "cn = \"127.0.0.2\""$'\n'"ip_address = \"127.0.0.2\""$'\n'"$SRV_TMPL" ca
t_ok "... and another CA, which signed neither" cert ca2 "$CA_TMPL"

# ---- the servers ---------------------------------------------------------------------------------------
SECRET=Tls$((RANDOM % 90000 + 10000))q
printf '%s\n' "$SECRET" | vncpasswd -f >"$BD_T/passwd"
printf '%s\n' "$SECRET" >"$BD_T/pw"
chmod 600 "$BD_T/passwd" "$BD_T/pw"
SERVERS=()
# serve N LOG-WORD ARGS...: a TigerVNC server on display :N and 127.0.0.1:5900+N, its pid owned by the test.
serve() {
        local n=$1
        shift
        "$X" ":$n" -rfbport $((5900 + n)) -localhost -nolisten tcp -geometry 640x480 -depth 24 -desktop "tls-$n" \
                -PasswordFile "$BD_T/passwd" "$@" >"$BD_T/out/x$n.log" 2>&1 &
        SERVERS+=($!)
        bd_own_pid $!
}
serve 760 -SecurityTypes X509Vnc -X509Cert "$P/srv.pem" -X509Key "$P/srv.key"
serve 761 -SecurityTypes TLSVnc
serve 762 -SecurityTypes X509Vnc -X509Cert "$P/other.pem" -X509Key "$P/other.key"
for n in 760 761 762; do
        t_ok "TigerVNC :$n listens on 127.0.0.1:$((5900 + n)) (waited 10 s)" \
                wait_for 10 grep -q "Listening for VNC connections" "$BD_T/out/x$n.log"
done
DISPLAY=:760 xsetroot -solid '#2468ac' 2>"$BD_T/out/xsetroot.err"
DISPLAY=:761 xsetroot -solid '#13579b' 2>>"$BD_T/out/xsetroot.err"

# profile REMOTE [CA]: the remote profile, its password file, and remote_ca_file when given.
profile() {
        {
                printf '[profile.%s]\nremote = %s\nremote_allow_loopback = yes\nremote_password_file = %s\n' \
                        "$V" "$1" "$BD_T/pw"
                [ -n "${2:-}" ] && printf 'remote_ca_file = %s\n' "$2"
        } >"$BOTDESK_CONFIG"
}
# centre FILE: the PNG's size and the colour at its centre, as "WxH RRGGBB".
centre() {
        "$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
import web_client as w
wd, h, bpp, rows = w.png_pixels(open(sys.argv[2], "rb").read())
r, g, b = rows[h // 2][bpp * (wd // 2):bpp * (wd // 2) + 3]
print("%dx%d %02x%02x%02x" % (wd, h, r, g, b))' "$BD_LIB_DIR" "$1"
}
# thumb: botdesk thumbnail of the profile into $BD_T/t.png, what it said in $out (and out/thumb.log).
thumb() {
        local rc
        rm -f "$BD_T/t.png"
        out=$(timeout 30 "$BOTDESK" thumbnail "$V" -o "$BD_T/t.png" 2>&1)
        rc=$?
        printf '%s\n' "$out" >>"$BD_T/out/thumb.log"
        return $rc
}
# No process whose command line names the profile (the verb, its front, its TLS pump) is left.
none_left() { [ -z "$(cmdline_pids "$V")" ]; }

# ---- X509Vnc with the right CA ---------------------------------------------------------------------------
profile "127.0.0.1:$((5900 + 760))" "$P/ca.pem"
thumb
t_is "$?" 0 "botdesk thumbnail through VeNCrypt X509Vnc, the certificate verified against remote_ca_file" ||
        t_diag "$out"
t_is "$(centre "$BD_T/t.png" 2>&1)" "640x480 2468ac" "... is the server's screen, the colour the test painted"
t_ok "... and nothing of the profile is left running (the TLS pump ended with the verb; waited 5 s)" wait_for 5 none_left
t_is "$(grep -c "public address" <<<"$out")" 0 "... no warning about RFB in clear"

# botdesk rfb: the viewer speaks plain RFB to botdesk's front, which speaks through the pump.
client() { timeout 60 "$PY" "$BD_LIB_DIR/rfbclient.py" "$BOTDESK" "$V" "$@" 2>>"$BD_T/out/client.err"; }
out=$(client v1)
printf '%s\n' "$out" >>"$BD_T/out/client.log"
t_match "$out" "^init 640x480" "botdesk rfb through VeNCrypt: the viewer gets the server's 640x480 screen" || t_diag "$out"
t_match "$out" "exit 0\$" "... and the bridge exits 0 when the viewer closes"
t_ok "... nothing of the profile is left running (waited 5 s)" wait_for 5 none_left

# The agent's input through the pump: botdesk input's pointer events reach the server's own pointer.
timeout 30 "$BOTDESK" input "$V" move 123 45 2>"$BD_T/out/input.err"
t_is "$?" 0 "botdesk input through VeNCrypt: exit 0"
t_is "$(DISPLAY=:760 xdotool getmouselocation 2>/dev/null | cut -d' ' -f1-2)" "x:123 y:45" \
        "... and the server's pointer is where the agent moved it (the pump passed the event on before it ended)"
t_ok "... nothing of the profile is left running (waited 5 s)" wait_for 5 none_left

profile "exec:socat - TCP:127.0.0.1:$((5900 + 760))" "$P/ca.pem"
thumb
t_is "$?" 0 "remote = exec:COMMAND with remote_ca_file: the certificate's chain verified, the same screen" ||
        t_diag "$out"
t_is "$(centre "$BD_T/t.png" 2>&1)" "640x480 2468ac" "... the colour the test painted"
t_ok "... and neither the command nor the pump is left (waited 5 s)" wait_for 5 none_left

# ---- the refusals ----------------------------------------------------------------------------------------
profile "127.0.0.1:$((5900 + 760))" "$P/ca2.pem"
thumb
t_is "$?" 1 "a CA that did not sign the server's certificate: exit 1"
t_match "$out" "the server's certificate does not verify: .*" "... saying the certificate does not verify" ||
        t_diag "$out"
t_is "$(grep -c . <<<"$out")" 1 "... in one line"
t_ok "... and no picture" test ! -e "$BD_T/t.png"

profile "127.0.0.1:$((5900 + 762))" "$P/ca.pem"
thumb
t_is "$?" 1 "a certificate from the right CA for another address (127.0.0.2): exit 1"
t_match "$out" "the server's certificate does not verify: .*" "... it does not verify either" || t_diag "$out"

profile "127.0.0.1:$((5900 + 760))"
thumb
t_is "$?" 1 "a server offering X509 alone, no remote_ca_file: exit 1, no unverified TLS"
t_match "$out" "remote_ca_file" "... naming remote_ca_file" || t_diag "$out"

profile "127.0.0.1:$((5900 + 760))" "$BD_T/pw"
thumb
t_is "$?" 1 "remote_ca_file that holds no certificate: exit 1"
t_match "$out" "remote_ca_file holds no PEM certificate" "... saying so" || t_diag "$out"

# ---- anonymous TLS ---------------------------------------------------------------------------------------
profile "127.0.0.1:$((5900 + 761))"
thumb
t_is "$?" 0 "a server of anonymous TLS alone (TLSVnc), no remote_ca_file: its screen, encrypted" || t_diag "$out"
t_is "$(centre "$BD_T/t.png" 2>&1)" "640x480 13579b" "... the colour the test painted"
profile "127.0.0.1:$((5900 + 761))" "$P/ca.pem"
thumb
t_is "$?" 1 "with remote_ca_file, a server of anonymous TLS alone is refused: nothing would verify it"
t_match "$out" "remote_ca_file" "... naming remote_ca_file" || t_diag "$out"

# ---- a server that stalls in the TLS handshake -----------------------------------------------------------
STALL_PORT=$((5900 + 763))
"$PY" - "$STALL_PORT" "$BD_T/stall.ready" <<'PYEOF' >"$BD_T/out/stall.log" 2>&1 &
import socket, struct, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
open(sys.argv[2], "w").close()
c, _ = s.accept()
c.sendall(b"RFB 003.008\n")
c.recv(12)
c.sendall(b"\x01\x13")
c.recv(1)
c.sendall(b"\x00\x02")
c.recv(2)
c.sendall(b"\x00\x01" + struct.pack(">I", 261))
c.recv(4)
c.sendall(b"\x01")
c.recv(4096)                    # the client's hello, never answered
time.sleep(30)
PYEOF
STALL=$!
bd_own_pid $STALL
t_ok "a fake server that stalls after the client's TLS hello listens (waited 10 s)" wait_for 10 test -e "$BD_T/stall.ready"
profile "127.0.0.1:$STALL_PORT" "$P/ca.pem"
start=$(date +%s)
thumb
rc=$?
took=$(($(date +%s) - start))
t_is "$rc" 1 "botdesk thumbnail gives up on it: exit 1"
t_match "$out" "did not finish the TLS handshake in time" "... saying the TLS handshake did not finish in time" ||
        t_diag "$out"
t_ok "... at the 10 s deadline (took ${took} s)" test "$took" -ge 9 -a "$took" -le 15
t_ok "... and nothing of the profile is left running (waited 5 s)" wait_for 5 none_left
kill "$STALL" 2>/dev/null

# Wherever botdesk writes for the profile (its journal and state, its runtime dir) and whatever it said.
leaks=$(grep -rlF -- "$SECRET" "$XDG_STATE_HOME/botdesk" "$(bd_rt "$V")" "$BD_T/out" 2>/dev/null)
t_is "$leaks" "" "the password is in no file botdesk wrote (state, journal, runtime dir) and in none of its output"

for pid in "${SERVERS[@]}"; do
        kill -TERM "$pid"
        t_ok "the server $pid exits on SIGTERM (waited 10 s)" wait_for 10 gone "$pid"
done
t_ok "nothing whose command line names the profile outlives the test" none_left
t_done
