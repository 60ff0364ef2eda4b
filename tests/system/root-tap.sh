# SPDX-License-Identifier: LGPL-2.1-or-later
# The root part of a t-*.sh script (run.sh's "# root-before:"), sourced by
# it: run.sh runs scripts as the test user, with root only before and
# after, so what root checks goes as TAP lines into a file the user part
# relays (root_tap_relay in lib.sh).
#
#   root_tap_open FILE   the file, new and readable by the test user; fd 3 writes to it
#   r_ok DESC, r_not_ok DESC, r_diag < TEXT, r_is DESC GOT WANT, r_check DESC CMD...
#   root_config_save STATE, root_config_restore STATE   /etc/botdesk.ini kept in STATE and put back

root_tap_open() {
        : >"$1" && chmod 0644 "$1"
        exec 3>>"$1"
}
r_ok() { echo "ok - $*" >&3; }
r_not_ok() { echo "not ok - $*" >&3; }
r_diag() { sed 's/^/# /' >&3; }
r_is() { if [ "$2" = "$3" ]; then r_ok "$1"; else r_not_ok "$1"; printf 'got:  %s\nwant: %s\n' "$2" "$3" | r_diag; fi; }
r_check() {
        local d=$1 o s
        shift
        o=$("$@" 2>&1)
        s=$?
        if [ $s = 0 ]; then r_ok "$d"; else r_not_ok "$d"; printf '%s\n(exit status %s)\n' "$o" "$s" | r_diag; fi
        return $s
}

# root_config_save STATE: /etc/botdesk.ini (if any) kept in STATE; root_config_restore STATE puts it back
# (or removes the test's) and reloads the generator's units.
root_config_save() { [ -e /etc/botdesk.ini ] && cp -a /etc/botdesk.ini "$1/botdesk.ini.orig"; return 0; }
root_config_restore() {
        if [ -e "$1/botdesk.ini.orig" ]; then cp -a "$1/botdesk.ini.orig" /etc/botdesk.ini; else rm -f /etc/botdesk.ini; fi
        systemctl daemon-reload
}
