#include "imagecodec.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <png.h>
#include <jpeglib.h>
#include <jerror.h>

static void set_message(char *message, size_t size, const char *format, ...) {
    if (size == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, size, format, arguments);
    va_end(arguments);
}

static int too_many_pixels(uint64_t width, uint64_t height, uint64_t max_pixels,
                           char *message, size_t size) {
    if (width * height <= max_pixels) return 0;
    set_message(message, size, "image is %llux%llu (%.1f megapixels), more than the ceiling of %.1f megapixels",
                (unsigned long long)width, (unsigned long long)height,
                (double)(width * height) / 1e6, (double)max_pixels / 1e6);
    return 1;
}

/// libpng refuses a PNG over its default user limits, 1,000,000 rows or columns, with only
/// "Invalid IHDR data": say which limit, from the IHDR, before it reads on.
static int beyond_libpng_limits(uint32_t width, uint32_t height, char *message, size_t size) {
    if (height > PNG_USER_HEIGHT_MAX) {
        set_message(message, size, "the image is %ux%u, taller than libpng reads (%u rows at most)",
                    (unsigned)width, (unsigned)height, (unsigned)PNG_USER_HEIGHT_MAX);
        return 1;
    }
    if (width > PNG_USER_WIDTH_MAX) {
        set_message(message, size, "the image is %ux%u, wider than libpng reads (%u columns at most)",
                    (unsigned)width, (unsigned)height, (unsigned)PNG_USER_WIDTH_MAX);
        return 1;
    }
    return 0;
}

/// Asked every so many rows whether to stop (a cancelled task).
typedef struct {
    int (*should_stop)(void *);
    void *context;
    unsigned rows;
} stop_check;

static int stop_requested(stop_check *check) {
    return check->should_stop && ++check->rows % 32 == 0 && check->should_stop(check->context);
}

// MARK: PNG

/// State that must survive a longjmp lives here, not in locals (which setjmp may not restore).
typedef struct {
    jmp_buf jump;
    char *message;
    size_t message_size;
    unsigned char *pixels;
    png_bytep *rows;
    int fd;
    stop_check stop;
    int stopped;
    void (*wrote)(void *, const void *, size_t);
    void *wrote_context;
} png_context;

static void png_failed(png_structp png, png_const_charp text) {
    png_context *context = png_get_error_ptr(png);
    // libpng's reader says only "Read Error" where the file ran out: say it in the user's words.
    if (strcmp(text, "Read Error") == 0) text = "the PNG ends early (truncated; libpng: Read Error)";
    set_message(context->message, context->message_size, "%s", text);
    longjmp(context->jump, 1);
}

static void png_warned(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;  // recoverable (an ancillary chunk's bad CRC, an unknown sRGB profile): ignored
}

static void png_row_done(png_structp png, png_uint_32 row, int pass) {
    (void)row;
    (void)pass;
    png_context *context = png_get_error_ptr(png);
    if (stop_requested(&context->stop)) {
        context->stopped = 1;
        png_error(png, "stopped");
    }
}

static int png_decode(FILE *file, uint64_t max_pixels, int header_only, stop_check stop, const flowrun_row_sink *sink,
                      uint32_t *size_out, char *message, size_t size) {
    png_context context = {.message = message, .message_size = size, .stop = stop};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, png_failed, png_warned);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        set_message(message, size, "out of memory");
        return -1;
    }
    if (setjmp(context.jump)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(context.pixels);
        free(context.rows);
        return context.stopped ? FLOWRUN_IMAGE_STOPPED : -1;
    }
    png_init_io(png, file);
    png_set_read_status_fn(png, png_row_done);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if (too_many_pixels(width, height, max_pixels, message, size)) longjmp(context.jump, 1);
    if (header_only) {
        png_destroy_read_struct(&png, &info, NULL);
        size_out[0] = width;
        size_out[1] = height;
        return 0;
    }

    // Everything to 8-bit RGBA: palette and low-bit grey expanded, tRNS made alpha, 16-bit
    // rounded (scale, not strip, which truncates), grey copied to RGB, opaque alpha added.
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "unexpected row size after conversion to RGBA");

    if (sink->begin(sink->context, width, height)) {
        context.stopped = 1;
        png_error(png, "stopped");
    }
    size_t stride = (size_t)width * 4;
    if (png_get_interlace_type(png, info) == PNG_INTERLACE_NONE) {
        context.pixels = malloc(stride ? stride : 1);
        if (!context.pixels) png_error(png, "out of memory");
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, context.pixels, NULL);
            if (sink->row(sink->context, y, context.pixels)) {
                context.stopped = 1;
                png_error(png, "stopped");
            }
        }
    } else {
        // Adam7 passes each fill a part of every row: the whole image is needed first.
        context.pixels = malloc(stride * height ? stride * height : 1);
        context.rows = malloc(sizeof(png_bytep) * (height ? height : 1));
        if (!context.pixels || !context.rows) png_error(png, "out of memory");
        for (png_uint_32 y = 0; y < height; y++) context.rows[y] = context.pixels + stride * y;
        png_read_image(png, context.rows);
        for (png_uint_32 y = 0; y < height; y++) {
            if (sink->row(sink->context, y, context.rows[y])) {
                context.stopped = 1;
                png_error(png, "stopped");
            }
        }
    }
    png_read_end(png, NULL);

    png_destroy_read_struct(&png, &info, NULL);
    free(context.rows);
    free(context.pixels);
    return 0;
}

// MARK: JPEG

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char *message;
    size_t message_size;
    struct jpeg_progress_mgr progress;
    stop_check stop;
    int stopped;
} jpeg_context;

static void jpeg_failed(j_common_ptr cinfo) {
    jpeg_context *context = (jpeg_context *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    set_message(context->message, context->message_size, "%s", text);
    longjmp(context->jump, 1);
}

/// libjpeg only warns where data is lost (a premature end fills the rest with grey): those
/// warnings are errors here. Warnings that lose no pixels (extra bytes before a marker, an
/// unknown JFIF version, a bad ICC marker) are ignored, as image viewers do.
static void jpeg_emitted(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    switch (cinfo->err->msg_code) {
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_JFIF_MAJOR:
    case JWRN_ADOBE_XFORM:
    case JWRN_BOGUS_ICC:
        return;
    default:
        jpeg_failed(cinfo);
    }
}

/// Called by libjpeg as it works, also inside jpeg_start_decompress, where a progressive
/// JPEG's every scan is decoded.
static void jpeg_progressed(j_common_ptr cinfo) {
    jpeg_context *context = (jpeg_context *)cinfo->err;
    if (stop_requested(&context->stop)) {
        context->stopped = 1;
        longjmp(context->jump, 1);
    }
}

static int jpeg_decode(FILE *file, uint64_t max_pixels, int header_only, uint32_t fit_width, uint32_t fit_height,
                       stop_check stop, const flowrun_row_sink *sink, uint32_t *size_out, char *message, size_t size) {
    struct jpeg_decompress_struct cinfo;
    jpeg_context context = {.message = message, .message_size = size, .stop = stop};
    context.progress.progress_monitor = jpeg_progressed;
    unsigned char *volatile pixels = NULL;
    cinfo.err = jpeg_std_error(&context.manager);
    context.manager.error_exit = jpeg_failed;
    context.manager.emit_message = jpeg_emitted;
    if (setjmp(context.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return context.stopped ? FLOWRUN_IMAGE_STOPPED : -1;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &context.progress;
    jpeg_stdio_src(&cinfo, file);
    jpeg_read_header(&cinfo, TRUE);
    // libjpeg would say only "Unsupported color conversion request" (YCCK is CMYK too).
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        set_message(message, size, "the JPEG is CMYK, which combine does not read: convert it to RGB first");
        longjmp(context.jump, 1);
    }
    if (too_many_pixels(cinfo.image_width, cinfo.image_height, max_pixels, message, size)) longjmp(context.jump, 1);
    if (header_only) {
        size_out[0] = cinfo.image_width;
        size_out[1] = cinfo.image_height;
        jpeg_destroy_decompress(&cinfo);
        return 0;
    }
    cinfo.out_color_space = JCS_EXT_RGBA;
    // The largest reduction whose output (rounded up by libjpeg) still covers the fitted size,
    // so that the filter that follows only ever shrinks or keeps it.
    for (unsigned denominator = 8; fit_width && fit_height && denominator > 1; denominator /= 2) {
        if (cinfo.image_width / denominator >= fit_width && cinfo.image_height / denominator >= fit_height) {
            cinfo.scale_num = 1;
            cinfo.scale_denom = denominator;
            break;
        }
    }
    jpeg_start_decompress(&cinfo);
    if (sink->begin(sink->context, cinfo.output_width, cinfo.output_height)) {
        context.stopped = 1;
        longjmp(context.jump, 1);
    }
    size_t stride = (size_t)cinfo.output_width * 4;
    pixels = malloc(stride ? stride : 1);
    if (!pixels) {
        set_message(message, size, "out of memory");
        longjmp(context.jump, 1);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels;
        JDIMENSION y = cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
        if (sink->row(sink->context, y, pixels)) {
            context.stopped = 1;
            longjmp(context.jump, 1);
        }
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(pixels);
    return 0;
}

// MARK: Entry points

/// Opens `path` and decodes it into `sink`, or with `header_only` puts its size in `size_out`.
static int image_read(const char *path, uint64_t max_pixels, int header_only, uint32_t fit_width, uint32_t fit_height,
                      stop_check stop, const flowrun_row_sink *sink, uint32_t *size_out, char *message,
                      size_t message_size) {
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer, out of reach of cancel.
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat status;
    if (fd < 0 || fstat(fd, &status) != 0) {
        set_message(message, message_size, "cannot open: %s", strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if (!S_ISREG(status.st_mode)) {
        set_message(message, message_size, "not a regular file");
        close(fd);
        return -1;
    }
    FILE *file = fdopen(fd, "rb");
    if (!file) {
        set_message(message, message_size, "cannot open: %s", strerror(errno));
        close(fd);
        return -1;
    }
    // The signature, and for a PNG its IHDR: width and height, checked against the ceiling
    // and libpng's limits before libpng reads on (png_read_info reads every chunk up to the first IDAT).
    unsigned char signature[24] = {0};
    size_t count = fread(signature, 1, sizeof signature, file);
    rewind(file);
    int result;
    if (count >= 8 && png_sig_cmp(signature, 0, 8) == 0) {
        uint32_t width = png_get_uint_32(signature + 16), height = png_get_uint_32(signature + 20);
        if (count == 24 && memcmp(signature + 12, "IHDR", 4) == 0 &&
            (too_many_pixels(width, height, max_pixels, message, message_size) ||
             beyond_libpng_limits(width, height, message, message_size))) {
            result = -1;
        } else {
            result = png_decode(file, max_pixels, header_only, stop, sink, size_out, message, message_size);
        }
    } else if (count >= 3 && signature[0] == 0xff && signature[1] == 0xd8 && signature[2] == 0xff) {
        result = jpeg_decode(file, max_pixels, header_only, fit_width, fit_height, stop, sink, size_out, message, message_size);
    } else if (ferror(file)) {
        set_message(message, message_size, "cannot read: %s", strerror(errno));
        result = -1;
    } else {
        set_message(message, message_size, "not a PNG or JPEG image");
        result = -1;
    }
    fclose(file);
    return result;
}

int flowrun_image_read(const char *path, uint64_t max_pixels, uint32_t fit_width, uint32_t fit_height,
                       int (*should_stop)(void *), void *stop_context, flowrun_row_sink sink,
                       char *message, size_t message_size) {
    stop_check stop = {.should_stop = should_stop, .context = stop_context};
    uint32_t size[2];
    return image_read(path, max_pixels, 0, fit_width, fit_height, stop, &sink, size, message, message_size);
}

int flowrun_image_header(const char *path, uint64_t max_pixels, uint32_t *width, uint32_t *height,
                         char *message, size_t message_size) {
    stop_check stop = {0};
    uint32_t size[2] = {0, 0};
    int result = image_read(path, max_pixels, 1, 0, 0, stop, NULL, size, message, message_size);
    *width = size[0];
    *height = size[1];
    return result;
}

static void png_write_to_fd(png_structp png, png_bytep data, size_t length) {
    png_context *context = png_get_io_ptr(png);
    while (length > 0) {
        ssize_t written = write(context->fd, data, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            char text[128];
            snprintf(text, sizeof text, "cannot write: %s", written < 0 ? strerror(errno) : "no progress");
            png_error(png, text);
        }
        if (context->wrote) context->wrote(context->wrote_context, data, (size_t)written);
        data += written;
        length -= (size_t)written;
    }
}

static void png_flush_nothing(png_structp png) { (void)png; }

int flowrun_png_encode(int fd, uint32_t width, uint32_t height, int channels, const unsigned char *pixels,
                       int (*should_stop)(void *), void *stop_context,
                       void (*wrote)(void *, const void *, size_t), void *wrote_context,
                       char *message, size_t message_size) {
    png_context context = {.message = message, .message_size = message_size, .fd = fd,
                           .stop = {.should_stop = should_stop, .context = stop_context},
                           .wrote = wrote, .wrote_context = wrote_context};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, png_failed, png_warned);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        set_message(message, message_size, "out of memory");
        return -1;
    }
    if (setjmp(context.jump)) {
        png_destroy_write_struct(&png, &info);
        return context.stopped ? FLOWRUN_IMAGE_STOPPED : -1;
    }
    png_set_write_fn(png, &context, png_write_to_fd, png_flush_nothing);
    png_set_IHDR(png, info, width, height, 8, channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    size_t stride = (size_t)width * (size_t)channels;
    for (uint32_t y = 0; y < height; y++) {
        if (stop_requested(&context.stop)) {
            context.stopped = 1;
            png_error(png, "stopped");
        }
        png_write_row(png, pixels + stride * y);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}
