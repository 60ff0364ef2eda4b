/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTEND_TIMEOUT_USEC= (helper/supervisor/start-extension.c): when a start
 * that start_timeout allows would outlast the unit's TimeoutStartSec=, the
 * helper asks for the time, before the manager's deadline, from a timer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "start-extension.h"
#include "tap.h"
#include "util.h"

#define SEC 1000000ULL

static void plan_is(uint64_t start_s, bool needed, uint64_t send_after_s, uint64_t extend_s, const char *what) {
        struct start_extension p;

        start_extension_plan(start_s * SEC, 15 * SEC, UNIT_TIMEOUT_START_USEC, &p);
        if (!tap_ok(p.needed == needed && p.send_after_usec == send_after_s * SEC && p.extend_usec == extend_s * SEC,
                    "%s", what))
                printf("#   start_timeout=%llus: needed %d, send after %llu us, extend %llu us\n",
                       (unsigned long long) start_s, p.needed, (unsigned long long) p.send_after_usec,
                       (unsigned long long) p.extend_usec);
}

static void test_plan(void) {
        struct start_extension p;
        unsigned bad = 0;

        plan_is(15, false, 0, 0, "the default start_timeout=15 and its teardown fit in TimeoutStartSec=30s: nothing sent");
        plan_is(16, true, 20, 11, "start_timeout=16: sent at 20 s, up to 31 s (the start and its 15 s teardown)");
        plan_is(3600, true, 20, 3595, "start_timeout=3600: sent at 20 s, up to 3615 s");

        start_extension_plan(3600 * SEC, 15 * SEC, 0, &p);
        tap_ok(!p.needed, "a manager without a start timeout needs no extension");

        /* Every start_timeout the config allows: sent before the deadline,
         * and reaching to the end of the start and its teardown. */
        for (uint64_t s = 1; s <= 3600; s++) {
                start_extension_plan(s * SEC, 15 * SEC, UNIT_TIMEOUT_START_USEC, &p);
                if (!p.needed)
                        bad += s + 15 > 30;
                else
                        bad += p.send_after_usec >= UNIT_TIMEOUT_START_USEC ||
                               p.send_after_usec + p.extend_usec != (s + 15) * SEC;
        }
        TAP_EQ_INT(bad, 0, "for every start_timeout of 1-3600 s the plan covers the start and comes before the deadline");
}

/* The timer fires and sends the line to $NOTIFY_SOCKET, as systemd would get it. */
static void test_sent(void) {
        _cleanup_close_ int fd = -EBADF;
        char dir[] = "/tmp/test-start-extension.XXXXXX", path[64], buf[256];
        struct start_extension plan = { .needed = true, .send_after_usec = 1000, .extend_usec = 42 * SEC };
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        sd_event_source *source = NULL, *none = (sd_event_source *) 1;
        struct start_extension unneeded = {};
        sd_event *event = NULL;
        uint64_t when = 0, t0 = now_usec();
        ssize_t n = -1;
        int r;

        if (!mkdtemp(dir)) {
                tap_ok(false, "a scratch dir for the notify socket: %s", strerror(errno));
                return;
        }
        snprintf(path, sizeof path, "%s/notify", dir);
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
                tap_ok(false, "a notify socket at %s: %s", path, strerror(errno));
                goto out;
        }
        setenv("NOTIFY_SOCKET", path, 1);

        r = sd_event_new(&event);
        if (r >= 0)
                r = start_extension_arm(event, &unneeded, t0, &none);
        tap_ok(r >= 0 && none == NULL, "no timer when no extension is needed");
        if (r >= 0)
                r = start_extension_arm(event, &plan, t0, &source);
        if (r >= 0)
                r = sd_event_source_get_time(source, &when);
        tap_ok(r >= 0 && when == t0 + plan.send_after_usec, "the timer is set at the start plus the plan's delay");

        /* Bounded: the timer is due in 1 ms; give it 5 s. */
        for (uint64_t deadline = now_usec() + 5 * SEC; r >= 0 && now_usec() < deadline;) {
                n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
                if (n >= 0)
                        break;
                r = sd_event_run(event, 100 * 1000);
        }
        if (n < 0)
                n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
        if (n >= 0)
                buf[n] = 0;
        TAP_EQ_STR(n >= 0 ? buf : NULL, "EXTEND_TIMEOUT_USEC=42000000",
                   "the timer sends EXTEND_TIMEOUT_USEC= with the plan's value (waited up to 5 s for it)");
out:
        sd_event_source_unref(source);
        sd_event_unref(event);
        unsetenv("NOTIFY_SOCKET");
        (void) unlink(path);
        (void) rmdir(dir);
}

int main(void) {
        test_plan();
        test_sent();
        return tap_done();
}
