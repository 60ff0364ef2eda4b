/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>

#include "tap.h"
#include "util.h"
#include "wallpaper.h"

/* The skeleton's file, as helper/../conf/skel ships it. */
static char *skeleton(void) {
        const char *src = getenv("BOTDESK_SOURCE_DIR");
        _cleanup_free_ char *path = strdup_printf("%s/conf/skel/" WALLPAPER_XML, src ?: ".");
        char *text = NULL;

        if (!path || read_full_file(path, &text, NULL, 1 << 20) < 0)
                return NULL;
        return text;
}

static size_t count(const char *s, const char *what) {
        size_t n = 0;

        for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
                n++;
        return n;
}

static void test_skeleton(void) {
        _cleanup_free_ char *text = skeleton(), *once = NULL, *twice = NULL;
        const char *ws;

        tap_ok(text != NULL, "the skeleton's xfce4-desktop.xml is read");
        if (!text)
                return;
        TAP_EQ_INT(wallpaper_set_xml(text, "/usr/share/backgrounds/a & b.png", &once), 0,
                   "a wallpaper is set on the skeleton's file");
        ws = strstr(strstr(once, "monitorVNC-0"), "workspace0");
        tap_ok(ws && strstr(ws, "<property name=\"last-image\" type=\"string\" value=\"/usr/share/backgrounds/a &amp; b.png\"/>"),
               "... as workspace0's last-image of monitorVNC-0, XML-escaped");
        tap_ok(ws && strstr(ws, "<property name=\"image-style\" type=\"int\" value=\"5\"/>"), "... drawn zoomed (image-style 5)");
        TAP_EQ_INT(count(once, "name=\"image-style\""), 1, "... replacing the skeleton's image-style 0");
        tap_ok(strstr(once, "<property name=\"rgba1\" type=\"array\">") && strstr(once, "name=\"desktop-icons\""),
               "... and keeping every other setting");
        TAP_EQ_INT(wallpaper_set_xml(once, "/srv/b.jpg", &twice), 0, "set again, with another image");
        TAP_EQ_INT(count(twice, "name=\"last-image\""), 1, "... one last-image remains");
        tap_ok(strstr(twice, "value=\"/srv/b.jpg\"") && !strstr(twice, "a &amp; b"), "... the new one");
        TAP_EQ_INT((long long) strlen(twice), (long long) strlen(once) - (long long) strlen("/usr/share/backgrounds/a &amp; b.png") +
                   (long long) strlen("/srv/b.jpg"), "... and nothing else changed");
}

static void test_refused(void) {
        _cleanup_free_ char *out = NULL;

        TAP_EQ_INT(wallpaper_set_xml("<channel name=\"xfce4-desktop\"></channel>", "/a.png", &out), -ENOENT,
                   "a file without monitorVNC-0's workspace0 is left alone (-ENOENT)");
        TAP_EQ_INT(wallpaper_set_xml("<property name=\"monitorVNC-0\" type=\"empty\"><property name=\"workspace0\" type=\"empty\">",
                                     "/a.png", &out), -ENOENT, "... so is one whose workspace0 is not closed");
        TAP_EQ_INT(wallpaper_set_xml("x", "a.png", &out), -EINVAL, "a relative image path is refused");
        TAP_EQ_INT(wallpaper_set_xml("x", "/a\n.png", &out), -EINVAL, "... so is one with a control character");
}

int main(void) {
        test_skeleton();
        test_refused();
        return tap_done();
}
