/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the cgroup hierarchies are mounted, and where a process sits in them. */
#include "mountinfo.h"
#include "util.h"

void cgroup_mount_done(struct cgroup_mount *m) {
        free(m->path);
        free(m->root);
        m->path = m->root = NULL;
}

static bool path_has_dotdot(const char *p) {
        for (const char *s = p; (s = strstr(s, "..")); s += 2)
                if ((s == p || s[-1] == '/') && (s[2] == 0 || s[2] == '/'))
                        return true;
        return false;
}

/*
 * The process's cgroup path relative to the mount: a container may see a
 * mount whose root is "/docker/ID" while /proc/self/cgroup names the full
 * path. A path outside the mount (cgroup namespaces print "/.." for those)
 * cannot be walked; fall back to the mount's own cgroup.
 */
char *cgroup_relative(const char *self, const char *mount_root) {
        const char *rel = self;

        if (!streq(mount_root, "/")) {
                size_t l = strlen(mount_root);

                while (l > 1 && mount_root[l - 1] == '/')
                        l--;
                if (strncmp(self, mount_root, l) == 0 && (self[l] == '/' || self[l] == 0))
                        rel = self + l;
                else
                        rel = "/";
        }
        if (rel[0] != '/' || path_has_dotdot(rel))
                rel = "/";
        return strdup(*rel ? rel : "/");
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unoctal(char *s) {
        char *w = s;

        for (const char *r = s; *r; ) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
                    r[3] >= '0' && r[3] <= '7') {
                        *w++ = (char) ((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
                        r += 4;
                } else
                        *w++ = *r++;
        }
        *w = 0;
}

/* Is word one of the comma-separated items of list? */
static bool option_listed(const char *list, const char *word) {
        size_t l = strlen(word);

        for (const char *p = list;;) {
                const char *comma = strchr(p, ',');

                if (strncmp(p, word, l) == 0 && (p[l] == ',' || p[l] == 0))
                        return true;
                if (!comma)
                        return false;
                p = comma + 1;
        }
}

int cgroup_mount_set(struct cgroup_mount *m, const char *path, const char *root) {
        char *p = strdup(path), *r = strdup(root);

        if (!p || !r) {
                free(p);
                free(r);
                return -ENOMEM;
        }
        cgroup_mount_done(m);
        m->path = p;
        m->root = r;
        return 0;
}

/* The first cgroup2 mount and the first v1 mount carrying the memory
 * controller. A missing mountinfo means no cgroup is visible. */
int mountinfo_cgroup_mounts(const char *proc_root, struct cgroup_mount *v2, struct cgroup_mount *v1) {
        _cleanup_free_ char *path = NULL, *buf = NULL;
        char *line, *next;
        int r;

        path = strdup_printf("%s/self/mountinfo", proc_root ?: "/proc");
        if (!path)
                return -ENOMEM;
        /* Hosts with thousands of mounts have large mountinfo files. */
        r = read_full_file(path, &buf, NULL, 16 * 1024 * 1024);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;

        for (line = buf; line && *line; line = next) {
                char *f[5], *sep, *fstype, *super, *save = NULL;
                unsigned i;

                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;

                /* The optional fields vary in number; " - " ends them. */
                sep = strstr(line, " - ");
                if (!sep)
                        continue;
                *sep = 0;
                fstype = strtok_r(sep + 3, " ", &save);
                (void) strtok_r(NULL, " ", &save); /* source */
                super = strtok_r(NULL, " ", &save);
                if (!fstype || !super)
                        continue;

                save = NULL;
                for (i = 0; i < ELEMENTSOF(f); i++) {
                        f[i] = strtok_r(i == 0 ? line : NULL, " ", &save);
                        if (!f[i])
                                break;
                }
                if (i < ELEMENTSOF(f))
                        continue;
                /* f[3] is the root within the filesystem, f[4] the mount point. */
                unoctal(f[3]);
                unoctal(f[4]);

                if (streq(fstype, "cgroup2") && !v2->path)
                        r = cgroup_mount_set(v2, f[4], f[3]);
                else if (streq(fstype, "cgroup") && !v1->path && option_listed(super, "memory"))
                        r = cgroup_mount_set(v1, f[4], f[3]);
                else
                        r = 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

/* /proc/self/cgroup: "0::/path" for v2, "N:a,memory,b:/path" for v1. A NULL
 * ret_* is not looked for. */
int proc_cgroup_paths(const char *proc_root, pid_t pid, char **ret_v2, char **ret_v1) {
        _cleanup_free_ char *path = NULL, *buf = NULL;
        char *line, *next;
        int r;

        path = pid == 0 ? strdup_printf("%s/self/cgroup", proc_root ?: "/proc")
                        : strdup_printf("%s/%d/cgroup", proc_root ?: "/proc", (int) pid);
        if (!path)
                return -ENOMEM;
        r = read_full_file(path, &buf, NULL, 64 * 1024);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;

        for (line = buf; line && *line; line = next) {
                char *c1, *c2, **target = NULL;

                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                c1 = strchr(line, ':');
                if (!c1)
                        continue;
                c2 = strchr(c1 + 1, ':');
                if (!c2)
                        continue;
                *c1 = *c2 = 0;

                if (streq(line, "0") && c1 + 1 == c2)
                        target = ret_v2;
                else if (!streq(line, "0") && option_listed(c1 + 1, "memory"))
                        target = ret_v1;
                if (target && !*target) {
                        *target = strdup(c2 + 1);
                        if (!*target)
                                return -ENOMEM;
                }
        }
        return 0;
}
