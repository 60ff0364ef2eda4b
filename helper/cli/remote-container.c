/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "remote-container.h"
#include "remote-run.h"
#include "util.h"

#define INSPECT_TIMEOUT 10U

/* The container a `podman exec` / `docker exec` prefix names, or NULL. */
const char *prefix_container(char *const *prefix) {
        static const char *const long_with_value[] = { "--env", "--env-file", "--user", "--workdir",
                                                       "--detach-keys", "--preserve-fds" };
        const char *engine = remote_program_name(prefix[0]);

        if ((!streq(engine, "podman") && !streq(engine, "docker")) || !prefix[1] || !streq(prefix[1], "exec"))
                return NULL;
        for (size_t i = 2; prefix[i]; i++) {
                const char *a = prefix[i];

                if (streq(a, "--"))
                        return prefix[i + 1];
                if (startswith(a, "--")) {
                        if (strchr(a, '='))
                                continue;
                        for (size_t k = 0; k < ELEMENTSOF(long_with_value); k++)
                                if (streq(a, long_with_value[k]) && prefix[i + 1]) {
                                        i++;
                                        break;
                                }
                        continue;
                }
                if (a[0] == '-' && a[1]) {
                        /* -e, -u and -w take a value, attached or as the next word. */
                        size_t l = strcspn(a + 1, "euw");
                        if (a[1 + l] && !a[2 + l] && prefix[i + 1])
                                i++;
                        continue;
                }
                return a;
        }
        return NULL;
}

/* Its complaints are kept, never printed: the caller explains. */
char *container_inspect(const char *engine, const char *name, int *ret_status) {
        struct run_result res;
        char *argv[] = { NULL, (char *) "inspect", (char *) "--type", (char *) "container", (char *) "--format",
                         (char *) "{{.Id}} {{.State.Status}}", (char *) name, NULL };
        char *ret;
        int r;

        argv[0] = (char *) engine;
        /* Captured: its complaints ("no such container") are ours to explain. */
        r = remote_run(argv, false, true, -1, INSPECT_TIMEOUT, &res);
        if (r < 0)
                return NULL;
        *ret_status = res.status;
        ret = res.status == 0 ? TAKE_PTR(res.out) : strdup(res.err);
        run_result_done(&res);
        if (ret)
                ret[strcspn(ret, "\n")] = '\0';
        return ret;
}
