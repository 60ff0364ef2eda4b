/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk-x11.so loads with every symbol resolved and exports its table
 * alone, and the CLI maps none of the X, PNG or JPEG libraries for a verb
 * that does not speak X (x11-verbs.h).
 */
#undef NDEBUG
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "botdesk-config.h"
#include "tap.h"
#include "x11-verbs.h"

/* botdesk __verbs, read once. */
static const char *verbs_text(const char *cli) {
        static char text[1 << 18];
        static bool read_once;
        char cmd[4096];
        size_t n = 0;
        FILE *f;

        if (read_once)
                return text;
        read_once = true;
        snprintf(cmd, sizeof cmd, "'%s' __verbs", cli);
        f = popen(cmd, "re");
        if (!f)
                return text;
        n = fread(text, 1, sizeof text - 1, f);
        text[n] = 0;
        pclose(f);
        return text;
}

/* The dynamic loader's list of what a command loads (LD_DEBUG=files), into buf. */
static int loaded_by(const char *exe, char *const argv[], char *buf, size_t size) {
        int p[2], status;
        size_t n = 0;
        pid_t pid;

        if (pipe2(p, O_CLOEXEC) < 0)
                return -1;
        pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

                if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(p[1], STDERR_FILENO) < 0)
                        _exit(127);
                setenv("LD_DEBUG", "files", 1);
                execv(exe, argv);
                _exit(127);
        }
        close(p[1]);
        for (;;) {
                ssize_t r = read(p[0], buf + n, size - 1 - n);
                if (r <= 0)
                        break;
                n += (size_t) r;
                if (n == size - 1)
                        break;
        }
        buf[n] = 0;
        close(p[0]);
        return waitpid(pid, &status, 0) == pid ? 0 : -1;
}

/* The module's rows are the table's rows of the module (botdesk __verbs: "module NAME FEATURE") whose
 * feature the build has, each with its function: both ways. */
static void rows_match_table(const struct x11_verbs *m, const char *cli) {
        bool input = strstr(BOTDESK_FEATURES, "+INPUT") != NULL;
        char cmd[4096], *line = NULL, *missing = NULL, *extra = NULL;
        size_t size = 0, n_table = 0, n_rows = 0;
        FILE *f;

        snprintf(cmd, sizeof cmd, "'%s' __verbs", cli);
        f = popen(cmd, "re");
        if (!tap_ok(f != NULL, "botdesk __verbs runs"))
                return;
        while (getline(&line, &size, f) > 0) {
                char name[64], feature[32];
                bool want, found = false;

                if (sscanf(line, "module\t%63[^\t]\t%31[^\n]", name, feature) != 2)
                        continue;
                n_table++;
                want = strcmp(feature, "thumbnail") == 0 || (input && strcmp(feature, "input") == 0);
                for (const struct x11_verb_row *r = m->rows; r && r->name; r++)
                        found = found || (strcmp(r->name, name) == 0 && r->run);
                if (want != found && !missing)
                        missing = strdup(name);
        }
        free(line);
        pclose(f);
        for (const struct x11_verb_row *r = m->rows; r && r->name; r++) {
                char want[80];

                n_rows++;
                snprintf(want, sizeof want, "module\t%s\t", r->name);
                if (!extra && !strstr(verbs_text(cli), want))
                        extra = strdup(r->name);
        }
        tap_ok(n_table >= 10, "the table names the module's verbs (%zu)", n_table);
        tap_ok(!missing, "every verb of the table's module rows is in the module, where the build has its "
               "feature, with its function%s%s", missing ? ": not " : "", missing ? missing : "");
        tap_ok(n_rows > 0 && !extra, "every row of the module is a verb of the table's module rows (%zu rows)%s%s",
               n_rows, extra ? ": not " : "", extra ? extra : "");
        free(missing);
        free(extra);
}

int main(void) {
        static const char *const internal[] = { "verb_thumbnail", "verb_input", "thumb_scale", "log_setup",
                                                "cli_connect_desktop", "strdup_printf" };
        static const char *const x_libraries[] = { "libxcb.so", "libpng16.so", "libjpeg.so", "libxkbcommon.so",
                                                   X11_VERBS_MODULE };
        const char *module = getenv("BOTDESK_X11_MODULE"), *cli = getenv("BOTDESK_CLI");
        const struct x11_verbs *m;
        static char out[1 << 20];
        void *h;

        if (!module || module[0] != '/' || access(module, R_OK) < 0 || !cli || access(cli, X_OK) < 0)
                return tap_skip_all("BOTDESK_X11_MODULE and BOTDESK_CLI do not name the built module and CLI");

        h = dlopen(module, RTLD_NOW | RTLD_LOCAL);
        if (!tap_ok(h != NULL, "dlopen(RTLD_NOW) of %s resolves every symbol", module)) {
                printf("#   %s\n", dlerror());
                return tap_done();
        }
        m = dlsym(h, X11_VERBS_SYMBOL);
        if (tap_ok(m != NULL, "%s is exported", X11_VERBS_SYMBOL)) {
                TAP_EQ_INT(m->abi, X11_VERBS_ABI, "the table's ABI is the CLI's");
                TAP_EQ_STR(m->version, BOTDESK_VERSION, "the table's version is the CLI's");
                rows_match_table(m, cli);
        }
        for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++)
                tap_ok(dlsym(h, internal[i]) == NULL, "%s is not exported", internal[i]);

        {
                char *const argv[] = { (char *) cli, (char *) "status", (char *) "--json", (char *) "x11-verbs-test", NULL };

                if (tap_ok(loaded_by(cli, argv, out, sizeof out) == 0 && strstr(out, "libc.so"),
                           "the loader's list of what `botdesk status` loads was read"))
                        for (size_t i = 0; i < sizeof x_libraries / sizeof x_libraries[0]; i++)
                                tap_ok(!strstr(out, x_libraries[i]), "botdesk status does not load %s", x_libraries[i]);
        }
        {
                /* Words main.c's parser takes and the verb refuses before it
                 * looks for a desktop (--help is answered before the module). */
                char *const argv[] = { (char *) cli, (char *) "thumbnail", (char *) "x11-verbs-test",
                                       (char *) "--quality", (char *) "5", NULL };

                tap_ok(loaded_by(cli, argv, out, sizeof out) == 0 && strstr(out, X11_VERBS_MODULE),
                       "botdesk thumbnail loads %s, found next to the CLI in the build tree", X11_VERBS_MODULE);
        }
        return tap_done();
}
