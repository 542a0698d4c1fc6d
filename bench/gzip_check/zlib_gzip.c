// The decode thread with the check (GzipInflater): the file's bytes through libarchive's raw format without filters, zlib inflate (15+16, checks CRC-32 and ISIZE) member by member into a 256 KiB buffer.
#include <archive.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    struct archive *a = archive_read_new();
    archive_read_support_format_raw(a);
    if (archive_read_open_filename(a, argv[1], 64 * 1024) != ARCHIVE_OK) return 2;
    struct archive_entry *e; if (archive_read_next_header(a, &e) != ARCHIVE_OK) return 3;
    z_stream s = {0}; inflateInit2(&s, 31);
    char *buf = malloc(256 * 1024); long long total = 0; int in_member = 0;
    for (;;) {
        s.next_out = (Bytef *)buf; s.avail_out = 256 * 1024;
        while (s.avail_out > 0) {
            if (s.avail_in == 0) {
                const void *b; size_t size; la_int64_t off;
                int r = archive_read_data_block(a, &b, &size, &off);
                if (r == ARCHIVE_EOF) { if (in_member) return 4; goto done; }
                s.next_in = (Bytef *)b; s.avail_in = size;
            }
            if (!in_member) { if (*s.next_in == 0) { s.next_in++; s.avail_in--; continue; } in_member = 1; }
            int r = inflate(&s, Z_NO_FLUSH);
            if (r == Z_STREAM_END) { in_member = 0; inflateReset(&s); }
            else if (r != Z_OK && r != Z_BUF_ERROR) { fprintf(stderr, "%s\n", s.msg); return 5; }
        }
        total += 256 * 1024 - s.avail_out;
    }
done:
    total += 256 * 1024 - s.avail_out;
    printf("%lld\n", total); return 0;
}
