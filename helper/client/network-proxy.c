/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "find-executable.h"
#include "log.h"
#include "network-proxy.h"
#include "procfs.h"
#include "socket-util.h"
#include "unit.h"
#include "util.h"

#define PROXY_FILTER "proxy.filter"
#define PROXY_READY_USEC (10 * 1000000ULL)
#define REFUSED_LINE "Proxying refused on filtered domain \""
#define LOG_READ_MAX (4u << 20)

static char *proxy_unit(const char *profile) {
        return strdup_printf("botdesk-proxy@%s.service", profile);
}

static int write_files(int runtime_fd, const char *dir, const struct net_policy *p) {
        _cleanup_free_ char *filter = NULL, *conf = NULL;
        int r;

        /* tinyproxy's configuration quotes paths and knows no escape. */
        if (strchr(dir, '"') || strchr(dir, '\n'))
                return -EINVAL;
        r = net_policy_proxy_filter(p, &filter);
        if (r < 0)
                return r;
        conf = strdup_printf("# Written by botdesk for this run of the desktop; botdesk-proxy@.service runs it.\n"
                             "Port %d\n"
                             "Listen %u.%u.%u.%u\n"
                             "Timeout 600\n"
                             "MaxClients 100\n"
                             "LogLevel Notice\n"
                             "LogFile \"%s/" NETWORK_PROXY_LOG "\"\n"
                             "PidFile \"%s/" NETWORK_PROXY_PID "\"\n"
                             "DisableViaHeader Yes\n"
                             "Allow 127.0.0.0/8\n"
                             "%s%s%s",
                             NET_PROXY_PORT, p->proxy_address[0], p->proxy_address[1], p->proxy_address[2],
                             p->proxy_address[3], dir, dir,
                             filter ? "FilterDefaultDeny Yes\nFilterType ere\nFilterURLs No\nFilter \"" : "",
                             filter ? dir : "", filter ? "/" PROXY_FILTER "\"\n" : "");
        if (!conf)
                return -ENOMEM;
        if (filter) {
                r = write_file_atomic_at(runtime_fd, PROXY_FILTER, filter, strlen(filter), 0600);
                if (r < 0)
                        return r;
        }
        return write_file_atomic_at(runtime_fd, NETWORK_PROXY_CONF, conf, strlen(conf), 0600);
}

bool network_proxy_running(int runtime_fd) {
        _cleanup_free_ char *text = NULL, *comm = NULL;
        unsigned long long pid;

        if (read_full_file_at(runtime_fd, NETWORK_PROXY_PID, &text, NULL, 64) < 0)
                return false;
        text[strcspn(text, "\n")] = '\0';
        if (parse_uint(text, INT_MAX, &pid) < 0 || pid == 0 || pid_comm((pid_t) pid, &comm) < 0)
                return false;
        return streq(comm, "tinyproxy");
}

/* Until tinyproxy wrote its pid file, which it does once its socket listens: the file there and its pid
 * written, so that status, asked the moment the start returns, finds the proxy running. */
static int wait_listening(int runtime_fd, const char *dir) {
        _cleanup_close_ int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        unsigned long long deadline = now_usec() + PROXY_READY_USEC;
        char buf[4096];

        if (fd < 0)
                return negative_errno();
        if (inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
                return negative_errno();
        for (;;) {
                int r;

                if (network_proxy_running(runtime_fd))
                        return 0;
                r = fd_wait_until(fd, POLLIN, deadline);
                if (r < 0)
                        return r;
                while (read(fd, buf, sizeof buf) > 0)
                        ;
        }
}

int network_proxy_start(sd_bus *bus, const char *profile, int runtime_fd, const char *runtime_dir,
                        const struct net_policy *p) {
        _cleanup_free_ char *unit = proxy_unit(profile), *desktop = unit_name_for(profile), *tinyproxy = NULL;
        _cleanup_free_ char *conf = strdup_printf("%s/" NETWORK_PROXY_CONF, runtime_dir), *result = NULL;
        int r;

        if (!unit || !desktop || !conf)
                return log_oom();
        r = find_executable("tinyproxy", NULL, &tinyproxy);
        if (r < 0)
                return log_error_errno(r, "Desktop %s's [network] allow names domains, which it reaches through a "
                                       "filtering proxy: tinyproxy is not installed (apt install tinyproxy-bin).",
                                       profile);
        (void) network_proxy_stop(bus, profile);
        (void) unlinkat(runtime_fd, NETWORK_PROXY_PID, 0);
        r = write_files(runtime_fd, runtime_dir, p);
        if (r < 0)
                return log_error_errno(r, "Cannot write the proxy's configuration for %s: %m", profile);
        {
                char *argv[] = { tinyproxy, (char *) "-d", (char *) "-c", conf, NULL };

                r = unit_start_command(bus, unit, argv, desktop, &result);
        }
        if (r < 0 || (result && !streq(result, "done")))
                return log_error_errno(r < 0 ? r : -EIO, "Cannot start %s: %s", unit,
                                       r < 0 ? strerror(-r) : result), r < 0 ? r : -EIO;
        r = wait_listening(runtime_fd, runtime_dir);
        if (r < 0)
                return log_error_errno(r, "%s did not listen within %llu s (see journalctl --user -u %s): %m", unit,
                                       PROXY_READY_USEC / 1000000ULL, unit);
        return 0;
}

void network_proxy_forget(int runtime_fd) {
        static const char *const files[] = { NETWORK_PROXY_CONF, PROXY_FILTER, NETWORK_PROXY_PID, NETWORK_PROXY_LOG };

        for (size_t i = 0; i < ELEMENTSOF(files); i++)
                (void) unlinkat(runtime_fd, files[i], 0);
}

int network_proxy_stop(sd_bus *bus, const char *profile) {
        _cleanup_free_ char *unit = proxy_unit(profile), *result = NULL;

        if (!unit)
                return -ENOMEM;
        return unit_stop(bus, unit, &result);
}

int network_proxy_refused(int runtime_fd, unsigned *ret_count, char **ret_last) {
        _cleanup_free_ char *text = NULL;
        const char *last = NULL;
        unsigned count = 0;
        size_t size = 0;
        int r;

        *ret_count = 0;
        *ret_last = NULL;
        r = read_full_file_at(runtime_fd, NETWORK_PROXY_LOG, &text, &size, LOG_READ_MAX);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (const char *s = text; (s = strstr(s, REFUSED_LINE)); s += strlen(REFUSED_LINE)) {
                count++;
                last = s + strlen(REFUSED_LINE);
        }
        *ret_count = count;
        if (last) {
                *ret_last = strndup(last, strcspn(last, "\"\n"));
                if (!*ret_last)
                        return -ENOMEM;
        }
        return 0;
}
