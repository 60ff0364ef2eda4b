/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "find-executable.h"
#include "util.h"
#include "xserver.h"

int xserver_is_tigervnc(const char *path) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        void *m;
        int found;

        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || st.st_size == 0)
                return 0;
        /* Searching the binary for the parameter name is what `-help` would
         * tell us, without running a server at every start. */
        m = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED)
                return negative_errno();
        found = memmem(m, (size_t) st.st_size, "rfbunixpath", 11) != NULL;
        munmap(m, (size_t) st.st_size);
        return found;
}

int xserver_find(const char *path_override, char **ret, char **ret_rejected) {
        static const char *const names[] = { "Xtigervnc", "Xvnc" };
        _cleanup_free_ char *rejected = NULL;

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *p = NULL;
                int r;

                if (find_executable(names[i], path_override, &p) < 0)
                        continue;
                r = xserver_is_tigervnc(p);
                if (r > 0) {
                        *ret = TAKE_PTR(p);
                        return 0;
                }
                if (!rejected)
                        rejected = TAKE_PTR(p);
        }
        if (rejected) {
                if (ret_rejected)
                        *ret_rejected = TAKE_PTR(rejected);
                return -EPROTONOSUPPORT;
        }
        return -ENOENT;
}

int xserver_argv(const char *binary, const struct bd_config *c, unsigned n, const char *profile,
                 const char *rfb_socket, const char *xauthority, char ***ret) {
        _cleanup_strv_free_ char **argv = NULL;
        char *const fixed[] = {
                strdup(binary),
                strdup_printf(":%u", n),
                strdup("-geometry"), strdup_printf("%ux%u", c->width, c->height),
                strdup("-depth"), strdup_printf("%u", c->depth),
                strdup("-dpi"), strdup_printf("%u", c->dpi),
                /* No TCP, ever: neither RFB nor X. */
                strdup("-rfbport"), strdup("-1"),
                strdup("-nolisten"), strdup("tcp"),
                strdup("-rfbunixpath"), strdup(rfb_socket),
                strdup("-rfbunixmode"), strdup("0600"),
                /* Access control is the socket's mode in a 0700 directory. */
                strdup("-SecurityTypes"), strdup("None"),
                /* Which also makes TigerVNC's blacklist of peers with unfinished
                 * handshakes (five by default, all of them "the socket" here)
                 * protect nothing, while a few viewers that gave up early
                 * would lock every viewer out for a growing time. */
                strdup("-BlacklistThreshold=2147483647"),
                strdup("-auth"), strdup(xauthority),
                strdup("-desktop"), strdup_printf("botdesk:%s", profile),
                strdup("-AlwaysShared"),
                strdup("-AcceptSetDesktopSize"),
                strdup("-FrameRate"), strdup_printf("%u", c->frame_rate),
                /* The agent's clipboard never leaks to a viewer. */
                strdup("-SendCutText=0"),
                strdup("-MaxCutText"), strdup_printf("%u", c->max_cut_text),
                /* The X screen saver would blank what the agent looks at. */
                strdup("-s"), strdup("0"),
                /* No GLX: its software renderer (Mesa's llvmpipe, LLVM with
                 * it) cost the server and each client that probed GLX
                 * (xfwm4, xfsettingsd) about 10 MiB of PSS apiece, for a
                 * screen that nothing renders to with OpenGL; a client that
                 * wants GL falls back to drawing without it. */
                strdup("-extension"), strdup("GLX"),
        };
        int r = 0;

        for (size_t i = 0; i < ELEMENTSOF(fixed); i++) {
                if (r < 0) {
                        free(fixed[i]);
                        continue;
                }
                r = strv_push(&argv, fixed[i]);
        }
        /* A checkpointable desktop's server listens on its path alone: an
         * abstract socket is the network namespace's, which a fork restored
         * beside its parent shares, where the path is the fork's own mount
         * namespace's (supervisor/tree-mounts.h). Clients that find no
         * abstract socket take the path. */
        if (r >= 0 && c->checkpointable) {
                r = strv_push(&argv, strdup("-nolisten"));
                if (r >= 0)
                        r = strv_push(&argv, strdup("local"));
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(argv);
        return 0;
}
