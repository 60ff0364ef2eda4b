/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * remote = parsed (remote-target.h): which addresses are loopback, and
 * which are public and so warned about (RFB crosses the network in clear).
 */
#include "tap.h"

#include <errno.h>

#include "remote-target.h"

static void check(const char *value, bool loopback, bool public) {
        struct remote_target t;
        const char *problem = NULL;

        if (!tap_ok(remote_target_parse(value, &t, &problem) == 0, "%s parses", value)) {
                printf("#   %s\n", problem ?: "");
                return;
        }
        TAP_EQ_INT(t.loopback, loopback, "%s is %sloopback", value, loopback ? "" : "not ");
        TAP_EQ_INT(remote_target_public(&t), public, "%s is %spublic", value, public ? "" : "not ");
}

int main(void) {
        struct remote_target t;
        const char *problem = NULL;

        check("127.0.0.1:5900", true, false);
        check("10.1.2.3:5900", false, false);
        check("172.16.0.1:5900", false, false);
        check("172.31.255.254:5900", false, false);
        check("172.32.0.1:5900", false, true);
        check("192.168.1.10:5901", false, false);
        check("100.64.0.1:5900", false, false);
        check("100.127.255.1:5900", false, false);
        check("100.128.0.1:5900", false, true);
        check("169.254.3.4:5900", false, false);
        check("8.8.8.8:5900", false, true);
        check("[::1]:5900", true, false);
        check("[fd00::1]:5900", false, false);
        check("[fe80::1]:5900", false, false);
        check("[2001:db8::1]:5900", false, true);
        check("[::ffff:192.168.0.2]:5900", false, false);
        check("[::ffff:1.2.3.4]:5900", false, true);
        check("exec:ssh lab nc 127.0.0.1 5900", false, false);

        TAP_EQ_INT(remote_target_parse("vnc.example:5900", &t, &problem), -EINVAL, "a name is refused (no DNS)");
        TAP_EQ_INT(remote_target_parse("10.0.0.1:0", &t, &problem), -EINVAL, "port 0 is refused");
        TAP_EQ_INT(remote_target_parse("10.0.0.1:65536", &t, &problem), -EINVAL, "port 65536 is refused");
        TAP_EQ_INT(remote_target_parse("[::1]5900", &t, &problem), -EINVAL, "[IPv6] without a colon is refused");
        return tap_done();
}
