/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * botdesk web: noVNC's static files, opened beneath its directory, and the
 * small answers the routes share (the lease as JSON, the desktop's RFB
 * socket, a refused upgrade's handshake and close frame).
 */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "json.h"
#include "socket-util.h"
#include "util.h"
#include "web.h"

#define STATIC_FILE_MAX (16 * 1024 * 1024)

static const char *content_type(const char *name) {
        static const struct {
                const char *ext, *type;
        } types[] = {
                { ".html", "text/html; charset=utf-8" },
                { ".js", "text/javascript; charset=utf-8" },
                { ".css", "text/css; charset=utf-8" },
                { ".svg", "image/svg+xml" },
                { ".png", "image/png" },
                { ".ico", "image/x-icon" },
                { ".json", "application/json" },
                { ".woff", "font/woff" },
                { ".woff2", "font/woff2" },
                { ".ttf", "font/ttf" },
                { ".mp3", "audio/mpeg" },
                { ".oga", "audio/ogg" },
        };
        const char *dot = strrchr(name, '.');

        for (size_t i = 0; dot && i < ELEMENTSOF(types); i++)
                if (streq(dot, types[i].ext))
                        return types[i].type;
        return "application/octet-stream";
}

/* rel: what follows /PROFILE/novnc/, segments percent-decoded one by one: no
 * "..", no ".", no hidden names, no empty segments; opened beneath the dir. */
int web_static_open(int novnc_fd, const char *rel, off_t *ret_size, const char **ret_type) {
        char path[1024], seg[256];
        size_t o = 0;
        struct stat st;
        int fd;

        for (const char *p = rel;;) {
                size_t l = strcspn(p, "/"), sl;

                if (http_segment_decode(p, l, seg, sizeof seg) < 0)
                        return -ENOENT;
                sl = strlen(seg);
                if (o + sl + 2 > sizeof path)
                        return -ENOENT;
                memcpy(path + o, seg, sl);
                o += sl;
                p += l;
                if (!*p)
                        break;
                path[o++] = '/';
                p++;
        }
        path[o] = 0;

        fd = openat(novnc_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > STATIC_FILE_MAX) {
                safe_close(fd);
                return -ENOENT;
        }
        *ret_size = st.st_size;
        *ret_type = content_type(path);
        return fd;
}

char *web_lease_json(const struct lease *l, const char *viewer, bool ticket, size_t *ret_size) {
        char *body = NULL;
        struct json j;
        FILE *f;

        *ret_size = 0;
        f = open_memstream(&body, ret_size);
        if (!f)
                return NULL;
        json_init(&j, f);
        json_object_begin(&j);
        json_kv_string(&j, "holder", lease_holder_to_string(l->holder));
        json_kv_bool(&j, "you", viewer && lease_allows_input(l, viewer));
        json_kv_bool(&j, "ticket", ticket);
        json_kv_int(&j, "epoch", (long long) l->epoch);
        json_object_end(&j);
        if (fclose(f) != 0) {
                free(body);
                return NULL;
        }
        return body;
}

int web_rfb_connect(int dirfd) {
        /* Through the directory we opened, whatever its name is now. A Unix
         * socket connects at once or refuses at once (EAGAIN: its backlog is full). */
        return socket_connect_at(dirfd, RFB_SOCKET, SOCK_STREAM | SOCK_NONBLOCK);
}

int web_upgrade_head(const char *accept, char out[static WEB_UPGRADE_HEAD_MAX]) {
        return snprintf(out, WEB_UPGRADE_HEAD_MAX,
                        "HTTP/1.1 101 Switching Protocols\r\n"
                        "Upgrade: websocket\r\n"
                        "Connection: Upgrade\r\n"
                        "Sec-WebSocket-Accept: %s\r\n"
                        "\r\n",
                        accept);
}

char *web_refusal_frames(const char *key, uint16_t code, const char *reason, size_t *ret_size) {
        char accept[WS_ACCEPT_LEN + 1], *out;
        uint8_t frame[2 + WS_CONTROL_MAX];
        size_t hl, fl;
        int n;

        if (!key || ws_accept_key(key, accept) < 0)
                return NULL;
        fl = ws_close_frame(code, reason, frame);
        out = malloc(WEB_UPGRADE_HEAD_MAX + fl);
        if (!out)
                return NULL;
        n = web_upgrade_head(accept, out);
        hl = (size_t) n;
        memcpy(out + hl, frame, fl);
        *ret_size = hl + fl;
        return out;
}
