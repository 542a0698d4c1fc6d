#ifndef FLOWRUN_IMAGECODEC_H
#define FLOWRUN_IMAGECODEC_H

#include <stddef.h>
#include <stdint.h>

/// libpng and libjpeg report errors by longjmp, which must not cross Swift frames: these
/// functions keep every setjmp and longjmp inside C and return an error message instead.

/// A decoded image: `width * height` pixels of 8-bit RGBA, straight (not premultiplied) alpha,
/// rows top to bottom with no padding. `pixels` comes from malloc: free it with
/// `flowrun_image_free`.
typedef struct {
    uint32_t width;
    uint32_t height;
    unsigned char *pixels;
} flowrun_image;

/// Decodes the PNG or JPEG (told apart by their signatures) at `path` into `*image`. Every
/// PNG colour type and bit depth, interlaced or not (16-bit samples are rounded to 8), and
/// baseline or progressive JPEG. An image whose header claims more than `max_pixels` pixels is
/// refused before any pixel is decoded. A corrupt or truncated file is an error, also where
/// libjpeg would only warn (a premature end, a bad Huffman code).
/// With `header_only`, reads only the header: sets the size and leaves `pixels` NULL. A JPEG
/// that will be shrunk to fit `fit_width` by `fit_height` (0: no hint) is decoded at 1/2, 1/4
/// or 1/8 of its size (in the DCT, cheaply) where that still leaves it at least the fitted size.
/// `should_stop` (if not NULL) is asked, with `stop_context`, every few rows (and by libjpeg's
/// progress monitor, through a progressive JPEG's passes): nonzero stops the decoding.
/// Returns 0; -1 with a message (NUL-terminated, truncated to `message_size`) in `message`; or
/// FLOWRUN_IMAGE_STOPPED when `should_stop` stopped it.
int flowrun_image_decode(const char *path, uint64_t max_pixels, int header_only, uint32_t fit_width,
                         uint32_t fit_height, int (*should_stop)(void *), void *stop_context, flowrun_image *image,
                         char *message, size_t message_size);

#define FLOWRUN_IMAGE_STOPPED (-2)

/// Where `flowrun_image_read` sends the pixels: the decoded size first, then each row of
/// 8-bit RGBA (straight alpha), top to bottom. A nonzero return stops the decoding.
typedef struct {
    int (*begin)(void *context, uint32_t width, uint32_t height);
    int (*row)(void *context, uint32_t y, const unsigned char *pixels);
    void *context;
} flowrun_row_sink;

/// As `flowrun_image_decode`, but row by row into `sink`, holding one row at a time (an
/// interlaced PNG, whose rows come in passes, is held whole). A stop by the sink returns
/// FLOWRUN_IMAGE_STOPPED, as a stop by `should_stop` does.
int flowrun_image_read(const char *path, uint64_t max_pixels, uint32_t fit_width, uint32_t fit_height,
                       int (*should_stop)(void *), void *stop_context, flowrun_row_sink sink,
                       char *message, size_t message_size);

void flowrun_image_free(flowrun_image *image);

/// Writes `pixels` (`channels` 3: RGB or 4: RGBA, 8-bit, rows without padding) as a PNG to the
/// open descriptor `fd`. `should_stop` as for decoding. Returns 0, -1 with a message (a failed
/// write names its errno), or FLOWRUN_IMAGE_STOPPED.
int flowrun_png_encode(int fd, uint32_t width, uint32_t height, int channels, const unsigned char *pixels,
                       int (*should_stop)(void *), void *stop_context, char *message, size_t message_size);

#endif
