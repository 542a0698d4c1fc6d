// The decode thread before the check (no CRC-32 or ISIZE check): libarchive's raw format with the gzip filter, archive_read_data into a 256 KiB buffer.
#include <archive.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    struct archive *a = archive_read_new();
    archive_read_support_filter_all(a); archive_read_support_format_raw(a);
    if (archive_read_open_filename(a, argv[1], 64 * 1024) != ARCHIVE_OK) return 2;
    struct archive_entry *e; if (archive_read_next_header(a, &e) != ARCHIVE_OK) return 3;
    char *buf = malloc(256 * 1024); long long total = 0; la_ssize_t n;
    while ((n = archive_read_data(a, buf, 256 * 1024)) > 0) total += n;
    printf("%lld %ld\n", total, (long)n); archive_read_free(a); return n < 0;
}
