/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "published-env.h"
#include "util.h"

/* What a desktop's helper publishes (start_write_published()). */
static char *good[] = {
        "DISPLAY=:42", "XAUTHORITY=/run/user/1000/botdesk/w/Xauthority",
        "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/botdesk/w/bus",
        "XDG_CONFIG_HOME=/home/u/.local/state/botdesk/w/config", "XDG_CACHE_HOME=/home/u/.cache/botdesk/w",
        "XDG_DATA_HOME=/home/u/.local/state/botdesk/w/data", "AGENT_BROWSER_EXECUTABLE_PATH=/usr/bin/chromium",
        "AGENT_BROWSER_USER_DATA_DIR=/home/u/b", "AGENT_BROWSER_PROFILE=/home/u/b",
        "BOTDESK_CDP_SOCKET=/run/user/1000/botdesk/w/cdp.sock", "http_proxy=http://127.66.12.200:3128",
        "https_proxy=http://127.66.12.200:3128", "HTTP_PROXY=http://127.66.12.200:3128",
        "HTTPS_PROXY=http://127.66.12.200:3128", NULL,
};

/* One forged entry added to what the helper wrote: refused, and named. */
static void check_refused(const char *entry, const char *why) {
        char *env[] = { "DISPLAY=:42", (char *) entry, "XAUTHORITY=/x", NULL };
        const char *key = NULL;
        int r = published_env_check(env, &key);

        TAP_EQ_INT(r, -EBADMSG, "refused: %s", why);
        TAP_EQ_STR(key, entry, "the refused entry is named: %s", why);
}

int main(void) {
        const char *key = NULL;

        TAP_EQ_INT(published_env_check(good, &key), 0, "what the helper publishes passes");
        TAP_EQ_INT(published_env_check(NULL, NULL), 0, "an empty file passes");

        check_refused("DBUS_SESSION_BUS_ADDRESS=unixexec:path=/bin/sh,argv1=-c,argv2=touch%20/tmp/x",
                      "a bus address that runs a program");
        check_refused("DBUS_SESSION_BUS_ADDRESS=tcp:host=192.0.2.1,port=1", "a bus address on TCP");
        check_refused("DBUS_SESSION_BUS_ADDRESS=unix:path=/a/bus;unixexec:path=/bin/sh", "a list of addresses");
        check_refused("LD_PRELOAD=/tmp/evil.so", "a variable the helper never writes (LD_PRELOAD)");
        check_refused("PATH=/tmp/evil:/usr/bin", "a variable the helper never writes (PATH)");
        check_refused("DISPLAY=host:0", "a DISPLAY over TCP");
        check_refused("DISPLAY=:1x", "a DISPLAY that is not a number");
        check_refused("XAUTHORITY=relative/Xauthority", "a relative path");
        check_refused("AGENT_BROWSER_EXECUTABLE_PATH=", "an empty path");
        check_refused("http_proxy=http://192.0.2.1:3128", "a proxy that is not the desktop's own (another host)");
        check_refused("https_proxy=http://127.0.0.1:3128", "a proxy on another loopback range");
        check_refused("HTTP_PROXY=http://127.66.1.1:8080", "the desktop's proxy address on another port");
        check_refused("HTTPS_PROXY=socks5://127.66.1.1:3128", "a proxy of another scheme");
        check_refused("all_proxy=http://127.66.1.1:3128", "a proxy variable the helper never writes");

        /* The file: read, checked, and the refused key named. */
        {
                _cleanup_free_ char *dir = strdup("/tmp/test-published-env.XXXXXX"), *bad = NULL;
                _cleanup_strv_free_ char **env = NULL;
                _cleanup_close_ int dirfd = -EBADF;
                static const char forged[] = "DISPLAY=:3\nLD_PRELOAD=/tmp/x.so\n";
                int r, fd;

                if (!dir || !mkdtemp(dir))
                        abort();
                dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                TAP_EQ_INT(published_env_read_at(dirfd, &env, &bad), -ENOENT, "no file: -ENOENT");
                fd = openat(dirfd, PUBLISHED_ENV_FILE, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                if (fd < 0 || write(fd, forged, sizeof forged - 1) != (ssize_t) (sizeof forged - 1))
                        abort();
                close(fd);
                r = published_env_read_at(dirfd, &env, &bad);
                TAP_EQ_INT(r, -EBADMSG, "a forged file is refused");
                TAP_EQ_STR(bad, "LD_PRELOAD", "and its key is named");
                tap_ok(env == NULL, "nothing of it is handed back");
                (void) unlinkat(dirfd, PUBLISHED_ENV_FILE, 0);
                (void) rmdir(dir);
        }
        return tap_done();
}
