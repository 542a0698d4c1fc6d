#ifndef FLOWRUN_IMAGECODEC_H
#define FLOWRUN_IMAGECODEC_H

#include <stddef.h>
#include <stdint.h>

/// libpng and libjpeg report errors by longjmp, which must not cross Swift frames: these
/// functions keep every setjmp and longjmp inside C and return an error message instead.

/// Reads the size in the header of the PNG or JPEG (told apart by their signatures) at `path`
/// into `*width` and `*height`. An image whose header claims more than `max_pixels` pixels is
/// refused. Returns 0, or -1 with a message (NUL-terminated, truncated to `message_size`).
int flowrun_image_header(const char *path, uint64_t max_pixels, uint32_t *width, uint32_t *height,
                         char *message, size_t message_size);

#define FLOWRUN_IMAGE_STOPPED (-2)

/// Where `flowrun_image_read` sends the pixels: the decoded size first, then each row of
/// 8-bit RGBA (straight alpha), top to bottom. A nonzero return stops the decoding.
typedef struct {
    int (*begin)(void *context, uint32_t width, uint32_t height);
    int (*row)(void *context, uint32_t y, const unsigned char *pixels);
    void *context;
} flowrun_row_sink;

/// Decodes the PNG or JPEG at `path` into `sink`, row by row, holding one row at a time (an
/// interlaced PNG, whose rows come in passes, is held whole). Every PNG colour type and bit
/// depth, interlaced or not (16-bit samples are rounded to 8), and baseline or progressive
/// JPEG. An image whose header claims more than `max_pixels` pixels is refused before any
/// pixel is decoded. A corrupt or truncated file is an error, also where libjpeg would only
/// warn (a premature end, a bad Huffman code). A JPEG that will be shrunk to fit `fit_width`
/// by `fit_height` (0: no hint) is decoded at 1/2, 1/4 or 1/8 of its size (in the DCT,
/// cheaply) where that still leaves it at least the fitted size. `should_stop` (if not NULL)
/// is asked, with `stop_context`, every few rows (and by libjpeg's progress monitor, through a
/// progressive JPEG's passes): nonzero stops the decoding.
/// Returns 0; -1 with a message; or FLOWRUN_IMAGE_STOPPED when `should_stop` or the sink
/// stopped it.
int flowrun_image_read(const char *path, uint64_t max_pixels, uint32_t fit_width, uint32_t fit_height,
                       int (*should_stop)(void *), void *stop_context, flowrun_row_sink sink,
                       char *message, size_t message_size);

/// Writes `pixels` (`channels` 3: RGB or 4: RGBA, 8-bit, rows without padding) as a PNG to the
/// open descriptor `fd`. `should_stop` as for decoding. `wrote` (if not NULL) is called with
/// `wrote_context` and each run of bytes once it is written (to hash them). Returns 0, -1 with
/// a message (a failed write names its errno), or FLOWRUN_IMAGE_STOPPED.
int flowrun_png_encode(int fd, uint32_t width, uint32_t height, int channels, const unsigned char *pixels,
                       int (*should_stop)(void *), void *stop_context,
                       void (*wrote)(void *, const void *, size_t), void *wrote_context,
                       char *message, size_t message_size);

#endif
