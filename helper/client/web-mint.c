/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <sys/stat.h>

#include "cli.h"
#include "log.h"
#include "profile.h"
#include "running.h"
#include "ticket.h"
#include "util.h"
#include "web.h"
#include "web-mint.h"

/* The runtime base (new string in *ret_base) and its ticket dir, made private when missing: an exit code, said. */
int web_open_ticket_dir(char **ret_base, int *ret_dirfd) {
        _cleanup_free_ char *base = NULL;
        int r;

        r = paths_runtime_base(&base);
        if (r < 0) {
                log_error_errno(r, "Cannot find the runtime directory: %m");
                return EXIT_FAILED;
        }
        if ((mkdir(base, 0700) < 0 && errno != EEXIST) || dir_is_private(base, getuid()) < 0) {
                log_error("%s is not a private directory of uid %u; remove it or fix its owner and mode.", base,
                          (unsigned) getuid());
                return EXIT_FAILED;
        }
        r = ticket_dir_open(base, true, ret_dirfd);
        if (r < 0) {
                log_error_errno(r, "Cannot open %s/" TICKET_DIR ": %m", base);
                return EXIT_FAILED;
        }
        *ret_base = TAKE_PTR(base);
        return EXIT_OK;
}

/* --ttl S of 1..max seconds (def when absent) in *ret: an exit code, said. */
static int parse_ttl(const char *ttl_s, unsigned def, unsigned max, unsigned *ret) {
        unsigned long long ttl = def;

        if (ttl_s && (parse_uint(ttl_s, max, &ttl) < 0 || ttl == 0)) {
                log_error("Invalid --ttl %s: use 1-%u seconds.", ttl_s, max);
                return EXIT_USAGE;
        }
        *ret = (unsigned) ttl;
        return EXIT_OK;
}

/* Whether the desktop a ticket would open now runs: an exit code, said. */
static int check_running(const struct bd_config *given, const char *profile) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF;

        /* Asking the far side would cost a round trip through the prefix that botdesk web makes anyway when the
         * ticket is used, and answers there (a stream closed 4001, the prefix's own error). */
        if (cli_desktop_place(given, profile) != CLI_PLACE_HERE)
                return EXIT_OK;
        return running_desktop_live(profile, &p, &dirfd);
}

/* What minting a ticket or a token starts with: PROFILE judged, --ttl S read (def when absent), the desktop
 * found running when asked, the dir opened. */
int web_mint_begin(const struct bd_config *given, const char *profile, bool running, const char *ttl_s, unsigned def,
                   unsigned *ret_ttl, char **ret_base, int *ret_dirfd) {
        int r;

        r = parse_ttl(ttl_s, def, TICKET_TTL_MAX, ret_ttl);
        if (r != EXIT_OK)
                return r;
        /* Before the dir: a refused mint leaves nothing behind. */
        if (running) {
                r = check_running(given, profile);
                if (r != EXIT_OK)
                        return r;
        }
        return web_open_ticket_dir(ret_base, ret_dirfd);
}

char *web_url_read(const char *base) {
        _cleanup_free_ char *file = strdup_printf("%s/" WEB_URL_FILE, base);
        char *url = NULL;

        if (!file || read_full_file(file, &url, NULL, 256) < 0)
                return NULL;
        url[strcspn(url, "\n")] = 0;
        return url;
}
