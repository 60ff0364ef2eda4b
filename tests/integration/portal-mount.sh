#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A desktop mounts nothing in a runtime dir: its session bus does not
# start the document portal (xdg-document-portal), which mounts a FUSE file
# system at the caller's $XDG_RUNTIME_DIR/doc (in a login, the user's own
# portal's mount point) and, killed by stop, would leave a dead mount there
# ("Transport endpoint is not connected") that breaks the next rm -r of
# the dir. A GTK file dialog (zenity) opens on the desktop, the bus is
# asked for org.freedesktop.portal.Documents outright and refuses, and
# after stop findmnt shows nothing beneath the test's dirs.
# Band 475-479, main variant only.
. "$(dirname "$0")/lib.sh"
bd_init pmnt 475 once
bd_need_xserver
bd_need dbus-send zenity findmnt xdotool
[ -x /usr/libexec/xdg-document-portal ] || t_skip_all "xdg-desktop-portal (xdg-document-portal) not installed"

bd_config
P=$(bd_profile a)
# What is mounted beneath this test's dirs (the runtime dir among them).
mounts() { findmnt -rn -o TARGET,FSTYPE | grep -F "$BD_T" ; }
# Document portals of this test's desktop (their runtime dir is this test's).
portal_pids() {
        local p
        for p in $(cmdline_pids xdg-document-portal); do
                tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "XDG_RUNTIME_DIR=$BD_T/run" && echo "$p"
        done
}

bd_start "$P"
rc=$?
t_is "$rc" 0 "desktop $P starts"
[ "$rc" = 0 ] || { t_diag "$(bd_err "$P")"; t_done; }

# A GTK application's file dialog: GTK asks the session bus for the document portal.
timeout 60 "$BOTDESK" exec "$P" -- zenity --file-selection --title "botdesk portal test" \
        >"$BD_T/out/zenity.out" 2>&1 &
ZENITY=$!
bd_own_pid "$ZENITY"
dialog() { timeout 10 "$BOTDESK" exec "$P" -- xdotool search --name "botdesk portal test" >/dev/null 2>&1; }
wait_for 30 dialog
t_is "$?" 0 "the file dialog opens on the desktop (within 30 s)"
kill -TERM "$ZENITY" 2>/dev/null
wait "$ZENITY" 2>/dev/null

out=$(timeout 30 "$BOTDESK" exec "$P" -- dbus-send --session --print-reply --dest=org.freedesktop.DBus \
        /org/freedesktop/DBus org.freedesktop.DBus.StartServiceByName string:org.freedesktop.portal.Documents uint32:0 2>&1)
rc=$?
t_isnt "$rc" 0 "the desktop's bus refuses to start the document portal when asked outright"
t_match "$out" 'Error\.(Spawn\.ChildExited|ServiceUnknown)' "... as a service that cannot start ($(head -n1 <<<"$out"))"
t_is "$(mounts)" "" "nothing is mounted beneath the runtime dirs while the desktop runs"

bd_stop "$P"
t_is "$?" 0 "desktop $P stops"
t_is "$(mounts)" "" "after stop, findmnt shows nothing beneath the runtime dirs"
t_is "$(portal_pids)" "" "and no document portal runs"
# A failure leaves a dead mount in this test's dir: detach it, or the cleanup's rm -r fails on it.
for m in $(findmnt -rn -o TARGET | grep -F "$BD_T/"); do
        umount -l "$m" || t_diag "cannot detach $m"
done
t_done
