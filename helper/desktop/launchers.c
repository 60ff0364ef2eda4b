/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <sys/stat.h>

#include "launchers.h"
#include "find-executable.h"
#include "log.h"
#include "util.h"

#define PANEL_XML "xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml"

struct launcher {
        unsigned id;
        const char *file;       /* desktop file name */
        const char *try_exec;   /* NULL: the browser, written here */
};

static const struct launcher launchers[] = {
        { 10, "botdesk-terminal.desktop", "x-terminal-emulator" },
        { 11, "botdesk-browser.desktop", NULL },
        { 12, "botdesk-files.desktop", "thunar" },
        { 13, "botdesk-editor.desktop", "mousepad" },
};

char *desktop_exec_quote(const char *arg) {
        /* Reserved characters force double quotes; inside them ", `, $ and \
         * take a backslash. The file format then doubles every backslash. */
        static const char reserved[] = " \t\n\"'\\><~|&;$*?#()`";
        bool quote = !*arg || strpbrk(arg, reserved);
        size_t n = strlen(arg);
        char *out = malloc(n * 4 + 3), *o = out;

        if (!out)
                return NULL;
        if (quote)
                *o++ = '"';
        for (const char *s = arg; *s; s++) {
                if (*s == '%') {
                        *o++ = '%';
                        *o++ = '%';
                        continue;
                }
                if (quote && (*s == '"' || *s == '`' || *s == '$')) {
                        /* \" in the Exec grammar, written as \\" in the file. */
                        *o++ = '\\';
                        *o++ = '\\';
                } else if (*s == '\\') {
                        /* A literal backslash: \\ in the Exec grammar (only
                         * inside quotes), each escaped again by the file. */
                        *o++ = '\\';
                        *o++ = '\\';
                        if (quote) {
                                *o++ = '\\';
                                *o++ = '\\';
                        }
                        continue;
                } else if (*s == '\n') {
                        *o++ = '\\';
                        *o++ = 'n';
                        continue;
                }
                *o++ = *s;
        }
        if (quote)
                *o++ = '"';
        *o = 0;
        return out;
}

char *desktop_exec_line(char *const *argv) {
        size_t size = 1, used = 0;
        char *line = malloc(size);

        if (!line)
                return NULL;
        line[0] = 0;
        for (char *const *a = argv; *a; a++) {
                _cleanup_free_ char *q = desktop_exec_quote(*a);
                size_t l;
                char *p;

                if (!q) {
                        free(line);
                        return NULL;
                }
                l = strlen(q);
                p = realloc(line, size + l + 1);
                if (!p) {
                        free(line);
                        return NULL;
                }
                line = p;
                size += l + 1;
                if (used)
                        line[used++] = ' ';
                memcpy(line + used, q, l + 1);
                used += l;
        }
        return line;
}

static int write_browser_entry(int dir_fd, char *const *browser_argv) {
        _cleanup_free_ char *exec = desktop_exec_line(browser_argv), *text = NULL;

        if (!exec)
                return -ENOMEM;
        text = strdup_printf("[Desktop Entry]\n"
                             "Version=1.0\n"
                             "Type=Application\n"
                             "Name=Web Browser\n"
                             "Comment=The browser the agent shares\n"
                             "Exec=%s\n"
                             "Icon=web-browser\n"
                             "Terminal=false\n"
                             "StartupNotify=true\n"
                             "Categories=Network;WebBrowser;\n"
                             "X-Botdesk-Launcher=browser\n",
                             exec);
        if (!text)
                return -ENOMEM;
        return write_file_atomic_at(dir_fd, "botdesk-browser.desktop", text, strlen(text), 0644);
}

static int copy_entry(const char *applications_dir, int dir_fd, const char *file) {
        _cleanup_free_ char *src = strdup_printf("%s/%s", applications_dir, file), *text = NULL;
        size_t size;
        int r;

        if (!src)
                return -ENOMEM;
        r = read_full_file(src, &text, &size, 1 << 16);
        if (r < 0)
                return r;
        return write_file_atomic_at(dir_fd, file, text, size, 0644);
}

static int write_panel_xml(const char *path, const char *text) {
        _cleanup_free_ char *dir = strdup(path);
        _cleanup_close_ int fd = -EBADF;
        char *slash;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        *slash = 0;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        return write_file_atomic_at(fd, slash + 1, text, strlen(text), 0644);
}

/* The dock's entry for launcher id in text, with the bounds of its line (the
 * end past its newline); NULL when the dock has no such entry. */
static const char *dock_line_find(const char *text, unsigned id, const char **ret_start, const char **ret_end) {
        char needle[64];
        const char *hit, *start, *end;

        snprintf(needle, sizeof needle, "<value type=\"int\" value=\"%u\"/>", id);
        hit = strstr(text, needle);
        if (!hit)
                return NULL;
        for (start = hit; start > text && start[-1] != '\n'; start--)
                ;
        end = strchr(hit, '\n');
        *ret_start = start;
        *ret_end = end ? end + 1 : hit + strlen(hit);
        return hit;
}

/* The panel's xfconf file of config_home: its path and its text. */
static int dock_read(const char *config_home, char **ret_path, char **ret_text) {
        _cleanup_free_ char *path = strdup_printf("%s/" PANEL_XML, config_home);
        int r;

        if (!path)
                return -ENOMEM;
        r = read_full_file(path, ret_text, NULL, 1 << 20);
        if (r < 0)
                return r;
        *ret_path = TAKE_PTR(path);
        return 0;
}

/* Put id back into the dock, beside the launcher before or after it in the
 * skeleton's order. A dock without either neighbour was rearranged by its
 * user and is left as it is. */
static int add_to_dock(const char *config_home, unsigned id) {
        _cleanup_free_ char *path = NULL, *text = NULL, *out = NULL;
        const char *hit, *line_start, *line_end;
        size_t at;
        bool after;
        int r;

        r = dock_read(config_home, &path, &text);
        if (r < 0)
                return r;
        if (dock_line_find(text, id, &line_start, &line_end))
                return 0;
        hit = dock_line_find(text, id - 1, &line_start, &line_end);
        after = hit != NULL;
        for (unsigned next = id + 1; !hit && next <= 13; next++)
                hit = dock_line_find(text, next, &line_start, &line_end);
        if (!hit)
                return 0;
        at = (size_t) ((after ? line_end : line_start) - text);
        /* The new line keeps the neighbour's indentation. */
        out = strdup_printf("%.*s%s%.*s<value type=\"int\" value=\"%u\"/>\n%s", (int) at, text,
                            after && line_end[-1] != '\n' ? "\n" : "", (int) (hit - line_start), line_start, id,
                            text + at);
        if (!out)
                return -ENOMEM;
        return write_panel_xml(path, out);
}

static int drop_from_dock(const char *config_home, unsigned id) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        const char *line_start, *line_end;
        int r;

        r = dock_read(config_home, &path, &text);
        if (r < 0)
                return r;
        if (!dock_line_find(text, id, &line_start, &line_end))
                return 0;
        /* Remove the whole line, indentation included. */
        memmove(text + (line_start - text), line_end, strlen(line_end) + 1);
        return write_panel_xml(path, text);
}

int launchers_seed(const char *config_home, const char *applications_dir, char *const *browser_argv) {
        for (size_t i = 0; i < ELEMENTSOF(launchers); i++) {
                const struct launcher *l = &launchers[i];
                _cleanup_free_ char *dir = strdup_printf("%s/xfce4/panel/launcher-%u", config_home, l->id);
                _cleanup_free_ char *bin = NULL;
                _cleanup_close_ int fd = -EBADF;
                bool present;
                int r;

                if (!dir)
                        return -ENOMEM;
                if (l->try_exec) {
                        present = find_executable(l->try_exec, NULL, &bin) >= 0;
                } else
                        present = browser_argv && browser_argv[0];
                if (!present) {
                        r = drop_from_dock(config_home, l->id);
                        if (r < 0 && r != -ENOENT)
                                return r;
                        continue;
                }
                {
                        _cleanup_free_ char *panel = strdup_printf("%s/xfce4/panel", config_home);
                        _cleanup_free_ char *xfce = strdup_printf("%s/xfce4", config_home);
                        if (!panel || !xfce)
                                return -ENOMEM;
                        (void) mkdir(xfce, 0755);
                        (void) mkdir(panel, 0755);
                }
                if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (fd < 0)
                        return negative_errno();
                r = l->try_exec ? copy_entry(applications_dir, fd, l->file) : write_browser_entry(fd, browser_argv);
                if (r == -ENOENT) {
                        /* Its desktop file is not where the build put it (a build tree run uninstalled, a
                         * partial install): one launcher fewer, not a desktop that does not start. */
                        log_warning("The dock's launcher %s is left out: %s/%s is missing.", l->file, applications_dir,
                                    l->file);
                        fd = safe_close(fd);
                        (void) rmdir(dir);
                        r = drop_from_dock(config_home, l->id);
                        if (r < 0 && r != -ENOENT)
                                return r;
                        continue;
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* An entry botdesk wrote: its marker, or (before the marker) its comment or
 * the DevTools TCP port older versions passed. */
static bool browser_entry_ours(const char *text) {
        return strstr(text, "\nX-Botdesk-Launcher=browser\n") || strstr(text, "\nComment=The browser the agent shares\n") ||
               strstr(text, "--remote-debugging-port");
}

int launchers_refresh_browser(const char *config_home, char *const *browser_argv) {
        _cleanup_free_ char *dir = strdup_printf("%s/xfce4/panel/launcher-11", config_home), *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (!dir)
                return -ENOMEM;
        if (!browser_argv || !browser_argv[0])
                return 0;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 && errno == ENOENT) {
                /* No browser when the dock was seeded, so botdesk left the
                 * launcher out; one installed since then joins the dock. */
                if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (fd < 0)
                        return negative_errno();
                r = write_browser_entry(fd, browser_argv);
                if (r < 0)
                        return r;
                r = add_to_dock(config_home, 11);
                return r == -ENOENT ? 0 : r;
        }
        if (fd < 0)
                return negative_errno();
        r = read_full_file_at(fd, "botdesk-browser.desktop", &text, NULL, 1 << 16);
        if (r < 0 && r != -ENOENT)
                return r;
        /* Ours is rewritten on every start, so it follows the browser, the
         * profile's paths and the sandbox rule; anything else is the user's. */
        if (r >= 0 && !browser_entry_ours(text))
                return 0;
        return write_browser_entry(fd, browser_argv);
}
