/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "argv-split.h"
#include "config.h"
#include "owner.h"
#include "placement-kind.h"
#include "tap.h"
#include "util.h"

/* "a|b|c": the words joined by '|', for comparing a whole argv at once. */
static char *joined(char **argv) {
        char *ret = strdup("");

        for (char **a = argv; a && *a && ret; a++) {
                char *old = ret;
                ret = strdup_printf("%s%s%s", old, a == argv ? "" : "|", *a);
                free(old);
        }
        return ret;
}

static void split_is(const char *line, const char *want, const char *name) {
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *got = NULL;
        int r = argv_split(line, &argv);

        if (r < 0) {
                tap_ok(false, "%s", name);
                printf("#   argv_split(%s) = %d\n", line, r);
                return;
        }
        got = joined(argv);
        TAP_EQ_STR(got, want, "%s", name);
}

static void split_fails(const char *line, int want, const char *name) {
        _cleanup_strv_free_ char **argv = NULL;

        TAP_EQ_INT(argv_split(line, &argv), want, "%s", name);
        tap_ok(argv == NULL, "%s: no argv is returned", name);
}

static void test_argv_split(void) {
        split_is("podman exec -i agent-42", "podman|exec|-i|agent-42", "words are separated by spaces");
        split_is("  ssh\t-T  host  ", "ssh|-T|host", "runs of blanks and tabs separate, leading and trailing ones vanish");
        split_is("env \"A B=1\" x", "env|A B=1|x", "double quotes keep spaces in one word");
        split_is("sh -c 'echo \"$HOME\" | cat'", "sh|-c|echo \"$HOME\" | cat",
                 "single quotes keep everything literally: no variables, no pipes");
        split_is("a\\ b c\\'d", "a b|c'd", "a backslash outside quotes keeps the next character");
        split_is("\"x \\\"y\\\" \\\\ \\n\"", "x \"y\" \\ \\n",
                 "inside double quotes only \\\" and \\\\ are escapes; other backslashes stay");
        split_is("'' \"\" x", "||x", "empty quotes are empty words");
        split_is("pre'mid dle'\"post\"fix", "premid dlepostfix", "quoted parts join the word around them");
        split_is("$(rm -rf /) `id` *; &&", "$(rm|-rf|/)|`id`|*;|&&", "shell syntax is only text");

        split_fails("", -ENODATA, "an empty line has no words");
        split_fails("   \t ", -ENODATA, "a blank line has no words");
        split_fails("podman exec 'agent", -EBADMSG, "an unterminated single quote is refused");
        split_fails("ssh \"host", -EBADMSG, "an unterminated double quote is refused");
        split_fails("ssh \"ho\\\"", -EBADMSG, "an escaped closing quote leaves the quote open");
        split_fails("ssh host\\", -EINVAL, "a backslash at the end is refused");
}

static void test_without(void) {
        char *args[] = { (char *) "work", (char *) "--force", (char *) "-q", (char *) "--", (char *) "--force", NULL };
        char *drop[] = { (char *) "--force", (char *) "-f", NULL };
        _cleanup_strv_free_ char **left = NULL;
        _cleanup_free_ char *got = NULL;

        TAP_EQ_INT(argv_without(args, drop, &left), 0, "argv_without makes a new list");
        got = joined(left);
        TAP_EQ_STR(got, "work|-q|--|--force", "...without the dropped words before \"--\", and with every word after it");
}

static void test_join_quoted(void) {
        _cleanup_strv_free_ char **back = NULL;
        _cleanup_free_ char *q = NULL, *got = NULL;
        char *argv[] = { (char *) "podman", (char *) "exec", (char *) "a b", (char *) "it's", (char *) "", NULL };

        q = argv_join_quoted(argv);
        TAP_EQ_STR(q, "podman exec 'a b' 'it'\\''s' ''", "argv_join_quoted quotes only the words that need it");
        tap_ok(q && argv_split(q, &back) == 0, "argv_join_quoted's output splits again");
        got = joined(back);
        TAP_EQ_STR(got, "podman|exec|a b|it's|", "...into the same words (a prefix shown in a message is the one used)");
}

static void test_config(void) {
        struct bd_config c = {};
        struct config_errors e = {};
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *got = NULL;
        int r;

        r = config_load_string(&c, "work", "[profile.work]\nplacement = exec\nexec = podman exec -i 'agent 42'\n",
                               "t.ini", false, &e);
        tap_ok(r == 0 && c.placement == PLACEMENT_EXEC && c.exec && argv_split(c.exec, &argv) == 0,
               "placement = exec with exec = ARGV... is read from the profile's section");
        got = joined(argv);
        TAP_EQ_STR(got, "podman|exec|-i|agent 42", "the exec prefix is an argv with its quoting honoured");
        config_done(&c);
        config_errors_done(&e);

        r = config_load_string(&c, "other", "[profile.work]\nplacement = exec\nexec = ssh h\n", "t.ini", false, &e);
        tap_ok(r == 0 && c.placement == PLACEMENT_HOST && !c.exec, "another profile's placement does not apply");
        config_done(&c);
        config_errors_done(&e);

        r = config_load_string(&c, "work", "[profile.work]\nplacement = exec\nexec = ssh h\n", "u.ini", true, &e);
        tap_ok(r == 0 && c.placement == PLACEMENT_EXEC, "the user file may place its own profiles");
        config_done(&c);
        config_errors_done(&e);

        r = config_load_string(&c, "work", "[placement]\ndefault = podman\nimage = registry.example/desk:1\n", "t.ini", false, &e);
        tap_ok(r == 0 && c.placement == PLACEMENT_PODMAN && streq_ptr(c.image, "registry.example/desk:1"),
               "[placement] default and image apply to every profile");
        config_done(&c);
        config_errors_done(&e);
        r = config_load_string(&c, "work", "[placement]\ndefault = podman\n[profile.work]\nplacement = host\n", "t.ini", false, &e);
        tap_ok(r == 0 && c.placement == PLACEMENT_HOST, "a profile's own placement wins over [placement] default");
        config_done(&c);
        config_errors_done(&e);
        r = config_load_string(&c, "work", "", "t.ini", false, &e);
        tap_ok(r == 0 && c.placement == PLACEMENT_HOST && streq_ptr(c.image, "localhost/botdesk:latest"),
               "by default: host, and the image scripts/build-image.sh builds");
        config_done(&c);
        config_errors_done(&e);

        static const struct {
                const char *text;
                unsigned line;
                const char *needle;
                const char *name;
        } bad[] = {
                { "[profile.w]\nexec =\n", 2, "exec = : empty", "an empty exec = is an error on its line" },
                { "[profile.w]\nexec = podman exec 'x\n", 2, "unterminated quote", "an unterminated quote is an error on its line" },
                { "[profile.w]\nexec = a\\ ; the comment goes, the backslash stays last\n", 2, "ends with a backslash",
                  "a trailing backslash is an error on its line" },
                { "[profile.w]\n\nplacement = exec\n", 3, "no exec prefix", "placement = exec without exec is an error" },
                { "[profile.w]\nplacement = lxc\nexec = a\n", 2, "allowed: host, exec, podman, docker or refuse",
                  "an unknown placement is an error" },
                { "[placement]\nimage = botdesk;rm\n", 2, "not an image reference", "an image with a shell metacharacter is an error" },
                { "[placement]\nimage = -botdesk\n", 2, "not an image reference", "an image that reads as an option is an error" },
                { "[profile.w]\nimage = a b\n", 2, "not an image reference", "so is one with a blank, in a profile too" },
                { "[profile.w]\ndefault = podman\n", 2, "default", "[placement] default is not a profile's key" },
                { "[placement]\ndefault = exec\n", 2, "an exec prefix is one profile's", "[placement] default = exec is an error" },
                { "[session]\nexec = a\n", 2, "only allowed in [profile.NAME]", "exec outside a profile section is an error" },
                { "[session]\nplacement = exec\n", 2, "only allowed in [profile.NAME]",
                  "placement outside a profile section is an error" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                bool found = false;

                r = config_load_string(&c, "w", bad[i].text, "t.ini", false, &e);
                for (size_t k = 0; k < e.n; k++)
                        found = found || (e.items[k].line == bad[i].line && strstr(e.items[k].message, bad[i].needle));
                if (!tap_ok(r == -EINVAL && e.n == 1 && found, "%s", bad[i].name))
                        for (size_t k = 0; k < e.n; k++)
                                printf("#   %s:%u: %s\n", e.items[k].file, e.items[k].line, e.items[k].message);
                config_done(&c);
                config_errors_done(&e);
        }
}

static void test_owner_codec(void) {
        char *argv[] = { (char *) "podman", (char *) "exec", (char *) "-i", (char *) "a b", (char *) "", NULL };
        struct owner o = { .argv = argv, .container_id = (char *) "0123abc" }, back = {};
        _cleanup_free_ char *data = NULL, *got = NULL;
        size_t size = 0;

        tap_ok(owner_encode(&o, &data, &size) == 0, "an owner record encodes");
        tap_ok(owner_decode(data, size, &back) == 0, "and decodes");
        got = joined(back.argv);
        TAP_EQ_STR(got, "podman|exec|-i|a b|", "the prefix comes back word for word, empty words and spaces included");
        TAP_EQ_STR(back.container_id, "0123abc", "the container id comes back");
        owner_done(&back);

        o.container_id = NULL;
        free(data);
        data = NULL;
        tap_ok(owner_encode(&o, &data, &size) == 0 && owner_decode(data, size, &back) == 0 && !back.container_id,
               "a record without a container id reads back without one");
        owner_done(&back);

        for (size_t cut = 0; cut < size; cut++)
                if (owner_decode(data, cut, &back) != -EBADMSG) {
                        tap_ok(false, "a torn record (cut at %zu of %zu bytes) is refused", cut, size);
                        owner_done(&back);
                        goto torn_done;
                }
        tap_ok(true, "a torn record, cut at any byte, is refused");
torn_done:
        tap_ok(owner_decode("botdesk-owner 1\0" "0\0" "\0", 19, &back) == -EBADMSG, "a record without words is refused");
        tap_ok(owner_decode("botdesk-owner 2\0" "1\0" "a\0\0", 21, &back) == -EBADMSG, "a record of another version is refused");
        tap_ok(owner_decode("botdesk-owner 1\0" "1\0" "a\0\0x", 22, &back) == -EBADMSG, "trailing bytes are refused");
        {
                struct owner empty = {};
                _cleanup_free_ char *d = NULL;
                size_t n;
                tap_ok(owner_encode(&empty, &d, &n) == -EINVAL, "an owner without a prefix is not written");
        }
}

static void test_owner_file(void) {
        char dir[] = "/tmp/test-placement.XXXXXX";
        char *argv[] = { (char *) "ssh", (char *) "-T", (char *) "agent@10.0.0.5", NULL };
        struct owner o = { .argv = argv }, back = {};
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *got = NULL;
        struct stat st;

        if (!mkdtemp(dir))
                abort();
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        TAP_EQ_INT(owner_read_at(fd, &back), -ENOENT, "no record reads as -ENOENT");
        tap_ok(owner_write_at(fd, &o) == 0, "a record is written");
        tap_ok(fstatat(fd, OWNER_FILE, &st, 0) == 0 && (st.st_mode & 07777) == 0600 && S_ISREG(st.st_mode),
               "the record is a regular file of mode 0600");
        tap_ok(owner_read_at(fd, &back) == 0, "the record reads back");
        got = joined(back.argv);
        TAP_EQ_STR(got, "ssh|-T|agent@10.0.0.5", "with its prefix");
        owner_done(&back);
        tap_ok(owner_remove_at(fd) == 0 && owner_read_at(fd, &back) == -ENOENT, "a removed record is gone");
        tap_ok(owner_remove_at(fd) == 0, "removing a missing record is not an error");

        tap_ok(symlinkat("/etc/passwd", fd, OWNER_FILE) == 0 && owner_read_at(fd, &back) < 0,
               "a symlink planted as the record is not followed");
        (void) unlinkat(fd, OWNER_FILE, 0);
        tap_ok(mkfifoat(fd, OWNER_FILE, 0600) == 0 && owner_read_at(fd, &back) < 0,
               "a FIFO planted as the record neither hangs nor reads");
        (void) unlinkat(fd, OWNER_FILE, 0);
        {
                int w = openat(fd, OWNER_FILE, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
                tap_ok(w >= 0 && write(w, "botdesk-owner 1\0" "2\0" "a\0", 20) == 20 && owner_read_at(fd, &back) == -EBADMSG,
                       "a half-written record reads as -EBADMSG, never as a prefix");
                safe_close(w);
        }
        (void) unlinkat(fd, OWNER_FILE, 0);
        (void) rmdir(dir);
}

static void test_decide(void) {
        char *rec_argv[] = { (char *) "podman", (char *) "exec", (char *) "-i", (char *) "old", NULL };
        char *same_argv[] = { (char *) "ssh", (char *) "-T", (char *) "new host", NULL };
        char *shorter_argv[] = { (char *) "ssh", (char *) "-T", NULL };
        char *longer_argv[] = { (char *) "ssh", (char *) "-T", (char *) "new host", (char *) "-c", NULL };
        char *joined_argv[] = { (char *) "ssh", (char *) "-T new host", NULL };
        struct owner rec = { .argv = rec_argv }, same = { .argv = same_argv }, shorter = { .argv = shorter_argv },
                     longer = { .argv = longer_argv }, glued = { .argv = joined_argv };
        struct bd_config host = {}, exec = {};
        _cleanup_strv_free_ char **a = NULL, **b = NULL, **c = NULL, **d = NULL, **e = NULL, **f = NULL;
        _cleanup_free_ char *ja = NULL, *je = NULL;

        config_defaults(&host);
        config_defaults(&exec);
        exec.placement = PLACEMENT_EXEC;
        exec.exec = strdup("ssh -T 'new host'");

        TAP_EQ_INT(owner_decide(NULL, &host, "work", &d), OWNER_HOST, "no record, placement = host: the verb runs here");
        tap_ok(d == NULL, "...and no prefix is returned");
        TAP_EQ_INT(owner_decide(NULL, &exec, "work", &a), OWNER_SETTING, "no record, placement = exec: the setting's prefix");
        ja = joined(a);
        TAP_EQ_STR(ja, "ssh|-T|new host", "...split into its words");
        TAP_EQ_INT(owner_decide(&same, &exec, "work", &e), OWNER_RECORD, "a record that is the setting's prefix is followed");
        je = joined(e);
        TAP_EQ_STR(je, "ssh|-T|new host", "...through the setting's words");
        /* The runtime dir is writable from inside the desktop: a record is never a command of its own. */
        TAP_EQ_INT(owner_decide(&rec, &exec, "work", &b), -OWNER_MISMATCH,
                   "a record of another prefix than the setting's is refused, never run");
        tap_ok(b == NULL, "...and no prefix is returned");
        TAP_EQ_INT(owner_decide(&rec, &host, "work", &c), -OWNER_MISMATCH,
                   "a record while placement = host is refused: neither run nor read as the host's desktop");
        tap_ok(c == NULL, "...and no prefix is returned");
        TAP_EQ_INT(owner_decide(&shorter, &exec, "work", &f), -OWNER_MISMATCH, "a record of the setting's first words only is refused");
        TAP_EQ_INT(owner_decide(&longer, &exec, "work", &f), -OWNER_MISMATCH, "a record of the setting's words and more is refused");
        TAP_EQ_INT(owner_decide(&glued, &exec, "work", &f), -OWNER_MISMATCH,
                   "a record of the same text in other words is refused: words, not text, are compared");
        tap_ok(f == NULL, "...and none returns a prefix");
        config_done(&host);
        config_done(&exec);
}

/* placement = podman: the prefix is the container botdesk makes for the profile and this uid. */
static void test_decide_container(void) {
        struct bd_config podman = {}, docker = {}, refuse = {};
        _cleanup_strv_free_ char **a = NULL, **b = NULL, **c = NULL;
        _cleanup_free_ char *ja = NULL, *jb = NULL, *want = NULL, *name = NULL;
        struct owner rec = {};

        config_defaults(&podman);
        config_defaults(&docker);
        config_defaults(&refuse);
        podman.placement = PLACEMENT_PODMAN;
        docker.placement = PLACEMENT_DOCKER;
        refuse.placement = PLACEMENT_REFUSE;
        name = placement_container_name("work");
        want = strdup_printf("botdesk-%u-work", (unsigned) getuid());
        TAP_EQ_STR(name, want, "the container of profile work is botdesk-UID-work");
        TAP_EQ_INT(owner_decide(NULL, &podman, "work", &a), OWNER_SETTING, "no record, placement = podman: the setting's prefix");
        ja = joined(a);
        free(want);
        want = strdup_printf("podman|exec|-i|botdesk-%u-work", (unsigned) getuid());
        TAP_EQ_STR(ja, want, "...podman exec -i into that container");
        rec.argv = a;
        TAP_EQ_INT(owner_decide(&rec, &podman, "work", &b), OWNER_RECORD, "its record is followed");
        TAP_EQ_INT(owner_decide(&rec, &docker, "work", &c), -OWNER_MISMATCH,
                   "the same record once the setting says docker is refused: another engine's container");
        strv_free(b);
        b = NULL;
        TAP_EQ_INT(owner_decide(&rec, &podman, "other", &b), -OWNER_MISMATCH, "and so is it for another profile");
        TAP_EQ_INT(owner_decide(NULL, &refuse, "work", &c), OWNER_HOST, "placement = refuse names no prefix");
        jb = joined(c);
        tap_ok(!c, "...and returns none");
        TAP_EQ_STR(placement_kind_name(&podman), "container:podman", "status's placement_kind of podman");
        TAP_EQ_STR(placement_kind_name(&refuse), "refused", "...and of refuse");
        tap_ok(placement_elsewhere(&docker) && !placement_elsewhere(&refuse), "docker is elsewhere, refuse is not");
        config_done(&podman);
        config_done(&docker);
        config_done(&refuse);
}

int main(void) {
        test_argv_split();
        test_join_quoted();
        test_without();
        test_config();
        test_owner_codec();
        test_owner_file();
        test_decide();
        test_decide_container();
        return tap_done();
}
