/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk browser PROFILE endpoint|http-endpoint [--ttl S] [--json]: the
 * DevTools WebSocket URL of the desktop's browser, for Playwright's
 * chromium.connectOverCDP(url) or Puppeteer's connect({browserWSEndpoint}):
 * ws://127.0.0.1:PORT/PROFILE/devtools/browser?ticket=T, served by botdesk
 * web (web-devtools.c) and relayed to the browser's 0600 socket, never a
 * TCP port of the browser's own; or, for a client that is given an http://
 * endpoint and asks it /json/version (web-discovery.c),
 * http://127.0.0.1:PORT/PROFILE/devtools/T/. The ticket is good for one
 * connection (one discovery), within S seconds (60). Behind a gateway's
 * proxy (botdesk web on its Unix socket), the path alone: the gateway puts
 * its own origin in front. A desktop placed elsewhere gets the same URL of
 * this host's botdesk web, which reaches its browser through `botdesk cdp`
 * run through the prefix (verb-cdp.c); its status there decides whether a
 * URL is minted, and whether it has a browser is said when the URL is used.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli-remote.h"
#include "config.h"
#include "json.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "running.h"
#include "ticket.h"
#include "util.h"
#include "verbs.h"
#include "web-mint.h"

/* A desktop placed elsewhere: found running, and not a human's, by its own status there. */
static int placed_admit(const struct cli_args *a, struct lease *ret) {
        _cleanup_(config_done) struct bd_config storage = {};
        const struct bd_config *c = cli_config(a->config, a->operand, &storage);
        _cleanup_free_ char *text = NULL;
        struct json_value *v = NULL;
        const struct json_value *running;
        int r;

        if (!c)
                return EXIT_USAGE;
        r = remote_status_text(a->operand, c, true, 0, &text);
        if (r <= 0 || json_parse(text, strlen(text), &v) < 0) {
                log_error("Cannot read the status of desktop %s from where it is placed.", a->operand);
                return EXIT_FAILED;
        }
        running = json_get(v, "running");
        if (!running || running->type != JSON_TRUE) {
                const char *why = json_member_string(v, "reason");

                log_error("Desktop %s is not running%s%s%s; start it with: botdesk start %s", a->operand,
                          why ? " (" : "", why ?: "", why ? ")" : "", a->operand);
                r = EXIT_NOT_RUNNING;
        } else if (lease_from_json(json_get(v, "lease"), ret, NULL) < 0) {
                log_error("The status of desktop %s from where it is placed names no lease.", a->operand);
                r = EXIT_FAILED;
        } else
                r = cli_action_admit_lease(ret, a->operand, "browser endpoint", a->json);
        json_value_free(v);
        return r;
}

/* A desktop of this host: running, its browser serving DevTools, and not a human's. */
static int here_admit(const struct cli_args *a, struct lease *ret) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF;
        const char *profile = a->operand;
        struct stat st;
        int r;

        r = running_desktop_live(profile, &p, &dirfd);
        if (r != EXIT_OK)
                return r;
        /* The agent's way into the human's browser: not while a human has the desktop. */
        r = cli_action_admit(dirfd, profile, "browser endpoint", a->json, ret);
        if (r != EXIT_OK)
                return r;
        if (fstatat(dirfd, "cdp.sock", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode)) {
                log_error("Desktop %s has no browser with DevTools running: start the dock's browser, or "
                          "botdesk exec %s -- botdesk-browser --cdp-socket \"$BOTDESK_CDP_SOCKET\" -- BROWSER.",
                          profile, profile);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

int verb_browser(const struct cli_args *a) {
        _cleanup_free_ char *base = NULL, *url = NULL, *full = NULL;
        _cleanup_close_ int tickets = -EBADF;
        const char *profile = a->operand, *ws;
        char token[TICKET_TOKEN_LEN + 1];
        enum cli_desktop_place place;
        struct lease admitted;
        unsigned ttl;
        bool http;
        int r;

        if (!profile || !a->action || (!streq(a->action, "endpoint") && !streq(a->action, "http-endpoint"))) {
                log_error("Usage: botdesk browser PROFILE endpoint|http-endpoint [--ttl S] [--json]");
                return EXIT_USAGE;
        }
        http = streq(a->action, "http-endpoint");
        place = cli_desktop_place(a->config, profile);
        if (place == CLI_PLACE_REMOTE) {
                log_error("Profile %s fronts a VNC server botdesk did not start: it has no browser of botdesk's.",
                          profile);
                return EXIT_REFUSED;
        }
        /* Placed: whether its browser serves DevTools is said there, when the URL is used (botdesk cdp). */
        r = place == CLI_PLACE_EXEC ? placed_admit(a, &admitted) : here_admit(a, &admitted);
        if (r != EXIT_OK)
                return r;
        /* Found running above, where the lease was read. */
        r = web_mint_begin(NULL, profile, false, a->ttl, TICKET_DEVTOOLS_TTL_DEFAULT, &ttl, &base, &tickets);
        if (r != EXIT_OK)
                return r;
        r = ticket_mint_devtools_at(tickets, profile, ttl, token);
        if (r < 0) {
                log_error_errno(r, "Cannot store a ticket in %s/" TICKET_DIR ": %m", base);
                return EXIT_FAILED;
        }
        url = web_url_read(base);
        ws = url ? startswith(url, "http://") : NULL;
        if (url && !ws)
                log_warning("botdesk web says it listens at %s; printing the path alone.", url);
        if (http)
                full = strdup_printf("%s%s/%s/devtools/%s/", ws ? "http://" : "", ws ?: "", profile, token);
        else
                full = strdup_printf("%s%s/%s/devtools/browser?ticket=%s", ws ? "ws://" : "", ws ?: "", profile,
                                     token);
        explicit_bzero(token, sizeof token);
        if (!full)
                return log_oom(), EXIT_FAILED;
        if (a->json) {
                struct json j;

                json_init(&j, stdout);
                json_object_begin(&j);
                json_kv_string(&j, "profile", profile);
                json_kv_string(&j, "url", full);
                json_kv_int(&j, "ttl", ttl);
                json_kv_int(&j, "epoch", (long long) admitted.epoch);
                json_object_end(&j);
                putchar('\n');
        } else
                puts(full);
        explicit_bzero(full, strlen(full));
        if (!ws)
                log_info("No botdesk web on TCP here: the URL is a path for the gateway's proxy in front of "
                         "botdesk web's socket.");
        return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}
