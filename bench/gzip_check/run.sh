#!/bin/sh
# Instructions (callgrind) of the decode thread's work on one .gz, with and without the gzip
# trailer check: libarchive's gzip filter (no check), zlib inflating gzip (checks CRC-32 and
# ISIZE: what GzipInflater does), and raw inflate with libdeflate's CRC-32 (a cheaper check,
# not taken yet). Usage: bench/gzip_check/run.sh FILE.gz  (needs gcc, valgrind, libdeflate-dev)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/libarchive_gzip" "$here/libarchive_gzip.c" -larchive
gcc -O2 -o "$work/zlib_gzip" "$here/zlib_gzip.c" -larchive -lz
gcc -O2 -o "$work/zlib_raw_libdeflate_crc" "$here/zlib_raw_libdeflate_crc.c" -larchive -lz -ldeflate
for program in libarchive_gzip zlib_gzip zlib_raw_libdeflate_crc; do
    refs=$(valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$work/$program" "$1" 2>&1 >/dev/null | sed -n 's/.*refs: *//p')
    echo "$program: $refs instructions"
done
