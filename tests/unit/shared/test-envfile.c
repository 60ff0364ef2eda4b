/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tap.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "envfile.h"
#include "util.h"

/* Parses a string literal (its size includes embedded NULs) and joins the
 * result with '|' so one comparison shows the whole list. */
#define PARSE(lit, ret, line) envfile_parse((lit), sizeof(lit) - 1, (ret), (line))

static char *joined(char *const *l) {
        size_t n = 1;
        char *s, *w;

        if (!l)
                return strdup("(null)");
        for (char *const *i = l; *i; i++)
                n += strlen(*i) + 1;
        s = w = malloc(n);
        if (!s)
                abort();
        *w = 0;
        for (char *const *i = l; *i; i++) {
                if (i != l)
                        *w++ = '|';
                w = stpcpy(w, *i);
        }
        return s;
}

static void check_parse(const char *text, size_t size, const char *want, const char *name) {
        _cleanup_strv_free_ char **env = NULL;
        _cleanup_free_ char *got = NULL;
        unsigned line = 99;
        int r;

        r = envfile_parse(text, size, &env, &line);
        if (!tap_ok(r == 0 && line == 0, "%s", name)) {
                printf("#   envfile_parse returned %d at line %u\n", r, line);
                return;
        }
        got = joined(env);
        if (!streq(got, want))
                printf("#   parsed \"%s\", want \"%s\"\n", got, want);
        tap_ok(streq(got, want), "%s (content)", name);
}

#define CHECK_PARSE(lit, want, name) check_parse((lit), sizeof(lit) - 1, (want), (name))

static void check_bad(const char *text, size_t size, unsigned want_line, const char *name) {
        char **env = NULL;
        unsigned line = 0;
        int r;

        r = envfile_parse(text, size, &env, &line);
        if (!tap_ok(r == -EBADMSG && line == want_line && !env, "%s", name))
                printf("#   got %d at line %u, want -EBADMSG at line %u\n", r, line, want_line);
        strv_free(env);
}

#define CHECK_BAD(lit, line, name) check_bad((lit), sizeof(lit) - 1, (line), (name))

static void test_parse(void) {
        CHECK_PARSE("DISPLAY=:20\nXAUTHORITY=/run/user/1000/botdesk/work/Xauthority\n",
                    "DISPLAY=:20|XAUTHORITY=/run/user/1000/botdesk/work/Xauthority",
                    "plain KEY=VALUE lines parse in order");
        CHECK_PARSE("\xEF\xBB\xBF" "A=1\n", "A=1", "a UTF-8 BOM at the start is not part of the first key");
        CHECK_PARSE("A=1\r\nB=2\r\n", "A=1|B=2", "CRLF line ends leave no CR in the values");
        CHECK_PARSE("\n\nA=1\n   \n\t\nB=2\n\n", "A=1|B=2", "blank and whitespace-only lines are skipped");
        CHECK_PARSE("# published by botdesk\nA=1\n#B=2\n", "A=1", "lines starting with # are comments");
        CHECK_PARSE("DBUS_SESSION_BUS_ADDRESS=unix:path=/run/x,guid=ab=\n",
                    "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/x,guid=ab=", "'=' inside a value is kept");
        CHECK_PARSE("A=b=c\n", "A=b=c", "A=b=c has the value b=c");
        CHECK_PARSE("EMPTY=\nB=2", "EMPTY=|B=2", "an empty value is allowed");
        CHECK_PARSE("A=1\nB=last", "A=1|B=last", "the last line may lack its newline");
        CHECK_PARSE("A=1\nB=2\nA=3\n", "A=3|B=2", "a later duplicate key replaces the earlier value in place");
        CHECK_PARSE("A= spaced value \n", "A= spaced value ", "values are not trimmed or unquoted");
        CHECK_PARSE("A='q'\n", "A='q'", "quotes are part of the value: the format has no quoting");
        CHECK_PARSE("", "", "an empty file is an empty list");
        CHECK_PARSE("\xEF\xBB\xBF", "", "a file holding only a BOM is an empty list");
        CHECK_PARSE("_x9=\xc3\xa9t\xc3\xa9\n", "_x9=\xc3\xa9t\xc3\xa9", "UTF-8 in values passes through");
}

static void test_parse_errors(void) {
        CHECK_BAD("# c\n\nA=1\n1BAD=2\n", 4, "a key starting with a digit is refused with its line number");
        CHECK_BAD("A=1\nno equals sign\n", 2, "a line without '=' is refused with its line number");
        CHECK_BAD("=value\n", 1, "an empty key is refused");
        CHECK_BAD(" A=1\n", 1, "leading whitespace makes the key invalid");
        CHECK_BAD("A-B=1\n", 1, "a '-' in a key is refused");
        CHECK_BAD("A=1\nB=x\0y\n", 2, "a NUL byte inside the text is refused");
        CHECK_BAD("A=1\r\nB=x\ry\r\n", 2, "a CR inside a value is refused: it could not be written back");
        CHECK_BAD("\xEF\xBB\xBF" "A=1\r\n\r\nK\xc3\xa9Y=1\r\n", 3,
                  "line numbers count from 1 after a BOM and through CRLF and blank lines");
        CHECK_BAD("A=1\n\xEF\xBB\xBF" "B=2\n", 2, "a BOM is only tolerated at the very start");
}

static void test_key_valid(void) {
        tap_ok(env_key_valid("DISPLAY"), "DISPLAY is a valid key");
        tap_ok(env_key_valid("_a1"), "a key may start with '_' and hold digits after the first character");
        tap_ok(!env_key_valid("1A"), "a key may not start with a digit");
        tap_ok(!env_key_valid(""), "the empty key is invalid");
        tap_ok(!env_key_valid("A B"), "a key may not hold a space");
        tap_ok(!env_key_valid("A=B"), "a key may not hold '='");
        tap_ok(!env_key_valid(NULL), "NULL is not a key");
}

static void test_format(void) {
        char *env_ok[] = { "A=1", "B=x=y", "EMPTY=", "S= it's \"quoted\" ", NULL };
        char *env_nl[] = { "A=1", "B=two\nlines", NULL };
        char *env_cr[] = { "B=cr\r", NULL };
        char *env_badkey[] = { "1A=x", NULL };
        char *env_noeq[] = { "JUSTKEY", NULL };
        char *env_empty[] = { NULL };
        _cleanup_free_ char *s = NULL, *e = NULL;
        char *junk = NULL;
        _cleanup_strv_free_ char **back = NULL;
        _cleanup_free_ char *a = NULL, *b = NULL;

        TAP_EQ_INT(envfile_format(env_ok, &s), 0, "a valid list is formatted");
        TAP_EQ_STR(s, "A=1\nB=x=y\nEMPTY=\nS= it's \"quoted\" \n", "format writes one KEY=VALUE line each, unquoted");
        TAP_EQ_INT(s ? envfile_parse(s, strlen(s), &back, NULL) : -1, 0, "formatted text parses");
        a = joined(env_ok);
        b = joined(back);
        TAP_EQ_STR(b, a, "format then parse gives back the same list");

        TAP_EQ_INT(envfile_format(env_nl, &junk), -EINVAL, "format refuses a newline in a value");
        TAP_EQ_INT(envfile_format(env_cr, &junk), -EINVAL, "format refuses a CR in a value");
        TAP_EQ_INT(envfile_format(env_badkey, &junk), -EINVAL, "format refuses an invalid key");
        TAP_EQ_INT(envfile_format(env_noeq, &junk), -EINVAL, "format refuses an entry without '='");
        tap_ok(!junk, "a refused format hands nothing out");
        TAP_EQ_INT(envfile_format(env_empty, &e), 0, "an empty list is formatted");
        TAP_EQ_STR(e, "", "an empty list formats as an empty file");
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st, (void) flag, (void) ftw;
        return remove(p);
}

static void test_files(void) {
        char dir[] = "/tmp/test-envfile.XXXXXX";
        char *env[] = { "DISPLAY=:21", "XAUTHORITY=/run/user/0/botdesk/w/Xauthority", NULL };
        _cleanup_strv_free_ char **back = NULL, **nul = NULL, **big = NULL;
        _cleanup_free_ char *path = NULL, *a = NULL, *b = NULL, *bigpath = NULL, *nulpath = NULL;
        _cleanup_close_ int dfd = -EBADF;
        struct stat st;
        FILE *f;

        if (!mkdtemp(dir)) {
                tap_ok(0, "mkdtemp for the env file tests");
                return;
        }
        dfd = open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
        path = strdup_printf("%s/env", dir);

        /* A umask must not loosen or tighten what the file ends up with. */
        umask(0);
        TAP_EQ_INT(envfile_write_at(dfd, "env", env), 0, "envfile_write_at writes the file");
        umask(022);
        TAP_EQ_INT(stat(path, &st) == 0 ? (int) (st.st_mode & 07777) : -1, 0600, "the env file is written 0600");
        TAP_EQ_INT(envfile_read(path, &back), 0, "the written file reads back");
        a = joined(env);
        b = joined(back);
        TAP_EQ_STR(b, a, "write then read gives back the same variables");

        {
                char *bad[] = { "A=x\ny", NULL };
                TAP_EQ_INT(envfile_write_at(dfd, "env", bad), -EINVAL, "an unwritable value is refused before writing");
                strv_free(back);
                back = NULL;
                (void) envfile_read(path, &back);
                free(b);
                b = joined(back);
                TAP_EQ_STR(b, a, "a refused write leaves the previous file intact");
        }

        nulpath = strdup_printf("%s/nul", dir);
        f = fopen(nulpath, "we");
        fwrite("A=1\0B=2\n", 1, 8, f);
        fclose(f);
        TAP_EQ_INT(envfile_read(nulpath, &nul), -EBADMSG, "a file with a NUL byte is refused");

        bigpath = strdup_printf("%s/big", dir);
        f = fopen(bigpath, "we");
        for (int i = 0; i < 7000; i++)
                fprintf(f, "K%05d=xx\n", i); /* 10 bytes a line: 70000 bytes */
        fclose(f);
        TAP_EQ_INT(envfile_read(bigpath, &big), -EFBIG, "a file larger than 64 KiB is refused");

        TAP_EQ_INT(envfile_read("/nonexistent/botdesk/env", &big), -ENOENT, "a missing file is -ENOENT");

        (void) nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* What a POSIX shell makes of `export X=<quoted>`. */
static char *shell_roundtrip(const char *quoted) {
        char buf[4096];
        size_t n;
        FILE *p;

        if (setenv("Q", quoted, 1) < 0)
                return NULL;
        p = popen("sh -c 'eval \"export X=$Q\"; printf %s \"$X\"'", "re");
        if (!p)
                return NULL;
        n = fread(buf, 1, sizeof buf - 1, p);
        buf[n] = 0;
        if (pclose(p) != 0)
                return NULL;
        return strdup(buf);
}

static void test_shell_quote(void) {
        static const struct {
                const char *what, *value;
        } cases[] = {
                { "a plain word", "plain" },
                { "the empty string", "" },
                { "spaces and tabs", "with spaces  and\ttabs" },
                { "an apostrophe", "it's" },
                { "a lone single quote", "'" },
                { "a run of single quotes", "''''" },
                { "double and single quotes", "\"double\" and 'single'" },
                { "expansions, globs and metacharacters", "$HOME `id` $(id) \\n \\ ; & | < > * ? [a] ~ #" },
                { "a newline", "line\nbreak" },
                { "an already escaped quote", "'\\''" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *q = shell_quote(cases[i].value), *back = NULL;

                back = q ? shell_roundtrip(q) : NULL;
                TAP_EQ_STR(back, cases[i].value, "sh reads a shell-quoted value with %s back unchanged",
                           cases[i].what);
        }
        {
                _cleanup_free_ char *q = shell_quote("it's");
                TAP_EQ_STR(q, "'it'\\''s'", "a single quote is written as '\\''");
        }
        tap_ok(!shell_quote(NULL), "shell_quote(NULL) is NULL");
}

int main(void) {
        test_parse();
        test_parse_errors();
        test_key_valid();
        test_format();
        test_files();
        test_shell_quote();
        return tap_done();
}
