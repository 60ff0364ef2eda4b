/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdint.h>

#include "memory.h"
#include "mountinfo.h"
#include "util.h"

#define MB (UINT64_C(1024) * UINT64_C(1024))

/* cgroup v1 reports "no limit" as PAGE_COUNTER_MAX * PAGE_SIZE, which is a
 * little below 2^63 and depends on the page size; anything this large is not
 * a limit any host can reach. */
#define V1_UNLIMITED (UINT64_C(1) << 62)

/* memory.stat of v1 lists ~40 counters and is a few KiB; leave room. */
#define SMALL_FILE_MAX (64 * 1024)

struct cgroup_flavour {
        const char *limit_file;
        const char *usage_file;
        const char *inactive_key;
        bool v1;
};

static const struct cgroup_flavour flavour_v2 = {
        .limit_file = "memory.max",
        .usage_file = "memory.current",
        .inactive_key = "inactive_file",
};

/* On v1, "total_" counters include descendants, matching usage_in_bytes;
 * plain inactive_file counts only the cgroup's own pages. */
static const struct cgroup_flavour flavour_v1 = {
        .limit_file = "memory.limit_in_bytes",
        .usage_file = "memory.usage_in_bytes",
        .inactive_key = "total_inactive_file",
        .v1 = true,
};

static int read_small_file(const char *path, char **ret) {
        return read_full_file(path, ret, NULL, SMALL_FILE_MAX);
}

/* A file holding one number and a newline, or "max" (v2). Returns 1 with the
 * value, 0 for "max". */
static int read_limit_file(const char *path, uint64_t *ret) {
        _cleanup_free_ char *buf = NULL;
        unsigned long long v;
        size_t n;
        int r;

        r = read_small_file(path, &buf);
        if (r < 0)
                return r;
        n = strlen(buf);
        if (n > 0 && buf[n - 1] == '\n')
                buf[--n] = 0;
        if (streq(buf, "max"))
                return 0;
        r = parse_uint(buf, UINT64_MAX, &v);
        if (r < 0)
                return -EBADMSG;
        *ret = v;
        return 1;
}

/* Finds "key value" in a memory.stat text. A missing key reads as 0: without
 * it no page counts as reclaimable, which only makes the gate stricter. */
static int stat_lookup(const char *text, const char *key, uint64_t *ret) {
        size_t kl = strlen(key);

        for (const char *p = text; p && *p; ) {
                const char *eol = strchrnul(p, '\n');

                if ((size_t) (eol - p) > kl && strncmp(p, key, kl) == 0 && p[kl] == ' ') {
                        char num[24];
                        size_t nl = (size_t) (eol - p) - kl - 1;
                        unsigned long long v;

                        if (nl >= sizeof num)
                                return -EBADMSG;
                        memcpy(num, p + kl + 1, nl);
                        num[nl] = 0;
                        if (parse_uint(num, UINT64_MAX, &v) < 0)
                                return -EBADMSG;
                        *ret = v;
                        return 0;
                }
                p = *eol ? eol + 1 : eol;
        }
        *ret = 0;
        return 0;
}

/*
 * One level of the cgroup tree. Returns 1 with the limit and headroom in
 * bytes when this level has a limit, 0 when it has none or no memory
 * controller at all (its files are absent), -errno otherwise.
 */
static int cgroup_level(const char *dir, const struct cgroup_flavour *f,
                        uint64_t *ret_limit, uint64_t *ret_headroom) {
        _cleanup_free_ char *p = NULL, *stat = NULL;
        uint64_t limit, usage, inactive;
        int r;

        p = strdup_printf("%s/%s", dir, f->limit_file);
        if (!p)
                return -ENOMEM;
        r = read_limit_file(p, &limit);
        if (r == -ENOENT)
                return 0;
        if (r <= 0)
                return r;
        if (f->v1 && limit >= V1_UNLIMITED)
                return 0;

        free(p);
        p = strdup_printf("%s/%s", dir, f->usage_file);
        if (!p)
                return -ENOMEM;
        r = read_limit_file(p, &usage);
        if (r < 0)
                return r;
        if (r == 0) /* "max" is not a usage */
                return -EBADMSG;

        free(p);
        p = strdup_printf("%s/memory.stat", dir);
        if (!p)
                return -ENOMEM;
        r = read_small_file(p, &stat);
        if (r == -ENOENT)
                inactive = 0;
        else if (r < 0)
                return r;
        else {
                r = stat_lookup(stat, f->inactive_key, &inactive);
                if (r < 0)
                        return r;
        }

        /* Inactive file pages are reclaimed before the cgroup hits its
         * limit, so they count as free. */
        usage = usage > inactive ? usage - inactive : 0;
        *ret_limit = limit;
        *ret_headroom = limit > usage ? limit - usage : 0;
        return 1;
}

/* Walks from the process's cgroup up to the mount root. Returns 1 with the
 * tightest limit and smallest headroom, 0 when no level has a limit. */
static int cgroup_walk(const struct cgroup_mount *m, const char *self, const struct cgroup_flavour *f,
                       uint64_t *ret_limit, uint64_t *ret_headroom) {
        _cleanup_free_ char *rel = NULL;
        uint64_t best_limit = UINT64_MAX, best_headroom = UINT64_MAX;
        bool found = false;

        rel = cgroup_relative(self, m->root);
        if (!rel)
                return -ENOMEM;

        for (;;) {
                _cleanup_free_ char *dir = NULL;
                uint64_t limit, headroom;
                char *slash;
                int r;

                dir = strdup_printf("%s%s", m->path, streq(rel, "/") ? "" : rel);
                if (!dir)
                        return -ENOMEM;
                r = cgroup_level(dir, f, &limit, &headroom);
                if (r < 0)
                        return r;
                if (r > 0) {
                        found = true;
                        if (limit < best_limit)
                                best_limit = limit;
                        if (headroom < best_headroom)
                                best_headroom = headroom;
                }

                if (streq(rel, "/"))
                        break;
                slash = strrchr(rel, '/');
                if (slash == rel)
                        slash[1] = 0;
                else
                        *slash = 0;
        }

        if (!found)
                return 0;
        *ret_limit = best_limit;
        *ret_headroom = best_headroom;
        return 1;
}

static bool file_exists_in(const char *dir, const char *name) {
        _cleanup_free_ char *p = strdup_printf("%s/%s", dir, name);

        return p && access(p, F_OK) >= 0;
}

/* A cgroup_root (a fixture or an unusual mount point) laid out like
 * /sys/fs/cgroup: pure v2 at the root, or hybrid with v2 in "unified" and
 * the v1 memory controller in "memory". */
static int probe_root(const char *root, struct cgroup_mount *v2, struct cgroup_mount *v1) {
        _cleanup_free_ char *unified = NULL, *memory = NULL;
        int r = 0;

        unified = strdup_printf("%s/unified", root);
        memory = strdup_printf("%s/memory", root);
        if (!unified || !memory)
                return -ENOMEM;

        if (file_exists_in(root, "cgroup.controllers"))
                r = cgroup_mount_set(v2, root, "/");
        else if (file_exists_in(unified, "cgroup.controllers"))
                r = cgroup_mount_set(v2, unified, "/");
        if (r < 0)
                return r;
        if (file_exists_in(memory, "memory.limit_in_bytes"))
                r = cgroup_mount_set(v1, memory, "/");
        return r;
}

/* MemTotal and MemAvailable in bytes. */
static int read_meminfo(const char *proc_root, uint64_t *ret_total, uint64_t *ret_available) {
        _cleanup_free_ char *path = NULL, *buf = NULL;
        uint64_t total = 0, available = 0;
        bool have_total = false, have_available = false;
        char *line, *next;
        int r;

        path = strdup_printf("%s/meminfo", proc_root);
        if (!path)
                return -ENOMEM;
        r = read_small_file(path, &buf);
        if (r < 0)
                return r;

        for (line = buf; line && *line; line = next) {
                unsigned long long v;
                uint64_t *target;
                bool *have;
                const char *p;
                char num[24];
                size_t n;

                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if ((p = startswith(line, "MemTotal:"))) {
                        target = &total;
                        have = &have_total;
                } else if ((p = startswith(line, "MemAvailable:"))) {
                        target = &available;
                        have = &have_available;
                } else
                        continue;

                p += strspn(p, " \t");
                n = strspn(p, "0123456789");
                if (n == 0 || n >= sizeof num || !streq(p + n, " kB"))
                        return -EBADMSG;
                memcpy(num, p, n);
                num[n] = 0;
                if (parse_uint(num, UINT64_MAX / 1024, &v) < 0)
                        return -EBADMSG;
                *target = v * 1024;
                *have = true;
        }

        /* MemAvailable exists since Linux 3.14; MemFree alone would understate
         * what the kernel can hand out, so there is no honest fallback. */
        if (!have_total || !have_available)
                return -EBADMSG;
        *ret_total = total;
        *ret_available = available;
        return 0;
}

int memory_read(const struct memory_env *env, struct memory_info *ret) {
        static const struct memory_env defaults = { .proc_root = "/proc" };
        struct cgroup_mount v2 = {}, v1 = {};
        _cleanup_free_ char *self_v2 = NULL, *self_v1 = NULL;
        uint64_t total, available, limit = UINT64_MAX, headroom = UINT64_MAX;
        const char *proc_root;
        bool limited = false;
        int r;

        if (!env)
                env = &defaults;
        proc_root = env->proc_root ?: "/proc";

        r = read_meminfo(proc_root, &total, &available);
        if (r < 0)
                return r;

        if (env->cgroup_v2 || env->cgroup_v1) {
                if (env->cgroup_v2)
                        r = cgroup_mount_set(&v2, env->cgroup_v2, "/");
                if (r >= 0 && env->cgroup_v1)
                        r = cgroup_mount_set(&v1, env->cgroup_v1, "/");
        } else if (env->cgroup_root)
                r = probe_root(env->cgroup_root, &v2, &v1);
        else
                r = mountinfo_cgroup_mounts(proc_root, &v2, &v1);
        if (r < 0)
                goto finish;

        if (env->self_cgroup_v2 && !(self_v2 = strdup(env->self_cgroup_v2)))
                r = -ENOMEM;
        if (r >= 0 && env->self_cgroup_v1 && !(self_v1 = strdup(env->self_cgroup_v1)))
                r = -ENOMEM;
        if (r >= 0 && ((v2.path && !self_v2) || (v1.path && !self_v1)))
                r = proc_cgroup_paths(proc_root, 0, self_v2 ? NULL : &self_v2, self_v1 ? NULL : &self_v1);
        if (r < 0)
                goto finish;

        /* A hybrid host may limit memory in either hierarchy; both apply. */
        for (unsigned i = 0; i < 2; i++) {
                const struct cgroup_mount *m = i == 0 ? &v2 : &v1;
                const char *self = i == 0 ? self_v2 : self_v1;
                uint64_t l, h;

                if (!m->path || !self)
                        continue;
                r = cgroup_walk(m, self, i == 0 ? &flavour_v2 : &flavour_v1, &l, &h);
                if (r < 0)
                        goto finish;
                if (r > 0) {
                        limited = true;
                        if (l < limit)
                                limit = l;
                        if (h < headroom)
                                headroom = h;
                }
        }
        r = 0;

        ret->meminfo_available_mb = available / MB;
        if (limited) {
                ret->cgroup_headroom_mb = (int64_t) (headroom / MB);
                /* A limit above the machine's memory is no bound at all. */
                ret->limit_mb = (limit < total ? limit : total) / MB;
                ret->available_mb = (headroom < available ? headroom : available) / MB;
        } else {
                ret->cgroup_headroom_mb = -1;
                ret->limit_mb = total / MB;
                ret->available_mb = available / MB;
        }

finish:
        cgroup_mount_done(&v2);
        cgroup_mount_done(&v1);
        return r;
}

enum memory_verdict memory_judge(uint64_t available_mb, unsigned min_free_mb) {
        uint64_t floor = min_free_mb;

        if (floor == 0)
                return MEMORY_OK;
        if (available_mb < floor)
                return MEMORY_BLOCKED;
        if (available_mb < floor + floor / 3)
                return MEMORY_LOW;
        return MEMORY_OK;
}

char *memory_blocker_message(const struct memory_info *m, unsigned min_free_mb) {
        return strdup_printf("Not enough free memory for a desktop: %llu MB available of %llu MB, "
                             "%u MB needed (min_free_memory_mb)",
                             (unsigned long long) m->available_mb, (unsigned long long) m->limit_mb,
                             min_free_mb);
}

int memory_warning(const struct memory_info *m, unsigned min_free_mb, bool running, char **ret) {
        enum memory_verdict v = memory_judge(m->available_mb, min_free_mb);
        char *msg;

        *ret = NULL;
        if (v == MEMORY_OK || (v == MEMORY_BLOCKED && !running))
                return 0;
        msg = strdup_printf("Memory is tight: %llu MB available, %u MB is the floor (min_free_memory_mb); "
                            "the desktop may be slow, and starts are refused below the floor",
                            (unsigned long long) m->available_mb, min_free_mb);
        if (!msg)
                return -ENOMEM;
        *ret = msg;
        return 0;
}
