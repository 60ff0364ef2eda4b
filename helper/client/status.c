/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "browser.h"
#include "published-env.h"
#include "find-executable.h"
#include "journal.h"
#include "record.h"
#include "login.h"
#include "memory.h"
#include "packages.h"
#include "profile.h"
#include "remote-front.h"
#include "remote-target.h"
#include "snapshot.h"
#include "status.h"
#include "term-escape.h"
#include "util.h"

void status_done(struct bd_status *s) {
        free(s->profile);
        strv_free(s->missing);
        free(s->socket);
        free(s->geometry);
        free(s->install_command);
        free(s->browser);
        free(s->blocker);
        free(s->remote);
        free(s->remote_warning);
        free(s->warning);
        free(s->journal);
        free(s->placement);
        free(s->unit);
        free(s->session);
        free(s->last_error);
        free(s->unverified);
        network_texts_done(&s->network);
        *s = (struct bd_status) {};
}

static int collect_packages(const struct bd_config *c, struct bd_status *s) {
        enum pkg_manager m;
        int r;

        r = packages_missing(NULL, &s->missing);
        if (r < 0)
                return r;
        if (c->desktop == DESKTOP_COMMAND) {
                /* Only the X server and the bus are needed then. */
                size_t k = 0;
                for (size_t i = 0; s->missing && s->missing[i]; i++) {
                        const char *b = s->missing[i];
                        if (streq(b, "Xtigervnc") || streq(b, "Xvnc") || streq(b, "dbus-daemon"))
                                s->missing[k++] = s->missing[i];
                        else
                                free(s->missing[i]);
                }
                if (s->missing)
                        s->missing[k] = NULL;
        }
        s->installed = strv_length(s->missing) == 0;
        /* The package manager is looked for on PATH only when something is missing. */
        m = s->installed ? PKG_NONE : pkg_manager_detect(NULL);
        s->supported = s->installed || m != PKG_NONE;
        if (!s->installed) {
                _cleanup_strv_free_ char **everything = NULL;
                _cleanup_free_ char *msg = NULL;

                /* What install would run: the everyday programs come with what is needed. */
                r = packages_missing_all(NULL, &everything);
                if (r < 0)
                        return r;
                msg = packages_install_message(m, geteuid() == 0, find_executable("sudo", NULL, NULL) >= 0,
                                               everything, &s->install_command);
        }
        return 0;
}

/*
 * A VNC server botdesk did not start: running as far as botdesk knows (it
 * is not botdesk's to start or stop; `botdesk doctor` says whether it
 * answers), its lease in the runtime dir when one was made, its size as
 * the last session with it found it (remote-front.h).
 */
static int collect_remote(const char *profile, const struct bd_config *c, struct bd_status *s) {
        _cleanup_(paths_done) struct bd_paths p = {};
        _cleanup_close_ int dirfd = -EBADF;
        struct remote_target t;
        const char *problem;

        s->running = true;
        s->remote = strdup(c->remote);
        s->placement = strdup("remote");
        if (!s->remote || !s->placement)
                return -ENOMEM;
        if (!c->remote_ca_file && remote_target_parse(c->remote, &t, &problem) >= 0 && remote_target_public(&t)) {
                s->remote_warning = strdup(REMOTE_PUBLIC_WARNING);
                if (!s->remote_warning)
                        return -ENOMEM;
        }
        free(s->geometry);
        s->geometry = NULL;
        if (paths_for_profile(profile, &p) < 0)
                return 0;
        dirfd = paths_open_runtime(&p, NULL);
        if (dirfd < 0)
                return 0;
        (void) lease_read_at(dirfd, &s->lease);
        (void) remote_geometry_read_at(dirfd, &s->geometry);
        return 0;
}

int status_collect(const char *profile, const struct bd_config *c, struct bd_status *s) {
        struct bd_paths p = {};
        struct helper_record rec = {};
        struct memory_info mem;
        const struct memory_env menv = {};
        _cleanup_close_ int dirfd = -EBADF;
        int r;

        *s = (struct bd_status) { .display = -1, .memory_available_mb = -1, .memory_limit_mb = -1, .idle_seconds = -1,
                                  .lease = { .holder = LEASE_AGENT } };
        s->profile = strdup(profile);
        s->geometry = strdup_printf("%ux%u", c->width, c->height);
        if (!s->profile || !s->geometry)
                return -ENOMEM;
        /* A VNC server botdesk did not start: nothing of it runs here to look at. */
        if (c->remote)
                return collect_remote(profile, c, s);
        r = collect_packages(c, s);
        if (r < 0)
                return r;
        {
                _cleanup_free_ char *home = NULL;

                (void) paths_home(&home);
                s->browser = browser_find(c, home);
        }

        r = paths_for_profile(profile, &p);
        if (r < 0)
                return r;
        dirfd = paths_open_runtime(&p, NULL);
        if (dirfd == -EPERM) {
                /* Someone else's dir, or one others may write: a record,
                 * lock or env there may be forged, so none of it is read. */
                int base = dir_open_verified_at(AT_FDCWD, p.runtime_base, getuid());
                bool base_ok = base >= 0;

                safe_close(base);

                s->unverified = strdup(base_ok ? p.runtime : p.runtime_base);
                if (!s->unverified) {
                        paths_done(&p);
                        return -ENOMEM;
                }
        }
        if (dirfd >= 0)
                (void) lease_read_at(dirfd, &s->lease);
        if (dirfd >= 0 && helper_record_read_at(dirfd, &rec) >= 0 && helper_alive(dirfd, &rec) > 0) {
                struct stat st;

                s->pid = rec.pid;
                s->placement = TAKE_PTR(rec.placement);
                s->unit = TAKE_PTR(rec.unit);
                s->started_at = rec.started_at;
                _cleanup_strv_free_ char **env = NULL;

                if (published_env_read_at(dirfd, &env, NULL) >= 0) {
                        const char *b = strv_env_get(env, "AGENT_BROWSER_EXECUTABLE_PATH");

                        /* A running desktop's browser is the one it published. */
                        free(s->browser);
                        s->browser = b ? strdup(b) : NULL;
                        s->running = true;
                        s->display = rec.display;
                        /* A desktop of the logind tier: its session, as `botdesk lookup` finds it. */
                        if (s->placement && streq(s->placement, "session") &&
                            login_session_by_display(getuid(), rec.display, &s->session, NULL) < 0)
                                s->session = NULL;
                        s->socket = strdup(p.rfb_socket);
                } else
                        s->starting = true;
                if (fstatat(dirfd, "activity", &st, 0) == 0) {
                        struct timespec now;
                        clock_gettime(CLOCK_REALTIME, &now);
                        s->idle_seconds = (double) (now.tv_sec - st.st_mtim.tv_sec) +
                                          (double) (now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
                        if (s->idle_seconds < 0)
                                s->idle_seconds = 0;
                }
        } else if (dirfd >= 0) {
                _cleanup_free_ char *text = NULL;
                if (read_full_file_at(dirfd, "last-error", &text, NULL, 4096) >= 0) {
                        text[strcspn(text, "\n")] = 0;
                        s->last_error = TAKE_PTR(text);
                }
        }
        if (!s->pid) {
                _cleanup_(snapshot_manifest_done) struct snapshot_manifest m = {};
                _cleanup_close_ int snap = -EBADF;

                if (snapshot_open(p.state, &snap) >= 0 && snapshot_manifest_read_at(snap, &m) >= 0) {
                        s->hibernated = true;
                        s->hibernated_at = m.time_usec;
                        s->hibernated_size = m.size;
                }
        }
        {
                char why[128];

                if (journal_stopped(p.state, why, sizeof why)) {
                        s->journal = strdup_printf("stopped: %s", why);
                        if (!s->journal) {
                                helper_record_done(&rec);
                                paths_done(&p);
                                return -ENOMEM;
                        }
                }
        }
        helper_record_done(&rec);
        paths_done(&p);
        /* What `network set` gave a live desktop, else the configuration's. */
        if (network_texts_read(profile, c, s->running || s->starting ? dirfd : -EBADF, &s->network) < 0)
                return -ENOMEM;

        if (memory_read(&menv, &mem) >= 0) {
                s->memory_available_mb = (long long) mem.available_mb;
                s->memory_limit_mb = (long long) mem.limit_mb;
                /* A running desktop is never reported blocked. */
                if (!s->running && !s->starting && memory_judge(mem.available_mb, c->min_free_memory_mb) == MEMORY_BLOCKED)
                        s->blocker = memory_blocker_message(&mem, c->min_free_memory_mb);
                if (memory_warning(&mem, c->min_free_memory_mb, s->running || s->starting, &s->warning) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static void format_time(unsigned long long usec, char *buf, size_t size) {
        char t[UTC_TIME_MAX];

        snprintf(buf, size, "%s", utc_time_format(usec, false, t));
}

void status_json(struct json *j, const struct bd_status *s) {
        json_object_begin(j);
        status_json_fields(j, s);
        json_object_end(j);
}

void status_json_fields(struct json *j, const struct bd_status *s) {
        char when[32];

        json_kv_string(j, "profile", s->profile);
        json_kv_bool(j, "supported", s->supported);
        json_kv_bool(j, "installed", s->installed);
        json_key(j, "missing");
        json_array_begin(j);
        for (size_t i = 0; s->missing && s->missing[i]; i++)
                json_string(j, s->missing[i]);
        json_array_end(j);
        json_kv_bool(j, "running", s->running);
        json_kv_bool(j, "hibernated", s->hibernated);
        json_key(j, "hibernated_at");
        if (s->hibernated) {
                format_time(s->hibernated_at, when, sizeof when);
                json_string(j, when);
        } else
                json_null(j);
        json_kv_opt_int(j, "hibernated_size", (long long) s->hibernated_size, s->hibernated);
        json_kv_opt_int(j, "pid", s->pid, s->pid > 0);
        json_key(j, "display");
        if (s->display >= 0) {
                char d[16];
                snprintf(d, sizeof d, ":%d", s->display);
                json_string(j, d);
        } else
                json_null(j);
        json_kv_string(j, "socket", s->socket);
        json_kv_string(j, "geometry", s->geometry);
        json_kv_string(j, "install_command", s->install_command);
        json_kv_string(j, "browser", s->browser);
        json_kv_string(j, "blocker", s->blocker);
        json_kv_opt_int(j, "memory_available_mb", s->memory_available_mb, s->memory_available_mb >= 0);
        json_kv_opt_int(j, "memory_limit_mb", s->memory_limit_mb, s->memory_limit_mb >= 0);
        json_kv_string(j, "placement", s->placement);
        /* A desktop placed elsewhere is said by the botdesk that placed it (cli-remote.c). */
        json_kv_string(j, "placement_kind", s->remote ? "remote" : "host");
        json_kv_null(j, "image");
        json_kv_null(j, "image_switch");
        if (s->remote) {
                json_kv_string(j, "remote", s->remote);
                json_kv_string(j, "remote_warning", s->remote_warning);
        }
        json_kv_string(j, "unit", s->unit);
        json_kv_string(j, "session", s->session);
        if (!s->remote)
                network_json(j, &s->network);
        json_key(j, "lease");
        lease_json(j, &s->lease);
        json_kv_opt_double(j, "idle_seconds", s->idle_seconds, s->idle_seconds >= 0);
        json_key(j, "started_at");
        if (s->started_at) {
                format_time(s->started_at, when, sizeof when);
                json_string(j, when);
        } else
                json_null(j);
        json_kv_string(j, "warning", s->warning);
        json_kv_string(j, "journal", s->journal);
}

void status_print(FILE *f, const struct bd_status *s) {
        /* Read from files a desktop can write: no control reaches a terminal. */
        _cleanup_free_ char *last_error = NULL, *journal = NULL;

        if (s->running && s->remote) {
                fprintf(f, "%s: a VNC server botdesk did not start, remote = %s%s%s%s\n", s->profile, s->remote,
                        s->geometry ? " (" : "", s->geometry ?: "", s->geometry ? ")" : "");
                if (s->remote_warning)
                        fprintf(f, "  warning: %s\n", s->remote_warning);
        } else if (s->running) {
                fprintf(f, "%s: running on :%d (%s), pid %d, %s%s%s\n", s->profile, s->display, s->geometry,
                        (int) s->pid, s->placement ?: "?", s->unit ? " " : "", s->unit ?: "");
                fprintf(f, "  RFB socket: %s\n", s->socket);
                if (s->network.mode != NET_MODE_OPEN || s->network.deny)
                        fprintf(f, "  network: %s%s%s%s%s\n", net_mode_to_string(s->network.mode),
                                s->network.allow && s->network.mode == NET_MODE_ALLOWLIST ? ", allow " : "",
                                s->network.mode == NET_MODE_ALLOWLIST ? s->network.allow ?: "" : "",
                                s->network.deny ? ", deny " : "", s->network.deny ?: "");
        } else if (s->starting)
                fprintf(f, "%s: starting, pid %d\n", s->profile, (int) s->pid);
        else if (s->hibernated) {
                char when[32];

                format_time(s->hibernated_at, when, sizeof when);
                fprintf(f, "%s: hibernated at %s (%llu MiB); botdesk start %s resumes it\n", s->profile, when,
                        s->hibernated_size >> 20, s->profile);
        } else {
                fprintf(f, "%s: not running\n", s->profile);
                if (s->unverified)
                        fprintf(f, "  %s is not a private directory of uid %u: nothing in it was read\n",
                                s->unverified, (unsigned) getuid());
                if (s->last_error)
                        fprintf(f, "  last start failed: %s\n", term_field(f, s->last_error, &last_error));
        }
        if (s->lease.holder == LEASE_HUMAN)
                fprintf(f, "  a human has control%s%s\n", s->lease.since[0] ? " since " : "", s->lease.since);
        if (!s->installed && s->install_command)
                fprintf(f, "  missing programs; install with: %s\n", s->install_command);
        if (s->blocker)
                fprintf(f, "  %s\n", s->blocker);
        if (s->warning)
                fprintf(f, "  warning: %s\n", s->warning);
        if (s->journal)
                fprintf(f, "  journal: %s (remove %s/botdesk/%s/journal/stopped to record again)\n",
                        term_field(f, s->journal, &journal),
                        "$XDG_STATE_HOME", s->profile);
}

void status_emit(const struct bd_status *s, bool json) {
        struct json j;

        if (!json) {
                status_print(stdout, s);
                return;
        }
        json_init(&j, stdout);
        status_json(&j, s);
        putchar('\n');
}
