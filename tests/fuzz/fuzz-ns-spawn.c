/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The request botdesk-ns-init reads from the helper (desktop/ns-spawn.h): its
 * peer is trusted, but a request it misreads starts the wrong program as pid
 * 1's child of a desktop. Arbitrary bytes as one message: a refusal is
 * -EBADMSG, and whatever parses must survive encode → parse unchanged.
 */
#undef NDEBUG
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ns-spawn.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_strv(char **a, char **b) {
        if (strv_length(a) != strv_length(b))
                return false;
        for (size_t i = 0; a[i]; i++)
                if (!streq(a[i], b[i]))
                        return false;
        return true;
}

static bool same_str(const char *a, const char *b) {
        return (!a && !b) || (a && b && streq(a, b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct ns_spawn_request req = {}, again = {};
        int sv[2], r;

        if (size == 0 || size > 65536 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
                return 0;
        if (send(sv[0], data, size, 0) != (ssize_t) size)
                goto out;
        r = ns_spawn_request_recv(sv[1], &req);
        if (r == -ENOMEM)
                goto out;
        if (r < 0) {
                if (r != -EBADMSG)
                        abort();
                goto out;
        }
        if (r == NS_REQUEST_DETACH)
                goto out;
        if (r != NS_REQUEST_SPAWN || !req.opts.argv || !req.opts.argv[0] || !req.opts.envp || req.n_fds != 0)
                abort();
        r = ns_spawn_request_send(sv[0], &req.opts);
        if (r == -ENOMEM)
                goto out;
        if (r < 0)
                abort(); /* what was read cannot be sent again */
        if (ns_spawn_request_recv(sv[1], &again) != NS_REQUEST_SPAWN)
                abort();
        if (!same_strv(req.argv, again.argv) || !same_strv(req.envp, again.envp) ||
            !same_str(req.opts.cwd, again.opts.cwd) || !same_str(req.opts.cgroup, again.opts.cgroup) ||
            req.opts.new_session != again.opts.new_session || req.opts.ignore_sigusr1 != again.opts.ignore_sigusr1)
                abort();
out:
        ns_spawn_request_done(&req);
        ns_spawn_request_done(&again);
        safe_close(sv[0]);
        safe_close(sv[1]);
        return 0;
}
