/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* botdesk status [PROFILE] [--json], botdesk status PROFILE --quiet, botdesk list [--json]. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>

#include "cli.h"
#include "cli-remote.h"
#include "config.h"
#include "json.h"
#include "log.h"
#include "profile.h"
#include "status.h"
#include "term-escape.h"
#include "util.h"
#include "verbs.h"

static int print_status(const struct cli_args *a, const char *profile, const struct bd_config *c) {
        struct bd_status st;
        int r;

        r = status_collect(profile, c, &st);
        if (r < 0)
                return log_error_errno(r, "Cannot read the status of %s: %m", profile);
        if (st.unverified && a->json)
                log_warning("%s is not a private directory of uid %u; reading %s as not running.", st.unverified,
                            (unsigned) getuid(), profile);
        status_emit(&st, a->json);
        status_done(&st);
        return 0;
}

/* --quiet, for scripts (as systemctl is-active -q): nothing printed, 0 when ready, 4 when not (or still starting). */
static int quiet_status(const char *profile, const struct bd_config *c) {
        struct bd_status st;
        bool ready;
        int r;

        r = status_collect(profile, c, &st);
        if (r < 0) {
                log_error_errno(r, "Cannot read the status of %s: %m", profile);
                return EXIT_FAILED;
        }
        ready = st.running && !st.starting;
        status_done(&st);
        return ready ? EXIT_OK : EXIT_NOT_RUNNING;
}

static int known_profiles(char ***ret) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *base = NULL;
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_close_ int fd = -EBADF;
        struct dirent *de;
        int r;

        r = paths_runtime_base(&base);
        if (r < 0)
                return r;
        fd = dir_open_verified_at(AT_FDCWD, base, getuid());
        if (fd == -EPERM)
                log_warning("%s is not a private directory of uid %u; listing no profiles from it.", base,
                            (unsigned) getuid());
        d = fd >= 0 ? fdopendir(fd) : NULL;
        if (d)
                TAKE_FD(fd);
        while (d && (de = readdir(d))) {
                if (!profile_name_valid(de->d_name) || de->d_type != DT_DIR)
                        continue;
                r = strv_push(&names, strdup(de->d_name));
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(names);
        return 0;
}

static int compare_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int status_all(const struct cli_args *a) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_(config_done) struct bd_config c = {};
        struct json j;
        int r;

        if (cli_load_config(NULL, &c) < 0)
                return EXIT_USAGE;
        r = known_profiles(&names);
        if (r < 0) {
                log_error_errno(r, "Cannot list profiles: %m");
                return EXIT_FAILED;
        }
        if (names)
                qsort(names, strv_length(names), sizeof(char *), compare_str);
        json_init(&j, stdout);
        if (a->json)
                json_array_begin(&j);
        for (char **n = names; n && *n; n++) {
                _cleanup_(config_done) struct bd_config pc = {};
                _cleanup_free_ char *far = NULL;
                struct bd_status st;

                if (cli_load_config(*n, &pc) < 0)
                        return EXIT_USAGE;
                /* A profile placed elsewhere is reported from there. */
                r = remote_status_text(*n, &pc, a->json, 0, &far);
                if (r > 0) {
                        if (a->json)
                                json_raw(&j, far);
                        else if (term_write(stdout, far, strlen(far)) < 0 || putchar('\n') == EOF)
                                return EXIT_FAILED;
                        continue;
                }
                if (r < 0)
                        return log_error_errno(r, "Cannot read the status of %s: %m", *n), EXIT_FAILED;
                r = status_collect(*n, &pc, &st);
                if (r < 0) {
                        log_error_errno(r, "Cannot read the status of %s: %m", *n);
                        return EXIT_FAILED;
                }
                if (st.unverified && a->json)
                        log_warning("%s is not a private directory of uid %u; reading %s as not running.",
                                    st.unverified, (unsigned) getuid(), *n);
                if (a->json)
                        status_json(&j, &st);
                else
                        status_print(stdout, &st);
                status_done(&st);
        }
        if (a->json) {
                json_array_end(&j);
                putchar('\n');
        } else if (!names)
                puts("No profiles.");
        return EXIT_OK;
}

int verb_status(const struct cli_args *a) {
        _cleanup_(config_done) struct bd_config c = {};
        const char *profile = a->operand;

        if (a->quiet && (!profile || a->json)) {
                log_error("status --quiet takes one PROFILE and no --json: it answers by its exit status alone.");
                return EXIT_USAGE;
        }
        if (!profile)
                return status_all(a);
        if (cli_load_config(profile, &c) < 0)
                return EXIT_USAGE;
        if (a->quiet)
                return quiet_status(profile, &c);
        return print_status(a, profile, &c) < 0 ? EXIT_FAILED : EXIT_OK;
}

int verb_list(const struct cli_args *a) {
        if (a->operand) {
                log_error("list takes no profile.");
                return EXIT_USAGE;
        }
        return status_all(a);
}
