/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "placement-kind.h"
#include "action.h"
#include "cli.h"
#include "config.h"
#include "journal-hook.h"
#include "json.h"
#include "lease.h"
#include "log.h"
#include "profile.h"
#include "snapshot.h"
#include "util.h"

static void say_refused(const struct lease *l, const char *what) {
        log_error("A human has control of this screen%s%s; %s is refused. Tell the user what you need, "
                  "and wait until they hand control back (botdesk lease PROFILE release --viewer ID).",
                  l->since[0] ? " since " : "", l->since, what);
}

bool human_has_control(int runtime_fd, const char *what) {
        struct lease l;

        (void) lease_read_at(runtime_fd, &l);
        if (l.holder != LEASE_HUMAN)
                return false;
        say_refused(&l, what);
        return true;
}

static unsigned long long epoch_pin = CLI_EPOCH_ANY;

void cli_epoch_pin_set(unsigned long long epoch) {
        epoch_pin = epoch;
}

unsigned long long cli_epoch_pin(void) {
        return epoch_pin;
}

int cli_epoch_parse(const char *value, unsigned long long *ret) {
        if (!value || parse_uint(value, LEASE_EPOCH_MAX, ret) < 0) {
                log_error("Invalid --epoch \"%s\": give the lease epoch the action was approved at, a whole number "
                          "(botdesk lease PROFILE show --json says the current one).", strnull(value));
                return -EINVAL;
        }
        return 0;
}

const char *cli_action_veto(const struct lease *l, unsigned long long pin) {
        if (l->holder == LEASE_HUMAN || l->failed)
                return "human_has_control";
        if (pin != CLI_EPOCH_ANY && l->epoch != pin)
                return "epoch_moved";
        return NULL;
}

/* Said when veto refuses an action: what changed, and what to do. */
static void say_veto(const char *veto, const struct lease *l, unsigned long long pin, const char *what) {
        if (streq(veto, "epoch_moved"))
                log_error("Control of this screen changed since the lease epoch %llu this action was approved at (now "
                          "%llu); %s is refused. Approve it again at the current epoch.", pin, l->epoch, what);
        else
                say_refused(l, what);
}

const char *cli_action_admit_pinned(int runtime_fd, const char *what, unsigned long long pin, struct lease *ret) {
        const char *veto;

        /* One read decides and is kept: its epoch is what cli_action_done() compares. */
        (void) lease_read_at(runtime_fd, ret);
        veto = cli_action_veto(ret, pin);
        if (!veto) {
                cli_journal_frame_barrier(runtime_fd);
                return NULL;
        }
        say_veto(veto, ret, pin, what);
        return veto;
}

static void print_suppressed(const char *veto, const char *what, const char *profile, unsigned long long epoch) {
        struct json j;

        json_init(&j, stdout);
        json_object_begin(&j);
        json_kv_string(&j, "suppressed", veto);
        json_kv_string(&j, "action", what);
        json_kv_string(&j, "profile", profile);
        json_kv_int(&j, "epoch", (long long) epoch);
        json_object_end(&j);
        putchar('\n');
}

int cli_action_admit(int runtime_fd, const char *profile, const char *what, bool json, struct lease *ret) {
        const char *veto = cli_action_admit_pinned(runtime_fd, what, epoch_pin, ret);

        if (!veto)
                return EXIT_OK;
        if (json)
                print_suppressed(veto, what, profile, ret->epoch);
        return EXIT_REFUSED;
}

int cli_action_admit_lease(const struct lease *l, const char *profile, const char *what, bool json) {
        const char *veto = cli_action_veto(l, epoch_pin);

        if (!veto)
                return EXIT_OK;
        say_veto(veto, l, epoch_pin, what);
        if (json)
                print_suppressed(veto, what, profile, l->epoch);
        return EXIT_REFUSED;
}

bool cli_action_still_valid(int runtime_fd, const struct lease *admitted) {
        struct lease now;

        (void) lease_read_at(runtime_fd, &now);
        return lease_action_valid(admitted, &now);
}

bool cli_still_admitted(void *userdata) {
        const struct cli_admitted *a = userdata;
        return cli_action_still_valid(a->runtime_fd, a->lease);
}

int cli_action_done(int runtime_fd, const char *profile, const char *what, const struct lease *admitted, bool json) {
        struct lease now;

        (void) lease_read_at(runtime_fd, &now);
        if (lease_action_valid(admitted, &now))
                return EXIT_OK;
        log_error("A human took control of this screen while %s ran; its result is void. Tell the user what you need, "
                  "and wait until they hand control back (botdesk lease %s wait).", what, profile);
        if (json)
                print_suppressed("human_has_control", what, profile, now.epoch);
        return EXIT_REFUSED;
}

int cli_check_snapshot_name(const char *verb, const char *profile, const char *name) {
        if (!name) {
                log_error("botdesk %s needs the snapshot's NAME: botdesk %s %s NAME.", verb, verb, profile);
                return -EINVAL;
        }
        if (!snapshot_name_valid(name)) {
                log_error("Invalid snapshot name \"%s\": 1-%d letters, digits, '.', '_' or '-', not starting with "
                          "'.' or '-'.", name, SNAPSHOT_NAME_MAX);
                return -EINVAL;
        }
        return 0;
}

int cli_check_profile(const char *profile) {
        if (!profile) {
                log_error("Missing PROFILE argument.");
                return -EINVAL;
        }
        if (!profile_name_valid(profile)) {
                log_error("Invalid profile name \"%s\": use 1-32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit.",
                          profile);
                return -EINVAL;
        }
        return 0;
}

/* The profile's paths with its runtime dir created and verified, opened. */
int cli_open_profile(const char *profile, struct bd_paths *p, int *ret_fd) {
        int r, fd;

        r = paths_for_profile(profile, p);
        if (r == -ENAMETOOLONG) {
                log_error("The RFB socket path of profile %s would be longer than a Unix socket allows (%s); set a shorter XDG_RUNTIME_DIR.",
                          profile, p->runtime ?: "?");
                return -EINVAL;
        }
        if (r < 0)
                return log_error_errno(r, "Cannot compute the paths of profile %s: %m", profile);
        r = paths_ensure(p);
        if (r < 0) {
                /* Name the directory that is wrong: often the base (someone
                 * else's /tmp/botdesk-UID), not the profile's below it. */
                const char *bad = dir_is_private(p->runtime_base, getuid()) < 0 ? p->runtime_base : p->runtime;
                return log_error_errno(r, "%s is not a private directory of uid %u (%m); remove it or fix its owner and mode.",
                                       bad, (unsigned) getuid());
        }
        /* Checked again on the opened fds: what is read below is what was verified. */
        fd = paths_open_runtime(p, NULL);
        if (fd < 0)
                return log_error_errno(fd, "Cannot open %s as a private directory of uid %u: %m", p->runtime,
                                       (unsigned) getuid());
        *ret_fd = fd;
        return 0;
}

const struct bd_config *cli_config(const struct bd_config *given, const char *profile, struct bd_config *storage) {
        if (given)
                return given;
        return cli_load_config(profile, storage) < 0 ? NULL : storage;
}

enum cli_desktop_place cli_desktop_place(const struct bd_config *given, const char *profile) {
        _cleanup_(config_done) struct bd_config storage = {};
        const struct bd_config *c = cli_config(given, profile, &storage);

        return !c ? CLI_PLACE_HERE : c->remote ? CLI_PLACE_REMOTE : placement_elsewhere(c) ? CLI_PLACE_EXEC
                                                                                         : CLI_PLACE_HERE;
}

int cli_load_config(const char *profile, struct bd_config *c) {
        struct config_errors errs = {};
        const struct config_sources src = {};
        int r;

        r = config_load(c, profile, &src, &errs);
        if (r < 0) {
                config_errors_print(&errs, stderr);
                log_error("The configuration has errors; fix them (botdesk config check lists them all).");
        }
        config_errors_done(&errs);
        return r;
}

int cli_members_off(const char *words, uint32_t *ret) {
        _cleanup_free_ char *bad = NULL;
        int r = mcp_members_mask(words, ret, &bad);

        if (r == -ENOMEM) {
                log_oom();
                return EXIT_FAILED;
        }
        if (r < 0) {
                log_error("[agent] toolset_disabled names \"%s\", which is no member of the computer toolset (key, "
                          "type, left_click, screenshot, ...: botdesk mcp's tools/list lists them).", bad);
                return EXIT_USAGE;
        }
        return EXIT_OK;
}
