/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "tap.h"

int main(void) {
        char value[64];
        struct stat st, other;
        int fd;

        fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0 || stat("/", &other) < 0) {
                printf("Bail out! cannot stat /dev/null and /\n");
                return 1;
        }
        snprintf(value, sizeof value, "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
        tap_ok(journal_stream_matches(value, &st), "JOURNAL_STREAM naming stderr's device and inode is the journal");
        tap_ok(!journal_stream_matches(value, &other),
               "JOURNAL_STREAM inherited by a process whose stderr is another file is not the journal");
        snprintf(value, sizeof value, "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino + 1);
        tap_ok(!journal_stream_matches(value, &st), "another inode on the same device is not the journal");
        tap_ok(!journal_stream_matches(NULL, &st), "no JOURNAL_STREAM is not the journal");
        tap_ok(!journal_stream_matches("", &st), "an empty JOURNAL_STREAM is not the journal");
        tap_ok(!journal_stream_matches("12345", &st), "a value without a colon is not the journal");
        tap_ok(!journal_stream_matches("x:1", &st), "a device that is not a number is not the journal");
        snprintf(value, sizeof value, "%llu:%llux", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
        tap_ok(!journal_stream_matches(value, &st), "trailing garbage after the inode is not the journal");
        close(fd);
        return tap_done();
}
