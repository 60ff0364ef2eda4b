/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "find-executable.h"
#include "packages.h"
#include "util.h"

static char base[] = "/tmp/test-packages.XXXXXX";

static char *at(const char *rel) {
        return strdup_printf("%s/%s", base, rel);
}

static void put(const char *rel, mode_t mode) {
        _cleanup_free_ char *p = at(rel);
        int fd;

        fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (fd < 0 || write(fd, "#!/bin/sh\n", 10) != 10 || fchmod(fd, mode) < 0) {
                printf("Bail out! cannot create %s\n", p);
                exit(1);
        }
        close(fd);
}

static void mkdir_at(const char *rel) {
        _cleanup_free_ char *p = at(rel);

        if (mkdir(p, 0755) < 0) {
                printf("Bail out! cannot create %s\n", p);
                exit(1);
        }
}

static char *joined(char *const *l, const char *sep) {
        size_t n = 1;
        char *s, *w;

        if (!l)
                return NULL;
        for (char *const *i = l; *i; i++)
                n += strlen(*i) + strlen(sep);
        s = w = malloc(n);
        if (!s)
                abort();
        *w = 0;
        for (char *const *i = l; *i; i++)
                w = stpcpy(stpcpy(w, i == l ? "" : sep), *i);
        return s;
}

static void test_map_complete(void) {
        bool complete = true, names = true;

        for (unsigned i = 0; i < n_required_binaries; i++) {
                const struct required_binary *b = &required_binaries[i];

                if (!b->names[0] || !*b->names[0]) {
                        names = false;
                        printf("#   entry %u has no binary name\n", i);
                }
                for (enum pkg_manager m = PKG_APT; m < _PKG_MAX; m++)
                        if (!b->package[m] || !*b->package[m] || strchr(b->package[m], ' ')) {
                                complete = false;
                                printf("#   %s has no package for %s\n", strnull(b->names[0]), pkg_manager_name(m));
                        }
        }
        tap_ok(names, "every entry of the map names a binary");
        tap_ok(complete, "every required binary has one package for apt, dnf and pacman");
        {
                unsigned required = 0, everyday = 0;

                for (unsigned i = 0; i < n_required_binaries; i++)
                        required_binaries[i].everyday ? everyday++ : required++;
                TAP_EQ_INT(required, 7, "seven binaries are required to start");
                TAP_EQ_INT(everyday, 6, "six more are everyday programs install puts in");
        }
}

static void test_map_unique(void) {
        bool unique = true;

        for (unsigned i = 0; i < n_required_binaries; i++)
                for (size_t a = 0; a < ELEMENTSOF(required_binaries[i].names) && required_binaries[i].names[a]; a++)
                        for (unsigned j = 0; j < n_required_binaries; j++)
                                for (size_t c = 0; c < ELEMENTSOF(required_binaries[j].names) &&
                                                   required_binaries[j].names[c]; c++) {
                                        if (i == j && a == c)
                                                continue;
                                        if (streq(required_binaries[i].names[a], required_binaries[j].names[c])) {
                                                unique = false;
                                                printf("#   %s listed twice\n", required_binaries[i].names[a]);
                                        }
                                }
        tap_ok(unique, "no binary name appears twice in the map");
}

static void test_map_order(void) {
        static const char *const want[] = {
                "Xtigervnc", "xfwm4", "xfce4-panel", "xfdesktop", "xfsettingsd", "dbus-daemon", "setxkbmap",
                "xfce4-terminal", "thunar", "mousepad", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "xdpyinfo", "xset",
        };
        bool same = n_required_binaries == ELEMENTSOF(want);

        for (unsigned i = 0; same && i < n_required_binaries; i++)
                same = streq(required_binaries[i].names[0], want[i]);
        tap_ok(same, "the required binaries, then the everyday ones, are checked in the documented order");
        TAP_EQ_STR(required_binaries[0].names[1], "Xvnc", "Xvnc is the alternative to Xtigervnc");
}

/* The package dpkg says owns path, or NULL when it owns none. */
static char *dpkg_owner(const char *path) {
        _cleanup_free_ char *cmd = strdup_printf("dpkg -S '%s' 2>/dev/null", path);
        char line[512], *colon;
        FILE *p;

        if (!cmd || !(p = popen(cmd, "re")))
                return NULL;
        if (!fgets(line, sizeof line, p))
                line[0] = 0;
        if (pclose(p) != 0)
                return NULL;
        /* "pkg: /usr/bin/x", or "pkg:amd64: /usr/bin/x" for multi-arch packages. */
        colon = strstr(line, ": ");
        if (!colon)
                return NULL;
        *colon = 0;
        if ((colon = strchr(line, ':')))
                *colon = 0;
        return strdup(line);
}

static void test_map_matches_dpkg(void) {
        _cleanup_free_ char *dpkg = NULL;

        for (unsigned i = 0; i < n_required_binaries; i++) {
                const struct required_binary *b = &required_binaries[i];
                _cleanup_free_ char *owner = NULL;
                const char *found = NULL;

                if (!dpkg && find_executable("dpkg", NULL, &dpkg) < 0) {
                        tap_skip("the apt package of %s is the one dpkg reports # SKIP dpkg is not installed",
                               b->names[0]);
                        continue;
                }
                /* Alternatives (/usr/bin/Xvnc on Debian) belong to no package: try each name. */
                for (size_t j = 0; j < ELEMENTSOF(b->names) && b->names[j] && !owner; j++) {
                        _cleanup_free_ char *path = b->names[j][0] == '/' ? strdup(b->names[j])
                                                                          : strdup_printf("/usr/bin/%s", b->names[j]);

                        owner = path ? dpkg_owner(path) : NULL;
                        found = b->names[j];
                }
                if (!owner) {
                        tap_skip("the apt package of %s is the one dpkg reports # SKIP not installed here",
                               b->names[0]);
                        continue;
                }
                TAP_EQ_STR(b->package[PKG_APT], owner, "the apt package of %s is the one dpkg reports for %s%s",
                           b->names[0], found[0] == '/' ? "" : "/usr/bin/", found);
        }
}

static void test_packages_for(void) {
        char *missing[] = { "setxkbmap", "Xvnc", "xfwm4", "Xtigervnc", NULL };
        char *unknown[] = { "xfwm4", "xterm", NULL };
        char *none[] = { NULL };
        _cleanup_strv_free_ char **apt = NULL, **dnf = NULL, **pacman = NULL, **empty = NULL;
        _cleanup_free_ char *a = NULL, *d = NULL, *p = NULL;
        char **junk = NULL;

        TAP_EQ_INT(packages_for(PKG_APT, missing, &apt), 0, "packages_for maps missing binaries for apt");
        TAP_EQ_STR(a = joined(apt, " "), "tigervnc-standalone-server xfwm4 x11-xkb-utils",
                   "apt packages come de-duplicated and in table order, whichever alternative is named");
        TAP_EQ_INT(packages_for(PKG_DNF, missing, &dnf), 0, "packages_for maps missing binaries for dnf");
        TAP_EQ_STR(d = joined(dnf, " "), "tigervnc-x11-server xfwm4 setxkbmap", "dnf packages use Fedora's names");
        TAP_EQ_INT(packages_for(PKG_PACMAN, missing, &pacman), 0, "packages_for maps missing binaries for pacman");
        TAP_EQ_STR(p = joined(pacman, " "), "tigervnc xfwm4 xorg-setxkbmap", "pacman packages use Arch's names");
        TAP_EQ_INT(packages_for(PKG_APT, none, &empty), 0, "nothing missing maps to no packages");
        TAP_EQ_INT(strv_length(empty), 0, "nothing missing gives an empty list");
        TAP_EQ_INT(packages_for(PKG_APT, unknown, &junk), -EINVAL,
                   "a binary outside the map is refused rather than dropped from the command");
        TAP_EQ_INT(packages_for(PKG_NONE, missing, &junk), -EINVAL, "there are no packages without a package manager");
        tap_ok(!junk, "refused look-ups hand nothing out");
}

static void check_message(enum pkg_manager m, bool root, bool sudo, char **missing, const char *want,
                          const char *want_command, const char *name) {
        _cleanup_free_ char *msg = NULL;
        char *command = (char *) "unset";

        msg = packages_install_message(m, root, sudo, missing, &command);
        TAP_EQ_STR(msg, want, "%s", name);
        TAP_EQ_STR(command, want_command, "%s (command)", name);
        if (command && !streq(command, "unset"))
                free(command);
}

static void test_messages(void) {
        char *missing[] = { "Xtigervnc", "xfdesktop", NULL };
        char *dup[] = { "Xvnc", "Xtigervnc", NULL };
        char *unknown[] = { "xterm", NULL };

        check_message(PKG_NONE, false, true, missing,
                      "No supported package manager found (apt-get, dnf, pacman): install TigerVNC's Xvnc and the "
                      "Xfce components (xfwm4, xfce4-panel, xfdesktop, xfsettingsd) with your distribution's tooling.",
                      NULL, "without a package manager the message says to use the distribution's tooling");
        check_message(PKG_APT, false, false, missing,
                      "Missing Xtigervnc, xfdesktop: packages tigervnc-standalone-server xfdesktop4 must be installed "
                      "in the image (no root and no sudo here)",
                      NULL, "without root or sudo the message says the packages belong in the image");
        check_message(PKG_APT, false, true, missing,
                      "Missing Xtigervnc, xfdesktop: install them with: "
                      "sudo apt-get install --no-install-recommends -y tigervnc-standalone-server xfdesktop4",
                      "sudo apt-get install --no-install-recommends -y tigervnc-standalone-server xfdesktop4",
                      "an unprivileged user with sudo gets the exact command prefixed with sudo");
        check_message(PKG_APT, true, false, missing,
                      "Missing Xtigervnc, xfdesktop: install them with: "
                      "apt-get install --no-install-recommends -y tigervnc-standalone-server xfdesktop4",
                      "apt-get install --no-install-recommends -y tigervnc-standalone-server xfdesktop4",
                      "root gets the exact command without sudo");
        check_message(PKG_APT, true, true, missing,
                      "Missing Xtigervnc, xfdesktop: install them with: "
                      "apt-get install --no-install-recommends -y tigervnc-standalone-server xfdesktop4",
                      "apt-get install --no-install-recommends -y tigervnc-standalone-server xfdesktop4",
                      "root never gets sudo even when sudo exists");
        check_message(PKG_DNF, false, true, missing,
                      "Missing Xtigervnc, xfdesktop: install them with: "
                      "sudo dnf install -y tigervnc-x11-server xfdesktop",
                      "sudo dnf install -y tigervnc-x11-server xfdesktop",
                      "dnf hosts get a dnf install command");
        check_message(PKG_PACMAN, true, false, missing,
                      "Missing Xtigervnc, xfdesktop: install them with: "
                      "pacman -S --needed --noconfirm tigervnc xfdesktop",
                      "pacman -S --needed --noconfirm tigervnc xfdesktop",
                      "pacman hosts get a non-interactive pacman command");
        check_message(PKG_APT, true, false, dup,
                      "Missing Xvnc, Xtigervnc: install them with: apt-get install --no-install-recommends -y tigervnc-standalone-server",
                      "apt-get install --no-install-recommends -y tigervnc-standalone-server",
                      "two names of one binary install its package once");
        check_message(PKG_APT, true, false, unknown, NULL, NULL,
                      "a binary outside the map gives no message rather than a wrong command");
        {
                _cleanup_free_ char *msg = packages_install_message(PKG_APT, true, false, missing, NULL);
                tap_ok(msg != NULL, "a caller that does not want the bare command may pass NULL for it");
        }
}

static void test_missing(void) {
        _cleanup_free_ char *dir = at("img"), *all = at("all");
        _cleanup_strv_free_ char **missing = NULL, **none = NULL;
        _cleanup_free_ char *s = NULL;
        static const char *const every[] = {
                "Xvnc", "xfwm4", "xfce4-panel", "xfdesktop", "xfsettingsd", "dbus-daemon", "setxkbmap",
        };

        mkdir_at("img");
        put("img/Xvnc", 0755);
        put("img/xfwm4", 0755);
        put("img/xfdesktop", 0644);

        TAP_EQ_INT(packages_missing(dir, &missing), 5, "packages_missing counts the binaries not found");
        TAP_EQ_STR(s = joined(missing, ","), "xfce4-panel,xfdesktop,xfsettingsd,dbus-daemon,setxkbmap",
                   "the second alternative satisfies a binary, and a non-executable file does not");

        mkdir_at("all");
        for (size_t i = 0; i < ELEMENTSOF(every); i++) {
                _cleanup_free_ char *rel = strdup_printf("all/%s", every[i]);
                put(rel, 0755);
        }
        TAP_EQ_INT(packages_missing(all, &none), 0, "nothing is missing when every binary is present");
        tap_ok(none && !none[0], "nothing missing is an empty list, not NULL");
        {
                _cleanup_strv_free_ char **everyday = NULL;
                _cleanup_free_ char *e = NULL;
                /* The fonts are a file of the system's, not of the search path: missing or not here. */
                bool fonts = access("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", F_OK) == 0 ||
                             access("/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf", F_OK) == 0 ||
                             access("/usr/share/fonts/TTF/DejaVuSans.ttf", F_OK) == 0;

                TAP_EQ_INT(packages_missing_all(all, &everyday), fonts ? 5 : 6,
                           "packages_missing_all also counts the everyday programs not found");
                TAP_EQ_STR(e = joined(everyday, ","),
                           fonts ? "xfce4-terminal,thunar,mousepad,xdpyinfo,xset"
                                 : "xfce4-terminal,thunar,mousepad,/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf,xdpyinfo,xset",
                           "...after the required ones, in table order; a font is looked for as a file");
        }
}

static void test_detect(void) {
        _cleanup_free_ char *both = at("pm-both"), *apt = at("pm-apt"), *empty = at("pm-empty"), *p = NULL;

        mkdir_at("pm-both");
        mkdir_at("pm-apt");
        mkdir_at("pm-empty");
        put("pm-both/pacman", 0755);
        put("pm-both/dnf", 0755);
        put("pm-apt/apt-get", 0755);
        put("pm-apt/apt", 0644);

        TAP_EQ_INT(pkg_manager_detect(both), PKG_DNF, "dnf is preferred over pacman when both exist");
        p = strdup_printf("%s:%s", both, apt);
        TAP_EQ_INT(pkg_manager_detect(p), PKG_APT, "apt-get is preferred over dnf and pacman");
        TAP_EQ_INT(pkg_manager_detect(empty), PKG_NONE, "no package manager in PATH is PKG_NONE");
        TAP_EQ_STR(pkg_manager_name(PKG_APT), "apt-get", "apt's name is the command looked for");
        TAP_EQ_STR(pkg_manager_name(PKG_DNF), "dnf", "dnf's name is dnf");
        TAP_EQ_STR(pkg_manager_name(PKG_PACMAN), "pacman", "pacman's name is pacman");
        TAP_EQ_STR(pkg_manager_name(_PKG_MAX), NULL, "an out-of-range manager has no name");
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st, (void) flag, (void) ftw;
        return remove(p);
}

static char *join(char **argv) {
        static char buf[1024];
        size_t n = 0;

        buf[0] = 0;
        for (char **a = argv; a && *a; a++)
                n += (size_t) snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", *a);
        return strdup(buf);
}

/* The argv install runs is the command it shows, with the manager from the system PATH. */
static void test_install_argv(void) {
        char *pkgs[] = { (char *) "xfwm4", (char *) "dbus-daemon", NULL };
        char **argv = NULL;
        char *joined;

        TAP_EQ_INT(packages_install_argv(PKG_APT, "/usr/bin/apt-get", pkgs, &argv), 0, "the apt argv is built");
        joined = join(argv);
        TAP_EQ_STR(joined, "/usr/bin/apt-get install --no-install-recommends -y xfwm4 dbus-daemon",
                   "apt-get installs without recommends, non-interactively, exactly the packages");
        free(joined);
        strv_free(argv);
        argv = NULL;
        packages_install_argv(PKG_PACMAN, "/usr/bin/pacman", pkgs, &argv);
        joined = join(argv);
        TAP_EQ_STR(joined, "/usr/bin/pacman -S --needed --noconfirm xfwm4 dbus-daemon", "pacman's argv matches its command");
        free(joined);
        strv_free(argv);
        TAP_EQ_INT(packages_install_argv(PKG_NONE, "/x", pkgs, &argv), -EINVAL, "no package manager, no argv");
}

int main(void) {
        if (!mkdtemp(base)) {
                printf("Bail out! mkdtemp failed\n");
                return 1;
        }

        test_map_complete();
        test_map_unique();
        test_map_order();
        test_map_matches_dpkg();
        test_packages_for();
        test_messages();
        test_missing();
        test_detect();
        test_install_argv();

        (void) nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        return tap_done();
}
