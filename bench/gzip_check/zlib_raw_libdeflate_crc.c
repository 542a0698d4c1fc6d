// The cheaper check not taken yet (a follow-up), for its cost: raw inflate (-15, no check in zlib) into the 256 KiB buffer, CRC-32 by libdeflate (PCLMUL) over the output, trailer compared.
#include <archive.h>
#include <zlib.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    struct archive *a = archive_read_new();
    archive_read_support_format_raw(a);
    if (archive_read_open_filename(a, argv[1], 64 * 1024) != ARCHIVE_OK) return 2;
    struct archive_entry *e; if (archive_read_next_header(a, &e) != ARCHIVE_OK) return 3;
    z_stream s = {0}; inflateInit2(&s, -15);
    char *buf = malloc(256 * 1024); unsigned crc = 0; long long total = 0; int first = 1, end = 0;
    unsigned char tail[8]; int have = 0;
    while (!end) {
        const void *b; size_t size; la_int64_t off;
        if (archive_read_data_block(a, &b, &size, &off) != ARCHIVE_OK) return 4;
        const unsigned char *p = b;
        if (first) { first = 0; size_t h = 10; if (p[3] & 8) { while (p[h]) h++; h++; } p += h; size -= h; }
        s.next_in = (Bytef *)p; s.avail_in = size;
        while (s.avail_in > 0 && !end) {
            s.next_out = (Bytef *)buf; s.avail_out = 256 * 1024;
            int r = inflate(&s, Z_NO_FLUSH);
            size_t n = 256 * 1024 - s.avail_out; crc = libdeflate_crc32(crc, buf, n); total += n;
            if (r == Z_STREAM_END) { end = 1; memcpy(tail, s.next_in, s.avail_in >= 8 ? 8 : s.avail_in); have = s.avail_in; }
            else if (r != Z_OK && r != Z_BUF_ERROR) return 5;
        }
    }
    unsigned want = tail[0] | tail[1] << 8 | tail[2] << 16 | (unsigned)tail[3] << 24;
    printf("%lld %08x %08x %s\n", total, crc, want, crc == want ? "ok" : "BAD"); return crc != want;
}
