/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>

#include "util.h"
#include "wallpaper.h"

#define MONITOR_TAG "<property name=\"monitorVNC-0\""
#define WORKSPACE_TAG "<property name=\"workspace0\""

/* The end of the element whose children start at s: the "</property>" that closes it, or NULL. */
static const char *element_end(const char *s) {
        unsigned depth = 0;

        for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
                const char *close = strchr(p, '>');

                if (!close)
                        return NULL;
                if (startswith(p, "</property")) {
                        if (depth == 0)
                                return p;
                        depth--;
                } else if (startswith(p, "<property") && close[-1] != '/')
                        depth++;
        }
        return NULL;
}

/* Whether line is a child <property name="NAME" ...> (the properties replaced). */
static bool is_child(const char *line, const char *name) {
        _cleanup_free_ char *tag = strdup_printf("<property name=\"%s\"", name);

        while (*line == ' ' || *line == '\t')
                line++;
        return tag && startswith(line, tag);
}

static char *xml_escape(const char *s) {
        size_t n = 1;
        char *ret, *o;

        for (const char *p = s; *p; p++)
                n += *p == '&' ? 5 : *p == '<' || *p == '>' ? 4 : *p == '"' || *p == '\'' ? 6 : 1;
        ret = o = malloc(n);
        if (!ret)
                return NULL;
        for (const char *p = s; *p; p++) {
                const char *e = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" :
                                *p == '"' ? "&quot;" : *p == '\'' ? "&apos;" : NULL;
                if (e) {
                        memcpy(o, e, strlen(e));
                        o += strlen(e);
                } else
                        *o++ = *p;
        }
        *o = 0;
        return ret;
}

int wallpaper_set_xml(const char *text, const char *image, char **ret) {
        _cleanup_free_ char *escaped = NULL, *out = NULL;
        const char *monitor, *workspace, *children, *end;
        size_t o = 0, cap;

        if (!image || image[0] != '/')
                return -EINVAL;
        for (const unsigned char *p = (const unsigned char *) image; *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        return -EINVAL;
        monitor = strstr(text, MONITOR_TAG);
        workspace = monitor ? strstr(monitor, WORKSPACE_TAG) : NULL;
        children = workspace ? strchr(workspace, '>') : NULL;
        /* workspace0 written empty (self-closing) holds nothing to keep: not the form either writer uses. */
        if (!children || children[-1] == '/')
                return -ENOENT;
        children++;
        end = element_end(children);
        if (!end)
                return -ENOENT;
        escaped = xml_escape(image);
        if (!escaped)
                return -ENOMEM;
        cap = strlen(text) + strlen(escaped) + 256;
        out = malloc(cap);
        if (!out)
                return -ENOMEM;
        /* Up to the children, the two properties, the other children line by line, the rest. */
        memcpy(out, text, (size_t) (children - text));
        o = (size_t) (children - text);
        o += (size_t) snprintf(out + o, cap - o,
                               "\n          <property name=\"image-style\" type=\"int\" value=\"%d\"/>"
                               "\n          <property name=\"last-image\" type=\"string\" value=\"%s\"/>",
                               WALLPAPER_IMAGE_STYLE_ZOOMED, escaped);
        for (const char *line = children; line < end;) {
                const char *nl = memchr(line, '\n', (size_t) (end - line));
                const char *next = nl ? nl + 1 : end;

                if (!is_child(line, "image-style") && !is_child(line, "last-image")) {
                        memcpy(out + o, line, (size_t) (next - line));
                        o += (size_t) (next - line);
                }
                line = next;
        }
        memcpy(out + o, end, strlen(end) + 1);
        *ret = TAKE_PTR(out);
        return 0;
}

int wallpaper_apply(const char *config_home, const char *image) {
        _cleanup_free_ char *path = strdup_printf("%s/" WALLPAPER_XML, config_home), *text = NULL, *out = NULL;
        _cleanup_close_ int fd = -EBADF;
        char *slash;
        int r;

        if (!path)
                return -ENOMEM;
        r = read_full_file(path, &text, NULL, 1 << 20);
        if (r < 0)
                return r;
        r = wallpaper_set_xml(text, image, &out);
        if (r < 0)
                return r;
        slash = strrchr(path, '/');
        *slash = 0;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        return write_file_atomic_at(fd, slash + 1, out, strlen(out), 0644);
}
