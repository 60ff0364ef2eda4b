/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/*
 * [session] wallpaper on the desktop's background. xfdesktop reads the
 * image of workspace 0 of Xvnc's only output, VNC-0, from xfconf:
 * /backdrop/screen0/monitorVNC-0/workspace0/last-image, drawn as
 * image-style 5 (zoomed: the screen filled, the image's proportions kept).
 * The helper writes both into the profile's xfce4-desktop.xml before the
 * session starts, when xfconfd reads the file, so the first frame already
 * shows the image; every other setting of the file stays the user's.
 */

#define WALLPAPER_XML "xfce4/xfconf/xfce-perchannel-xml/xfce4-desktop.xml"
#define WALLPAPER_IMAGE_STYLE_ZOOMED 5

/*
 * text (a channel file of xfconfd's or the skeleton's) with image set on
 * monitorVNC-0's workspace0: *ret, new. -ENOENT when text has no such
 * element (nothing to change), -EINVAL for an image that is not an
 * absolute path or holds a control character, -ENOMEM.
 */
int wallpaper_set_xml(const char *text, const char *image, char **ret);

/* The same on config_home's xfce4-desktop.xml, replaced atomically. */
int wallpaper_apply(const char *config_home, const char *image);
