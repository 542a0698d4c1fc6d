#ifndef FLOWRUN_IMAGEFIXTURES_H
#define FLOWRUN_IMAGEFIXTURES_H

#include <stdint.h>

/// Test images written with libpng and libjpeg themselves, in the formats flowrun must read.
/// Each returns 0, or -1 when the file could not be written or libpng/libjpeg refused.

/// `rows`: `height` rows of packed samples exactly as the PNG stores them (16-bit samples big
/// endian, sub-byte samples packed from the high bit). `palette` (RGB triples) and
/// `transparency` (palette alphas) are for colour type 3; `transparent_grey_or_rgb`, if not
/// NULL, is a tRNS colour for types 0 and 2 (one or three samples).
int fixture_write_png(const char *path, uint32_t width, uint32_t height, int bit_depth, int colour_type,
                      int interlaced, const unsigned char *rows, const unsigned char *palette, int palette_count,
                      const unsigned char *transparency, int transparency_count,
                      const uint16_t *transparent_grey_or_rgb);

/// `pixels`: RGB (components 3), grey (components 1) or CMYK (components 4) rows without padding.
int fixture_write_jpeg(const char *path, uint32_t width, uint32_t height, int components,
                       const unsigned char *pixels, int quality, int progressive);

/// Reads the PNG at `path` as 8-bit RGBA with libpng's simplified API (independent of the
/// decoder under test) into `*pixels` (malloc'd: free it). Returns 0, or -1.
int fixture_read_png(const char *path, uint32_t *width, uint32_t *height, int *channels_in_file,
                     unsigned char **pixels);

#endif
