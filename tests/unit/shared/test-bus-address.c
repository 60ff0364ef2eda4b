/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <errno.h>

#include "bus-address.h"
#include "util.h"

#define GUID "0123456789abcdef0123456789ABCDEF"

static void accepted(const char *address, const char *want, const char *name) {
        _cleanup_free_ char *got = NULL;
        int r = bus_address_sanitize(address, &got);

        TAP_EQ_INT(r, 0, "accepted: %s", name);
        TAP_EQ_STR(r == 0 ? got : "(refused)", want, "... written afresh as %s", want);
}

static void refused(const char *address, int want, const char *name) {
        char *got = (char *) "untouched";

        TAP_EQ_INT(bus_address_sanitize(address, &got), want, "refused: %s", name);
        tap_ok(streq(got, "untouched"), "... and nothing is handed back");
}

int main(void) {
        /* What the desktop's own buses and GTK's applications say. */
        accepted("unix:path=/run/user/0/botdesk/p/bus", "unix:path=/run/user/0/botdesk/p/bus", "a path");
        accepted("unix:path=/tmp/at-spi2-AB12/socket,guid=" GUID, "unix:path=/tmp/at-spi2-AB12/socket,guid=" GUID,
                 "a path with a guid");
        accepted("unix:guid=" GUID ",abstract=/tmp/dbus-X1", "unix:abstract=/tmp/dbus-X1,guid=" GUID,
                 "an abstract name, the guid first");
        accepted("unix:path=/run/user/1000/a%20b%2cc", "unix:path=/run/user/1000/a%20b%2cc",
                 "escapes are understood and written back escaped");
        accepted("unix:path=/r/%41%2f", "unix:path=/r/A/", "a plain byte escaped for nothing comes back plain");
        accepted("unix:path=/r/~user@host+1", "unix:path=/r/%7euser%40host%2b1", "a printable raw byte is escaped");

        /* The transports that run code or leave the machine. */
        refused("unixexec:path=/bin/sh,argv1=-c,argv2=touch /tmp/x", -EPROTONOSUPPORT, "unixexec:");
        refused("tcp:host=127.0.0.1,port=4444", -EPROTONOSUPPORT, "tcp:");
        refused("nonce-tcp:host=127.0.0.1,port=4444,noncefile=/tmp/n", -EPROTONOSUPPORT, "nonce-tcp:");
        refused("autolaunch:", -EPROTONOSUPPORT, "autolaunch:");
        refused("x-machine-unix:machine=.host", -EPROTONOSUPPORT, "x-machine-unix:");
        refused("UNIX:path=/x", -EPROTONOSUPPORT, "UNIX: (transports are lower case)");
        /* A list: sd-bus would try the next entry when the first fails. */
        refused("unix:path=/nonexistent;unixexec:path=/bin/sh", -EINVAL, "a list with unixexec: second");
        refused("unix:path=/run/bus;", -EINVAL, "a list of one, a trailing ';'");
        refused("unix:path=/run/bus%3bx;tcp:host=a,port=1", -EINVAL, "';' after an escaped one");

        refused("", -EINVAL, "empty");
        refused("unix:", -EINVAL, "unix: with no key");
        refused("unix:path=", -EINVAL, "an empty path");
        refused("unix:path=relative/bus", -EINVAL, "a relative path");
        accepted("unix:path=%2frun", "unix:path=/run", "an escaped leading '/' is a path's");
        refused("unix:path=/a,path=/b", -EINVAL, "path twice");
        refused("unix:path=/a,abstract=b", -EINVAL, "both path and abstract");
        refused("unix:guid=" GUID, -EINVAL, "neither path nor abstract");
        refused("unix:path=/a,", -EINVAL, "a trailing ','");
        refused("unix:path=/a,,guid=" GUID, -EINVAL, "an empty entry between ','");
        refused("unix:tmpdir=/tmp", -EINVAL, "tmpdir= (a server's key)");
        refused("unix:dir=/tmp", -EINVAL, "dir=");
        refused("unix:runtime=yes", -EINVAL, "runtime=");
        refused("unix:path=/a,argv1=-c", -EINVAL, "an unknown key beside path");
        refused("unix:path=/a,guid=0123", -EINVAL, "a short guid");
        refused("unix:path=/a,guid=0123456789abcdef0123456789abcdeg", -EINVAL, "a guid that is not hex");
        refused("unix:path=/a%", -EINVAL, "a cut escape");
        refused("unix:path=/a%4", -EINVAL, "a half escape");
        refused("unix:path=/a%zz", -EINVAL, "an escape that is not hex");
        refused("unix:path=/a%00b", -EINVAL, "an escaped NUL");
        refused("unix:path=/a b", -EINVAL, "a raw space");
        refused("unix:path=/a=b", -EINVAL, "a raw '='");
        refused("unix:path=/a\x7f", -EINVAL, "a raw DEL");
        refused("unix:path=/a\xc3\xa9", -EINVAL, "a raw byte above ASCII");
        refused("unix:path=/a\nb", -EINVAL, "a raw newline");
        refused(":path=/a", -EINVAL, "no transport");
        refused("path=/a", -EINVAL, "no ':' at all");

        {
                char longest[109], abstract[200];

                memset(longest, 'a', sizeof longest - 1);
                longest[0] = '/';
                longest[107] = '\0';
                snprintf(abstract, sizeof abstract, "unix:path=%s", longest);
                TAP_EQ_INT(bus_address_sanitize(abstract, NULL), 0, "a path of 107 bytes fits sun_path");
                longest[107] = 'a', longest[108] = '\0';
                snprintf(abstract, sizeof abstract, "unix:path=%s", longest);
                TAP_EQ_INT(bus_address_sanitize(abstract, NULL), -EINVAL, "one of 108 does not");
                longest[107] = '\0';
                snprintf(abstract, sizeof abstract, "unix:abstract=%s", longest);
                TAP_EQ_INT(bus_address_sanitize(abstract, NULL), 0,
                           "an abstract name of 107 fits too (after its leading NUL)");
                longest[107] = 'a', longest[108] = '\0';
                snprintf(abstract, sizeof abstract, "unix:abstract=%s", longest);
                TAP_EQ_INT(bus_address_sanitize(abstract, NULL), -EINVAL, "an abstract one of 108 does not");
        }
        {
                _cleanup_free_ char *path = NULL, *name = NULL;
                char *none = NULL;

                TAP_EQ_INT(bus_address_socket("unix:path=/run/a%20b,guid=" GUID, &path), 0,
                           "the socket of a path address");
                TAP_EQ_STR(path ?: "(null)", "/run/a b", "... is the path, unescaped");
                TAP_EQ_INT(bus_address_socket("unix:abstract=/tmp/dbus-1", &name), 0,
                           "the socket of an abstract address");
                TAP_EQ_STR(name ?: "(null)", "@/tmp/dbus-1", "... is @NAME, as socket_connect_at() takes it");
                TAP_EQ_INT(bus_address_socket("unixexec:path=/bin/sh", &none), -EPROTONOSUPPORT,
                           "unixexec: names no socket");
                TAP_EQ_INT(bus_address_socket("unix:path=/a;tcp:host=b,port=1", &none), -EINVAL, "nor does a list");
                tap_ok(none == NULL, "... and nothing is handed back");
        }
        TAP_EQ_INT(bus_address_sanitize(NULL, NULL), -EINVAL, "no address at all");
        TAP_EQ_INT(bus_address_sanitize("unix:path=/a", NULL), 0, "a check alone, nothing handed back");
        return tap_done();
}
