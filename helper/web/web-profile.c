/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: the profiles with live streams. Each has its runtime dir
 * open and watched (one inotify descriptor for all), its lease as last
 * read, its [web] settings, and, while the viewer in control has no stream
 * left, the timer of the deadline at which control returns to the agent.
 */
#include "placement-kind.h"
#include "config.h"
#include "lease-deadline.h"
#include "lease-watch.h"
#include "log.h"
#include "owner.h"
#include "util.h"
#include "web.h"

/* ---- profiles and their leases -------------------------------------------------------------- */

static void profile_reload_lease(struct web_profile *p) {
        /* A damaged file reads as the fail-closed lease, which allows nobody. */
        (void) lease_read_at(p->dirfd, &p->lease);
        /* Evicted streams are only queued to close here: none is freed under this loop. */
        for (struct web_stream *st = p->streams; st; st = web_stream_next(st))
                web_stream_lease_changed(st);
}

void web_profile_placed_lease(struct web_profile *p, const struct lease *l, const char *hash) {
        p->lease = *l;
        (void) strscpy(p->lease_hash, sizeof p->lease_hash, hash);
        for (struct web_stream *st = p->streams; st; st = web_stream_next(st))
                web_stream_lease_changed(st);
}

static int profile_load_config(struct web_profile *p) {
        _cleanup_(config_done) struct bd_config c = {};
        struct config_errors errs = {};
        const struct config_sources src = {};
        int r;

        r = config_load(&c, p->name, &src, &errs);
        if (r < 0) {
                config_errors_print(&errs, stderr);
                log_error("The configuration has errors; fix them (botdesk config check lists them all).");
        }
        config_errors_done(&errs);
        p->release_on_close = c.release_on_close;
        p->orphan_release_s = c.orphan_release_s;
        p->reconnect_grace_ms = c.reconnect_grace_ms;
        p->one_viewer = c.web_viewers == WEB_VIEWERS_ONE;
        p->max_cut_text = c.max_cut_text;
        p->origin = TAKE_PTR(c.web_origin);
        p->placed = placement_elsewhere(&c) && !c.remote;
        p->remote = c.remote != NULL;
        return r;
}

static bool placed_by_record(int dirfd) {
        _cleanup_(owner_done) struct owner rec = {};
        int r = owner_read_at(dirfd, &rec);

        /* An unreadable record too: the CLI then says why, and starts nothing. */
        return r >= 0 || r == -EBADMSG;
}

struct web_profile *web_profile_get(struct web_server *s, const char *name, int *ret_error) {
        _cleanup_(paths_done) struct bd_paths paths = {};
        struct web_profile *p;
        int r;

        for (p = s->profiles; p; p = p->next)
                if (streq(p->name, name))
                        return p;

        r = paths_for_profile(name, &paths);
        if (r < 0)
                goto fail;
        p = calloc(1, sizeof *p);
        if (!p) {
                r = -ENOMEM;
                goto fail;
        }
        p->server = s;
        p->wd = -1;
        /* paths_for_profile took only a valid name: one that fits. */
        if (strscpy(p->name, sizeof p->name, name) < 0) {
                r = -EINVAL;
                free(p);
                goto fail;
        }
        p->dirfd = -EBADF;
        r = profile_load_config(p);
        if (r < 0) {
                free(p->origin);
                free(p);
                goto fail;
        }
        /* Its desktop is elsewhere: the lease comes from there (web-placed.c),
         * the agent's until the far side says otherwise. */
        /* A VNC server botdesk did not start has no desktop here to make the
         * dir: its lease's dir is made on first use, as the CLI makes it. */
        if (p->remote) {
                r = paths_ensure(&paths);
                if (r < 0) {
                        free(p->origin);
                        free(p);
                        goto fail;
                }
        }
        if (!p->placed) {
                /* The base and the profile's dir verified ours, as every verb opens them. */
                p->dirfd = paths_open_runtime(&paths, NULL);
                if (p->dirfd < 0) {
                        r = p->dirfd;
                        free(p->origin);
                        free(p);
                        goto fail;
                }
                /* A desktop started elsewhere left its owner record here: it is
                 * served through the CLI's verbs, which run the record only while
                 * it is the configured prefix (owner.h). */
                p->placed = !p->remote && placed_by_record(p->dirfd);
                if (p->placed)
                        p->dirfd = safe_close(p->dirfd);
        }
        if (!p->placed) {
                /* Watch before the first read, so that no change falls in between. */
                p->wd = lease_watch_add(s->inotify_fd, p->dirfd);
                if (p->wd < 0) {
                        r = p->wd;
                        safe_close(p->dirfd);
                        free(p->origin);
                        free(p);
                        goto fail;
                }
                (void) lease_read_at(p->dirfd, &p->lease);
        }
        p->next = s->profiles;
        s->profiles = p;
        return p;

fail:
        if (ret_error)
                *ret_error = r;
        return NULL;
}

void web_profile_put(struct web_profile *p) {
        struct web_server *s;

        if (!p || p->n_streams > 0 || p->deadline)
                return;
        s = p->server;
        for (struct web_profile **i = &s->profiles; *i; i = &(*i)->next)
                if (*i == p) {
                        *i = p->next;
                        break;
                }
        if (p->wd >= 0)
                (void) inotify_rm_watch(s->inotify_fd, p->wd);
        web_job_cancel(p->watch);
        sd_event_source_disable_unref(p->deadline);
        safe_close(p->dirfd);
        free(p->origin);
        free(p);
}

void web_profiles_done(struct web_server *s) {
        /* Their deadlines are recorded beside the lease: the helper honours them from here on. */
        for (struct web_profile *p = s->profiles, *next; p; p = next) {
                next = p->next;
                p->deadline = sd_event_source_disable_unref(p->deadline);
                web_profile_put(p);
        }
}

/* ---- a hold without a viewer ---------------------------------------------------------------- */

static void deadline_disarm(struct web_profile *p) {
        p->deadline = sd_event_source_disable_unref(p->deadline);
}

static int on_deadline(sd_event_source *src, uint64_t usec, void *userdata) {
        struct web_profile *p = userdata;
        unsigned long long next = 0;
        int r;

        r = lease_deadline_expire_at(p->dirfd, realtime_usec(), &next);
        if (r > 0)
                log_info("No viewer of the human in control of %s came back: control returns to the agent.", p->name);
        else if (r < 0)
                log_warning_errno(r, "Cannot end the viewerless hold of %s, ignoring: %m", p->name);
        if (next > 0 && sd_event_source_set_time(src, next) >= 0 &&
            sd_event_source_set_enabled(src, SD_EVENT_ONESHOT) >= 0)
                return 0;
        deadline_disarm(p);
        web_profile_put(p);
        return 0;
}

/* ---- a placed hold without a viewer: released through the prefix ---------------------------- */

static void placed_release(struct web_profile *p, const char *viewer) {
        char *args[] = { (char *) "lease", p->name, (char *) "release", (char *) "--viewer", (char *) viewer, NULL };
        int r = web_job_start(p->server, args, -1, NULL, NULL, NULL);

        if (r < 0)
                log_warning_errno(r, "Cannot hand %s back to the agent, ignoring: %m", p->name);
        else
                log_info("The viewer in control of %s has no stream left: control returns to the agent.", p->name);
}

static int on_placed_deadline(sd_event_source *src, uint64_t usec, void *userdata) {
        struct web_profile *p = userdata;

        p->deadline = sd_event_source_disable_unref(p->deadline);
        if (p->lease.holder == LEASE_HUMAN && lease_viewer_valid(p->lease.viewer))
                placed_release(p, p->lease.viewer);
        web_profile_put(p);
        return 0;
}

/* The hold's deadline is this server's only: the far side's helper knows no
 * deadline recorded here. A server that stops first leaves the hold. */
static void placed_viewer_gone(struct web_profile *p, const char *viewer, unsigned long long delay) {
        int r;

        if (delay == 0) {
                placed_release(p, viewer);
                return;
        }
        deadline_disarm(p);
        r = sd_event_add_time_relative(p->server->event, &p->deadline, CLOCK_MONOTONIC, delay, 10 * 1000,
                                       on_placed_deadline, p);
        if (r < 0)
                log_warning_errno(r, "Cannot arm the deadline of %s, ignoring: %m", p->name);
        else
                log_info("The viewer in control of %s has no stream left: control returns to the agent in %llu ms "
                         "unless it comes back.", p->name, delay / 1000);
}

void web_profile_viewer_gone(struct web_profile *p, const char *viewer, bool left) {
        struct lease_deadline d = { .epoch = p->lease.epoch };
        unsigned long long delay = left ? p->reconnect_grace_ms * 1000ULL : p->orphan_release_s * 1000000ULL;
        int r;

        if (p->placed) {
                placed_viewer_gone(p, viewer, delay);
                return;
        }

        /* A stream's viewer has the lease's size, and both reasons fit. */
        if (strscpy(d.viewer, sizeof d.viewer, viewer) < 0 ||
            strscpy(d.reason, sizeof d.reason, left ? LEASE_REASON_VIEWER_LEFT : LEASE_REASON_VIEWER_GONE) < 0) {
                log_error("A viewer of %s does not fit a lease record, ignoring its departure.", p->name);
                return;
        }
        d.deadline = realtime_usec() + delay;
        if (delay == 0) {
                r = lease_release_epoch_at(p->dirfd, viewer, d.epoch, d.reason, NULL);
                if (r > 0)
                        log_info("The viewer in control of %s left: control returns to the agent.", p->name);
                else if (r < 0)
                        log_warning_errno(r, "Cannot hand %s back to the agent, ignoring: %m", p->name);
                return;
        }
        r = lease_deadline_set_at(p->dirfd, &d);
        if (r < 0) {
                log_warning_errno(r, "Cannot record when control of %s returns to the agent, ignoring: %m", p->name);
                return;
        }
        log_info("The viewer in control of %s has no stream left: control returns to the agent in %llu ms "
                 "unless it comes back.", p->name, delay / 1000);
        deadline_disarm(p);
        /* CLOCK_REALTIME, as the deadline recorded for the helper: both fire at the same moment. */
        r = sd_event_add_time(p->server->event, &p->deadline, CLOCK_REALTIME, d.deadline, 10 * 1000, on_deadline, p);
        if (r < 0)
                log_warning_errno(r, "Cannot arm the deadline of %s (the desktop's helper still honours it): %m", p->name);
}

void web_profile_viewer_back(struct web_profile *p, const char *viewer) {
        int r;

        if (p->placed) {
                if (p->deadline && lease_allows_input(&p->lease, viewer))
                        deadline_disarm(p);
                return;
        }
        r = lease_deadline_clear_at(p->dirfd, viewer);

        if (r > 0)
                log_info("A viewer of the human in control of %s is back: the hold goes on.", p->name);
        else if (r < 0)
                log_warning_errno(r, "Cannot remove the deadline of %s, ignoring: %m", p->name);
        /* The profile has a stream now: no put needed. */
        if (r > 0 || (p->deadline && lease_allows_input(&p->lease, viewer)))
                deadline_disarm(p);
}

static int on_lease_event(const struct inotify_event *ev, void *userdata) {
        struct web_server *s = userdata;
        bool overflow = ev->mask & IN_Q_OVERFLOW;

        for (struct web_profile *p = s->profiles; p; p = p->next)
                if (overflow || (ev->wd == p->wd && lease_event_changes(ev)))
                        profile_reload_lease(p);
        return 0;
}

void web_server_lease_changes(struct web_server *s) {
        int r = inotify_drain(s->inotify_fd, on_lease_event, s);

        if (r < 0)
                log_warning_errno(r, "Cannot read lease changes, ignoring: %m");
}
