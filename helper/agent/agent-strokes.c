/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An agent action's keys and strokes (agent-strokes.h): every check that
 * can fail runs in agent_prepare(), before agent_execute() sends the first
 * event, so a refused or malformed action leaves the screen as it was.
 */
#include <poll.h>
#include <sys/inotify.h>
#include <stdlib.h>
#include <strings.h>

#include "agent.h"
#include "agent-strokes.h"
#include "cli.h"
#include "keymap.h"
#include "lease.h"
#include "lease-watch.h"
#include "util.h"

int agent_pass_time(struct agent *a, unsigned ms, const struct lease *admitted) {
        unsigned long long end = now_usec() + (unsigned long long) ms * 1000ull;
        _cleanup_close_ int ino = -EBADF;

        if (a->conn)
                xcb_flush(a->conn);
        /* The watch before the first read: a take in between is not missed. */
        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (ino < 0 || lease_watch_add(ino, a->dirfd) < 0)
                return -EIO;
        for (;;) {
                unsigned long long now = now_usec();
                struct pollfd p[2] = {
                        { .fd = ino, .events = POLLIN },
                        { .fd = a->conn ? xcb_get_file_descriptor(a->conn) : -1, .events = POLLIN },
                };
                xcb_generic_event_t *ev;

                while (a->conn && (ev = xcb_poll_for_event(a->conn))) {
                        settle_event(&a->settle, ev);
                        free(ev);
                }
                (void) inotify_drain(ino, NULL, NULL);
                if (!cli_action_still_valid(a->dirfd, admitted))
                        return -ESTALE;
                if (now >= end || (a->conn && xcb_connection_has_error(a->conn)))
                        return 0;
                if (poll(p, ELEMENTSOF(p), (int) ((end - now + 999) / 1000)) < 0 && errno != EINTR)
                        return 0;
        }
}

/* OpenAI's key names (the browser's: ARROWLEFT, ENTER, CMD) as botdesk's. */
static const char *openai_key(const char *k) {
        static const struct {
                const char *from, *to;
        } names[] = {
                { "ARROWLEFT", "Left" }, { "ARROWRIGHT", "Right" }, { "ARROWUP", "Up" }, { "ARROWDOWN", "Down" },
                { "ENTER", "Return" },   { "PAGEUP", "Page_Up" },  { "PAGEDOWN", "Page_Down" },
                { "CMD", "super" },      { "OPTION", "alt" },      { "CAPSLOCK", "Caps_Lock" },
        };

        static const char *const letters[26] = {
                "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
                "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z",
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcasecmp(k, names[i].from) == 0)
                        return names[i].to;
        /* ["CTRL", "A"] is ctrl+a: a letter names its key, not the capital (which would add Shift). */
        if (k[0] >= 'A' && k[0] <= 'Z' && !k[1])
                return letters[k[0] - 'A'];
        return k;
}

void agent_prepared_done(struct agent_prepared *p) {
        free(p->combos);
        free(p->keysyms);
}

/* text's combos, separated by spaces (xdotool's key syntax). */
static int parse_combos(const char *text, struct agent_prepared *p, struct agent_outcome *o) {
        _cleanup_free_ char *copy = strdup(text);
        char *save = NULL;
        size_t n = 0;

        if (!copy)
                return -ENOMEM;
        p->combos = calloc(INPUT_COMBOS_MAX, sizeof *p->combos);
        if (!p->combos)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                if (n == INPUT_COMBOS_MAX)
                        return agent_say(o, "key: at most %d combos in one action; send more in another, or type text with "
                                      "type.", INPUT_COMBOS_MAX) ?: -EINVAL;
                if (combo_parse(w, &p->combos[n]) < 0)
                        return agent_say(o, "Unknown key or combo \"%s\": give key names joined by + (ctrl+s, Return, alt+Tab, "
                                      "super), combos separated by spaces.", w) ?: -EINVAL;
                n++;
        }
        if (n == 0)
                return agent_say(o, "No key given: give key names joined by + (ctrl+s, Return).") ?: -EINVAL;
        p->n_combos = n;
        return 0;
}

/* Each held key on the map as it is (a held key keeps its meaning). */
static int find_held(struct agent *a, const char *text, struct agent_prepared *p, struct agent_outcome *o) {
        /* A VNC server maps keysyms itself (agent-remote.h). */
        if (a->remote)
                return 0;
        for (size_t i = 0; i < p->held.n; i++)
                if (keymap_find(&a->in.map, p->held.keysyms[i], &p->held_st[i]) < 0)
                        return agent_say(o, "The key \"%s\" is not on this desktop's keyboard map; it cannot be held.", text)
                                       ?: -EINVAL;
                else
                        p->held_st[i].shift = false;
        return 0;
}

/* Keys to hold, as Anthropic's text gives them ("shift", "ctrl+alt"). */
static int parse_held(struct agent *a, const char *text, struct agent_prepared *p, struct agent_outcome *o) {
        if (combo_parse(text, &p->held) < 0)
                return agent_say(o, "Unknown keys to hold \"%s\": give key names joined by + (shift, ctrl+alt).", text) ?: -EINVAL;
        return find_held(a, text, p, o);
}

/* Keys to hold, as OpenAI's keys give them (["SHIFT"], ["CTRL", "ALT"]). */
static int parse_held_openai(struct agent *a, const struct mcp_action *act, struct agent_prepared *p,
                             struct agent_outcome *o) {
        if (act->n_keys > COMBO_MAX)
                return agent_say(o, "%s: at most %d keys held at once.", act->name, COMBO_MAX) ?: -EINVAL;
        for (size_t i = 0; i < act->n_keys; i++)
                if (keyname_to_keysym(openai_key(act->keys[i]), &p->held.keysyms[i]) < 0)
                        return agent_say(o, "%s: unknown key \"%s\" to hold (give names like SHIFT, CTRL, ALT).",
                                         act->name, act->keys[i]) ?: -EINVAL;
        p->held.n = act->n_keys;
        return find_held(a, act->keys[0], p, o);
}

int agent_prepare(struct agent *a, const struct mcp_action *act, struct agent_prepared *p, struct agent_outcome *o) {
        uint32_t bad = 0;
        int r;

        switch (act->kind) {
        case MCP_ACT_KEY:
                if (act->schema == MCP_SCHEMA_ANTHROPIC)
                        return parse_combos(act->text, p, o);
                /* OpenAI's keys are pressed together: one combo. */
                p->combos = calloc(1, sizeof *p->combos);
                if (!p->combos)
                        return -ENOMEM;
                if (act->n_keys > COMBO_MAX)
                        return agent_say(o, "keypress: at most %d keys at once.", COMBO_MAX) ?: -EINVAL;
                for (size_t i = 0; i < act->n_keys; i++)
                        if (keyname_to_keysym(openai_key(act->keys[i]), &p->combos[0].keysyms[i]) < 0)
                                return agent_say(o, "keypress: unknown key \"%s\" (give names like CTRL, SHIFT, ENTER, "
                                              "ARROWLEFT, A).", act->keys[i]) ?: -EINVAL;
                p->combos[0].n = act->n_keys;
                p->n_combos = 1;
                return 0;
        case MCP_ACT_TYPE:
                r = keysyms_from_text(act->text, &p->keysyms, &p->n_keysyms, &bad);
                if (r == -ENOMEM)
                        return r;
                if (r == -EILSEQ)
                        return agent_say(o, "The text for type is not valid UTF-8.") ?: -EINVAL;
                if (r < 0)
                        return agent_say(o, "The text holds control character U+%04X, which no key types; use key for keys.",
                                   (unsigned) bad) ?: -EINVAL;
                if (!a->remote && !input_can_type(&a->in, p->keysyms, p->n_keysyms))
                        return agent_say(o, "The text cannot be typed: the keyboard map has no spare keycode for characters "
                                      "it lacks.") ?: -EINVAL;
                return 0;
        case MCP_ACT_CLICK:
        case MCP_ACT_SCROLL:
        case MCP_ACT_DRAG:
        case MCP_ACT_MOVE:
        case MCP_ACT_HOLD_KEY:
                if (act->schema == MCP_SCHEMA_OPENAI)
                        return act->n_keys > 0 ? parse_held_openai(a, act, p, o) : 0;
                return act->text ? parse_held(a, act->text, p, o) : 0;
        default:
                return 0;
        }
}

/* A drag's pace (input_drag()): the screen settled, as after an action. */
static void drag_settle(void *userdata) {
        struct agent *a = userdata;
        enum settle_state state;
        unsigned ms;

        settle_begin(&a->settle);
        (void) settle_wait(&a->settle, a->quiet_ms, a->settle_cap_ms, &state, &ms);
}

static void hold(struct agent *a, const struct agent_prepared *p, bool press) {
        if (press)
                for (size_t i = 0; i < p->held.n; i++)
                        input_stroke(&a->in, &p->held_st[i], true);
        else
                for (size_t i = p->held.n; i > 0; i--)
                        input_stroke(&a->in, &p->held_st[i - 1], false);
}

/* The strokes. 0, -ESTALE (control moved while typing), or a failure said in o. */
int agent_execute(struct agent *a, const struct mcp_action *act, const struct agent_prepared *p,
                  const struct lease *admitted, struct agent_outcome *o) {
        struct cli_admitted ctx = { .runtime_fd = a->dirfd, .lease = admitted };
        size_t sent = 0;
        int r;

        switch (act->kind) {
        case MCP_ACT_KEY:
                r = 0;
                for (unsigned i = 0; r >= 0 && i < (act->repeat ?: 1); i++)
                        r = input_combos(&a->in, p->combos, p->n_combos);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return agent_say(o, "The keys cannot all be pressed: the keyboard map lacks some and has too few spare "
                                      "keycodes.") ?: -EIO;
                break;
        case MCP_ACT_TYPE:
                r = input_type(&a->in, p->keysyms, p->n_keysyms, cli_still_admitted, &ctx, &sent);
                o->characters = (unsigned) sent;
                if (r == -ESTALE)
                        return r;
                if (r < 0)
                        return agent_say(o, "The text could not be typed (%s).", r == -ENOENT ? "no spare keycode" : "X error")
                                       ?: -EIO;
                break;
        case MCP_ACT_MOVE:
                hold(a, p, true);
                input_motion(&a->in, act->x, act->y);
                hold(a, p, false);
                break;
        case MCP_ACT_CLICK:
                if (act->have_point)
                        input_motion(&a->in, act->x, act->y);
                hold(a, p, true);
                for (unsigned i = 0; i < act->clicks; i++) {
                        input_button(&a->in, act->button, true);
                        input_button(&a->in, act->button, false);
                }
                hold(a, p, false);
                break;
        case MCP_ACT_DRAG:
                hold(a, p, true);
                input_drag(&a->in, act->button, (const unsigned (*)[2]) act->path, act->n_path,
                           a->have_settle ? drag_settle : NULL, a);
                hold(a, p, false);
                break;
        case MCP_ACT_DOWN:
        case MCP_ACT_UP:
                if (act->have_point)
                        input_motion(&a->in, act->x, act->y);
                input_button(&a->in, act->button, act->kind == MCP_ACT_DOWN);
                break;
        case MCP_ACT_SCROLL:
                if (act->have_point)
                        input_motion(&a->in, act->x, act->y);
                hold(a, p, true);
                input_scroll(&a->in, act->dx, act->dy);
                hold(a, p, false);
                break;
        case MCP_ACT_HOLD_KEY:
                hold(a, p, true);
                xcb_flush(a->conn);
                r = agent_pass_time(a, act->duration_ms, admitted);
                /* Up at once on a takeover too, not at the hold's end (the
                 * helper lets go of them as well: whichever comes first). */
                hold(a, p, false);
                if (r == -ESTALE) {
                        (void) input_sync(&a->in);
                        return r;
                }
                break;
        case MCP_ACT_WAIT:
                r = agent_pass_time(a, act->duration_ms, admitted);
                if (r == -ESTALE)
                        return r;
                break;
        case MCP_ACT_CURSOR_POSITION: {
                xcb_query_pointer_reply_t *q = xcb_query_pointer_reply(a->conn, xcb_query_pointer(a->conn, a->root), NULL);

                if (!q)
                        return agent_say(o, "Cannot read the pointer.") ?: -EIO;
                mcp_space_from_screen(&a->space, (unsigned) (q->root_x < 0 ? 0 : q->root_x),
                                      (unsigned) (q->root_y < 0 ? 0 : q->root_y), &o->cursor_x, &o->cursor_y);
                o->have_cursor = true;
                free(q);
                break;
        }
        case MCP_ACT_SCREENSHOT:
        case MCP_ACT_ZOOM:
                break;
        }
        r = input_sync(&a->in);
        if (r < 0)
                return agent_say(o, "The X server refused the input.") ?: -EIO;
        /* A press that reached the server after a take may have come after
         * the helper let go of what was down (lease-settled.h): let go of
         * it here, now that the server has it; the action is void. */
        if (act->kind == MCP_ACT_DOWN && !cli_action_still_valid(a->dirfd, admitted)) {
                input_button(&a->in, act->button, false);
                (void) input_sync(&a->in);
                return -ESTALE;
        }
        return 0;
}
