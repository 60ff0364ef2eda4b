/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-session-generator: a systemd system generator for the logind tier.
 *
 * botdesk-session@.service carries no User=: the owner of a profile is
 * host configuration, `user =` in [profile.NAME] of the system files
 * (/etc/botdesk.ini, /etc/botdesk/botdesk.ini and its drop-ins; config.h
 * says the order). For each profile that names one, this writes
 *
 *     NORMAL_DIR/botdesk-session@NAME.service.d/50-user.conf
 *         [Service]
 *         User=USER
 *
 * A profile without `user =` gets no drop-in; its unit then runs as root,
 * and pam_botdesk refuses a root session without `user =`, so it fails to
 * start instead of giving root a desktop.
 *
 * It runs early at boot and on every daemon-reload: it must never fail
 * either. Errors are logged (systemd forwards a generator's stderr to the
 * kernel log) and it exits 0 after writing what it can.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "config.h"
#include "keys.h"
#include "log.h"
#include "util.h"

/* origin: the file and line of the user = that won, as FILE:LINE. */
static int write_dropin(int normal_fd, const char *profile, const char *user, const char *origin) {
        _cleanup_free_ char *dir = NULL, *text = NULL;
        _cleanup_close_ int dfd = -EBADF;

        dir = strdup_printf("botdesk-session@%s.service.d", profile);
        text = strdup_printf("# Written by botdesk-session-generator from %s ([profile.%s] user =).\n"
                             "[Service]\n"
                             "User=%s\n",
                             origin, profile, user);
        if (!dir || !text)
                return -ENOMEM;
        if (mkdirat(normal_fd, dir, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        dfd = openat(normal_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dfd < 0)
                return negative_errno();
        return write_file_atomic_at(dfd, "50-user.conf", text, strlen(text), 0644);
}

int main(int argc, char **argv) {
        _cleanup_(config_set_freep) struct config_set *set = NULL;
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_close_ int normal_fd = -EBADF;
        struct config_errors errs = {};
        struct config_sources src = {
                .user_path = "",
                .root_context = true,
        };
        const char *config_path;
        unsigned written = 0;
        int r;

        log_setup("botdesk-session-generator");
        /* systemd passes normal, early and late dirs; only the first is used. */
        if (argc != 2 && argc != 4) {
                log_error("Usage: %s NORMAL_DIR [EARLY_DIR LATE_DIR]", argv[0]);
                return 2;
        }

        /* BOTDESK_CONFIG (tests, containers) as everywhere else; systemd
         * sets none. Else the system files where the build put them. */
        config_path = secure_getenv("BOTDESK_CONFIG");
        if (config_path && config_path[0] == '/')
                src.system_path = config_path;
        else {
                config_path = CONFIG_SYSTEM_FILES;
                src.sysconf_dir = CONFIG_SYSCONF_DIR;
        }

        normal_fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (normal_fd < 0) {
                log_error_errno(errno, "Cannot open the generator directory %s: %m", argv[1]);
                return 0;
        }

        /* Every error once, with its file and line; then each profile alone,
         * from the same reading of the file. */
        {
                r = config_set_load(&src, &set, &errs);
                if (r < 0) {
                        for (size_t i = 0; i < errs.n; i++) {
                                _cleanup_free_ char *t = config_error_text(&errs.items[i]);

                                log_error("%s", t ?: errs.items[i].message);
                        }
                        log_error("%s has errors; writing the users of the profiles that are still valid.",
                                  config_path);
                }
                config_errors_done(&errs);
                if (r == -EPERM)
                        /* Not root's, or writable by others: nothing in it is trusted. */
                        return 0;
        }

        r = set ? config_set_profiles(set, &names) : -ENOMEM;
        if (r < 0) {
                log_error_errno(r, "Cannot read the profile sections of %s: %m", config_path);
                return 0;
        }

        for (char **name = names; name && *name; name++) {
                struct bd_config c = {};

                (void) config_set_build(set, *name, &c);
                if (c.user) {
                        _cleanup_free_ char *origin = NULL;
                        const char *file = NULL;
                        unsigned line = 0;

                        if (config_set_origin(set, *name, KEY_USER, &file, &line) > 0)
                                origin = strdup_printf("%s:%u", file, line);
                        r = origin ? write_dropin(normal_fd, *name, c.user, origin) : -ENOMEM;
                        if (r < 0)
                                log_error_errno(r, "Cannot write the drop-in of botdesk-session@%s.service: %m", *name);
                        else
                                written++;
                }
                config_done(&c);
        }

        log_debug("Wrote %u drop-in(s) from %s.", written, config_path);
        return 0;
}
