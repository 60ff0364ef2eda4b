/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include "memory.h"
#include "util.h"

#define MiB (UINT64_C(1024) * UINT64_C(1024))

static char base[] = "/tmp/test-memory.XXXXXX";

/* Write base/rel with content, creating the directories on the way. */
static void put(const char *rel, const char *content) {
        char path[PATH_MAX];
        FILE *f;

        snprintf(path, sizeof path, "%s/%s", base, rel);
        for (char *s = path + strlen(base) + 1; (s = strchr(s, '/')); s++) {
                *s = 0;
                (void) mkdir(path, 0755);
                *s = '/';
        }
        f = fopen(path, "we");
        if (!f || fputs(content, f) < 0 || fclose(f) != 0) {
                printf("Bail out! cannot write fixture %s\n", path);
                exit(1);
        }
}

static void put_bytes(const char *rel, uint64_t v) {
        char buf[32];

        snprintf(buf, sizeof buf, "%" PRIu64 "\n", v);
        put(rel, buf);
}

/* A v2 level: memory.max (0 = "max"), memory.current and memory.stat. */
static void put_v2(const char *dir, uint64_t max, uint64_t current, uint64_t inactive) {
        char rel[PATH_MAX], stat[256];

        snprintf(rel, sizeof rel, "%s/memory.max", dir);
        if (max)
                put_bytes(rel, max);
        else
                put(rel, "max\n");
        snprintf(rel, sizeof rel, "%s/memory.current", dir);
        put_bytes(rel, current);
        snprintf(stat, sizeof stat, "anon 4096\nfile 8192\nactive_file 1\ninactive_file %" PRIu64 "\nslab 7\n",
                 inactive);
        snprintf(rel, sizeof rel, "%s/memory.stat", dir);
        put(rel, stat);
}

/* A v1 level. inactive_file is set to a decoy: only total_inactive_file
 * covers the children that usage_in_bytes covers. */
static void put_v1(const char *dir, uint64_t limit, uint64_t usage, uint64_t total_inactive) {
        char rel[PATH_MAX], stat[256];

        snprintf(rel, sizeof rel, "%s/memory.limit_in_bytes", dir);
        put_bytes(rel, limit);
        snprintf(rel, sizeof rel, "%s/memory.usage_in_bytes", dir);
        put_bytes(rel, usage);
        snprintf(stat, sizeof stat,
                 "cache 1\ninactive_file 1\nhierarchical_memory_limit %" PRIu64 "\ntotal_inactive_file %" PRIu64 "\n",
                 limit, total_inactive);
        snprintf(rel, sizeof rel, "%s/memory.stat", dir);
        put(rel, stat);
}

static char *at(const char *rel) {
        return strdup_printf("%s/%s", base, rel);
}

/* 8192 MB of RAM, 4096 MB available. */
static void put_meminfo(const char *proc) {
        char rel[PATH_MAX];

        snprintf(rel, sizeof rel, "%s/meminfo", proc);
        put(rel, "MemTotal:        8388608 kB\n"
                 "MemFree:         1000000 kB\n"
                 "MemAvailable:    4194304 kB\n"
                 "Buffers:           12345 kB\n");
}

static const uint64_t V1_NO_LIMIT = UINT64_C(9223372036854771712);

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st, (void) flag, (void) ftw;
        return remove(p);
}

static void test_no_cgroup(void) {
        _cleanup_free_ char *proc = at("proc-none");
        struct memory_env env = { .proc_root = proc };
        struct memory_info m;

        put_meminfo("proc-none");
        put("proc-none/self/mountinfo", "22 1 0:20 / /proc rw,relatime - proc proc rw\n");
        put("proc-none/self/cgroup", "0::/\n");

        TAP_EQ_INT(memory_read(&env, &m), 0, "without any cgroup mount memory_read succeeds");
        TAP_EQ_INT(m.available_mb, 4096, "without a cgroup the available memory is MemAvailable");
        TAP_EQ_INT(m.limit_mb, 8192, "without a cgroup the limit is MemTotal");
        TAP_EQ_INT(m.cgroup_headroom_mb, -1, "without a cgroup the headroom reads -1");
        TAP_EQ_INT(m.meminfo_available_mb, 4096, "MemAvailable is reported in MB");
}

static void test_v2_max(void) {
        _cleanup_free_ char *proc = at("proc"), *v2 = at("v2-max");
        struct memory_env env = { .proc_root = proc, .cgroup_v2 = v2, .self_cgroup_v2 = "/user/app" };
        struct memory_info m;

        put_v2("v2-max/user/app", 0, 100 * MiB, 0);
        put("v2-max/user/cgroup.procs", "");

        TAP_EQ_INT(memory_read(&env, &m), 0, "a v2 cgroup whose memory.max is \"max\" is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, -1, "memory.max \"max\" is no limit, and a level without memory files is skipped");
        TAP_EQ_INT(m.available_mb, 4096, "with no cgroup limit MemAvailable decides");
        TAP_EQ_INT(m.limit_mb, 8192, "with no cgroup limit the limit is MemTotal");
}

static void test_v2_limit(void) {
        _cleanup_free_ char *proc = at("proc"), *v2 = at("v2-limit");
        struct memory_env env = { .proc_root = proc, .cgroup_v2 = v2, .self_cgroup_v2 = "/svc" };
        struct memory_info m;

        /* 1124 MB charged of which 100 MB inactive file cache: 1024 MB used. */
        put_v2("v2-limit/svc", 2048 * MiB, 1124 * MiB, 100 * MiB);

        TAP_EQ_INT(memory_read(&env, &m), 0, "a v2 cgroup with a numeric memory.max is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, 1024, "v2 headroom is memory.max - (memory.current - inactive_file)");
        TAP_EQ_INT(m.available_mb, 1024, "a cgroup headroom below MemAvailable is what is available");
        TAP_EQ_INT(m.limit_mb, 2048, "the limit reported is memory.max, not MemTotal");
        TAP_EQ_INT(m.meminfo_available_mb, 4096, "MemAvailable is still reported beside the headroom");
}

static void test_v2_nested(void) {
        _cleanup_free_ char *proc = at("proc"), *v2 = at("v2-nested");
        struct memory_env env = { .proc_root = proc, .cgroup_v2 = v2, .self_cgroup_v2 = "/outer/inner" };
        struct memory_info m;

        put_v2("v2-nested/outer", 1536 * MiB, 1280 * MiB, 256 * MiB);
        put_v2("v2-nested/outer/inner", 3072 * MiB, 1024 * MiB, 0);

        TAP_EQ_INT(memory_read(&env, &m), 0, "a nested v2 cgroup is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, 512, "a parent tighter than the process's own cgroup decides the headroom");
        TAP_EQ_INT(m.available_mb, 512, "the tightest ancestor bounds the available memory");
        TAP_EQ_INT(m.limit_mb, 1536, "the tightest ancestor's limit is the one reported");
}

static void test_v2_clamps(void) {
        _cleanup_free_ char *proc = at("proc"), *v2 = at("v2-clamp");
        struct memory_env env = { .proc_root = proc, .cgroup_v2 = v2, .self_cgroup_v2 = "/full" };
        struct memory_info m;

        put_v2("v2-clamp/full", 512 * MiB, 600 * MiB, 10 * MiB);
        put_v2("v2-clamp/cache", 512 * MiB, 100 * MiB, 300 * MiB);

        TAP_EQ_INT(memory_read(&env, &m), 0, "a v2 cgroup over its limit is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, 0, "usage above the limit clamps the headroom at 0, never negative");
        TAP_EQ_INT(m.available_mb, 0, "a full cgroup leaves nothing available");

        env.self_cgroup_v2 = "/cache";
        TAP_EQ_INT(memory_read(&env, &m), 0, "a v2 cgroup whose inactive_file exceeds memory.current is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, 512, "inactive_file above memory.current clamps the usage at 0");
}

static void test_v1(void) {
        _cleanup_free_ char *proc = at("proc"), *v1 = at("v1");
        struct memory_env env = { .proc_root = proc, .cgroup_v1 = v1, .self_cgroup_v1 = "/free/job" };
        struct memory_info m;

        put_v1("v1", V1_NO_LIMIT, 6000 * MiB, 0);
        put_v1("v1/free", V1_NO_LIMIT, 50 * MiB, 0);
        put_v1("v1/free/job", V1_NO_LIMIT, 40 * MiB, 0);
        put_v1("v1/tight", V1_NO_LIMIT, 800 * MiB, 0);
        put_v1("v1/tight/job", 1024 * MiB, 768 * MiB, 256 * MiB);

        TAP_EQ_INT(memory_read(&env, &m), 0, "a v1 memory cgroup is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, -1, "v1's 9223372036854771712 means unlimited at every level");
        TAP_EQ_INT(m.available_mb, 4096, "an unlimited v1 cgroup leaves MemAvailable in charge");

        env.self_cgroup_v1 = "/tight/job";
        TAP_EQ_INT(memory_read(&env, &m), 0, "a limited v1 memory cgroup is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, 512,
                   "v1 headroom is limit_in_bytes - (usage_in_bytes - total_inactive_file)");
        TAP_EQ_INT(m.limit_mb, 1024, "the v1 limit is reported");
        TAP_EQ_INT(m.available_mb, 512, "the v1 headroom bounds the available memory");
}

static void test_both(void) {
        _cleanup_free_ char *proc = at("proc"), *v1 = at("both-v1"), *v2 = at("both-v2");
        struct memory_env env = {
                .proc_root = proc,
                .cgroup_v2 = v2, .self_cgroup_v2 = "/a",
                .cgroup_v1 = v1, .self_cgroup_v1 = "/b",
        };
        struct memory_info m;

        put_v2("both-v2/a", 3000 * MiB, 1000 * MiB, 0);
        put_v1("both-v1/b", 2500 * MiB, 1000 * MiB, 0);

        TAP_EQ_INT(memory_read(&env, &m), 0, "limits in both hierarchies are read");
        TAP_EQ_INT(m.cgroup_headroom_mb, 1500, "the smaller headroom of v1 and v2 wins");
        TAP_EQ_INT(m.limit_mb, 2500, "the smaller limit of v1 and v2 is reported");
}

static void test_limit_above_ram(void) {
        _cleanup_free_ char *proc = at("proc"), *v2 = at("v2-huge");
        struct memory_env env = { .proc_root = proc, .cgroup_v2 = v2, .self_cgroup_v2 = "/big" };
        struct memory_info m;

        put_v2("v2-huge/big", 65536 * MiB, 100 * MiB, 0);

        TAP_EQ_INT(memory_read(&env, &m), 0, "a limit larger than the machine is read");
        TAP_EQ_INT(m.available_mb, 4096, "a generous cgroup limit never raises available above MemAvailable");
        TAP_EQ_INT(m.limit_mb, 8192, "a cgroup limit above MemTotal reports MemTotal as the limit");
}

static void test_hybrid_mountinfo(void) {
        _cleanup_free_ char *proc = at("proc-hybrid"), *mi = NULL;
        struct memory_env env = { .proc_root = proc };
        struct memory_info m;

        put_meminfo("proc-hybrid");
        mi = strdup_printf(
                "22 1 0:20 / /proc rw,relatime - proc proc rw\n"
                "31 23 0:28 / %1$s/sys rw,relatime - tmpfs tmpfs rw,mode=755\n"
                "32 31 0:29 / %1$s/sys/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
                "34 31 0:31 / %1$s/sys/memoryish rw,relatime - cgroup cgroup rw,memoryish,name=memory\n"
                "33 31 0:30 / %1$s/sys/memory rw,relatime shared:10 - cgroup cgroup rw,memory\n"
                "41 31 0:38 / %1$s/sys/unified rw,relatime shared:11 - cgroup2 cgroup2 rw\n",
                base);
        put("proc-hybrid/self/mountinfo", mi);
        put("proc-hybrid/self/cgroup", "9:name=systemd:/\n4:memory:/svc/job\n1:cpu,cpuacct:/other\n0::/\n");
        put("sys/unified/cgroup.controllers", "cpu io pids\n");
        put("sys/cpu/other/cgroup.procs", "");
        put_v1("sys/memory", V1_NO_LIMIT, 6000 * MiB, 0);
        put_v1("sys/memory/svc", V1_NO_LIMIT, 900 * MiB, 0);
        put_v1("sys/memory/svc/job", 1000 * MiB, 900 * MiB, 100 * MiB);

        TAP_EQ_INT(memory_read(&env, &m), 0, "on a hybrid host the mounts are found from mountinfo");
        TAP_EQ_INT(m.cgroup_headroom_mb, 200,
                   "on a hybrid host the v1 memory controller named in /proc/self/cgroup gives the headroom");
        TAP_EQ_INT(m.limit_mb, 1000, "on a hybrid host the v1 limit is reported");
}

static void test_mount_root(void) {
        _cleanup_free_ char *proc = at("proc-ns"), *mi = NULL;
        struct memory_env env = { .proc_root = proc };
        struct memory_info m;

        /* A container that sees the host's cgroup /docker/abc at its mount
         * point, which has a space in it (mountinfo writes it as \040). */
        put_meminfo("proc-ns");
        mi = strdup_printf("41 31 0:38 /docker/abc %s/cg\\040two rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n",
                           base);
        put("proc-ns/self/mountinfo", mi);
        put("proc-ns/self/cgroup", "0::/docker/abc/app\n");
        put_v2("cg two", 3000 * MiB, 1000 * MiB, 0);
        put_v2("cg two/app", 1500 * MiB, 10 * MiB, 0);

        TAP_EQ_INT(memory_read(&env, &m), 0, "a v2 mount whose root is a sub-cgroup is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, 1490,
                   "the mount's root is stripped from the process's cgroup path and escaped mount points decoded");

        put("proc-ns/self/cgroup", "0::/../../elsewhere\n");
        TAP_EQ_INT(memory_read(&env, &m), 0, "a cgroup path outside the namespace is read");
        TAP_EQ_INT(m.cgroup_headroom_mb, 2000, "a cgroup path outside the mount falls back to the mount's own cgroup");
}

static void test_cgroup_root_probe(void) {
        _cleanup_free_ char *proc = at("proc"), *pure = at("probe-pure"), *hybrid = at("probe-hybrid");
        struct memory_env env = {
                .proc_root = proc, .cgroup_root = pure,
                .self_cgroup_v2 = "/s", .self_cgroup_v1 = "/s",
        };
        struct memory_info m;

        put("probe-pure/cgroup.controllers", "cpu memory pids\n");
        put_v2("probe-pure/s", 1000 * MiB, 100 * MiB, 0);
        TAP_EQ_INT(memory_read(&env, &m), 0, "a pure v2 cgroup_root is probed");
        TAP_EQ_INT(m.cgroup_headroom_mb, 900, "a pure v2 cgroup_root holds the v2 hierarchy at its top");

        env.cgroup_root = hybrid;
        put("probe-hybrid/unified/cgroup.controllers", "cpu pids\n");
        put_v1("probe-hybrid/memory", V1_NO_LIMIT, 6000 * MiB, 0);
        put_v1("probe-hybrid/memory/s", 800 * MiB, 100 * MiB, 0);
        TAP_EQ_INT(memory_read(&env, &m), 0, "a hybrid cgroup_root is probed");
        TAP_EQ_INT(m.cgroup_headroom_mb, 700, "a hybrid cgroup_root holds the v1 memory controller in memory/");
}

static void test_errors(void) {
        _cleanup_free_ char *proc = at("proc"), *v2 = at("v2-bad"), *noproc = at("proc-missing"),
                *badproc = at("proc-badmeminfo");
        struct memory_env env = { .proc_root = proc, .cgroup_v2 = v2, .self_cgroup_v2 = "/x" };
        struct memory_env env2 = { .proc_root = noproc, .cgroup_v2 = v2, .self_cgroup_v2 = "/" };
        struct memory_info m;

        put("v2-bad/x/memory.max", "12x\n");
        put("v2-bad/x/memory.current", "1\n");
        TAP_EQ_INT(memory_read(&env, &m), -EBADMSG, "a memory.max that is not a number or \"max\" is an error, not a guess");

        put("v2-bad/x/memory.max", "1000\n");
        put("v2-bad/x/memory.current", "max\n");
        TAP_EQ_INT(memory_read(&env, &m), -EBADMSG, "a memory.current of \"max\" is an error");

        TAP_EQ_INT(memory_read(&env2, &m), -ENOENT, "a missing meminfo is an error");

        put("proc-badmeminfo/meminfo", "MemTotal: 8388608 kB\nMemAvailable: lots kB\n");
        env2.proc_root = badproc;
        TAP_EQ_INT(memory_read(&env2, &m), -EBADMSG, "a garbled MemAvailable is an error");
}

static void test_host(void) {
        struct memory_info m;
        int r;

        r = memory_read(NULL, &m);
        TAP_EQ_INT(r, 0, "on this host memory_read with the defaults succeeds");
        if (r == 0)
                tap_ok(m.available_mb <= m.meminfo_available_mb && m.available_mb <= m.limit_mb,
                       "on this host the available memory never exceeds MemAvailable or the limit "
                       "(available %" PRIu64 ", MemAvailable %" PRIu64 ", limit %" PRIu64 ")",
                       m.available_mb, m.meminfo_available_mb, m.limit_mb);
}

static void test_judge(void) {
        TAP_EQ_INT(memory_judge(1499, 1500), MEMORY_BLOCKED, "one MB below the floor is blocked");
        TAP_EQ_INT(memory_judge(1500, 1500), MEMORY_LOW, "exactly the floor is low, not blocked");
        TAP_EQ_INT(memory_judge(1999, 1500), MEMORY_LOW, "one MB below floor + floor/3 is low");
        TAP_EQ_INT(memory_judge(2000, 1500), MEMORY_OK, "exactly floor + floor/3 is ok");
        TAP_EQ_INT(memory_judge(0, 0), MEMORY_OK, "a floor of 0 disables the gate even with nothing free");
        TAP_EQ_INT(memory_judge(0, 1), MEMORY_BLOCKED, "a floor of 1 blocks 0 MB");
        TAP_EQ_INT(memory_judge(1, 1), MEMORY_OK, "a floor of 1 has no low band (1/3 rounds to 0)");
        TAP_EQ_INT(memory_judge(UINT64_MAX, UINT_MAX), MEMORY_OK, "the largest floor does not overflow");
        TAP_EQ_INT(memory_judge((uint64_t) UINT_MAX + UINT_MAX / 3 - 1, UINT_MAX), MEMORY_LOW,
                   "floor + floor/3 is computed without 32-bit overflow");
}

static void test_message(void) {
        struct memory_info m = { .available_mb = 812, .limit_mb = 2048, .meminfo_available_mb = 4096,
                                 .cgroup_headroom_mb = 812 };
        _cleanup_free_ char *s = memory_blocker_message(&m, 1500);

        TAP_EQ_STR(s, "Not enough free memory for a desktop: 812 MB available of 2048 MB, 1500 MB needed "
                      "(min_free_memory_mb)",
                   "the blocker message names available, limit, floor and the setting");
}

/* The warning start and status pass on: only in the band below floor + floor/3. */
static void test_warning(void) {
        struct memory_info m = { .limit_mb = 8192 };
        char *w = (char *) 1;

        m.available_mb = 2000;
        TAP_EQ_INT(memory_warning(&m, 1500, false, &w), 0, "the warning is computed");
        tap_ok(!w, "no warning at floor + floor/3");
        m.available_mb = 1999;
        memory_warning(&m, 1500, false, &w);
        TAP_EQ_STR(w, "Memory is tight: 1999 MB available, 1500 MB is the floor (min_free_memory_mb); "
                      "the desktop may be slow, and starts are refused below the floor",
                   "one MB below floor + floor/3 warns, naming available, floor and the setting");
        free(w);
        m.available_mb = 1500;
        memory_warning(&m, 1500, false, &w);
        tap_ok(w != NULL, "exactly the floor still starts, with the warning");
        free(w);
        m.available_mb = 1499;
        memory_warning(&m, 1500, false, &w);
        tap_ok(!w, "below the floor a stopped desktop gets the blocker, not the warning");
        memory_warning(&m, 1500, true, &w);
        tap_ok(w != NULL, "below the floor a running desktop (never blocked) gets the warning");
        free(w);
        m.available_mb = 0;
        memory_warning(&m, 0, true, &w);
        tap_ok(!w, "a floor of 0 never warns");
}

int main(void) {
        if (!mkdtemp(base)) {
                printf("Bail out! mkdtemp failed\n");
                return 1;
        }
        put_meminfo("proc");

        test_no_cgroup();
        test_v2_max();
        test_v2_limit();
        test_v2_nested();
        test_v2_clamps();
        test_v1();
        test_both();
        test_limit_above_ram();
        test_hybrid_mountinfo();
        test_mount_root();
        test_cgroup_root_probe();
        test_errors();
        test_host();
        test_judge();
        test_message();
        test_warning();

        (void) nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        return tap_done();
}
