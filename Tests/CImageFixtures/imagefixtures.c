#include "imagefixtures.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <png.h>
#include <jpeglib.h>

int fixture_write_png(const char *path, uint32_t width, uint32_t height, int bit_depth, int colour_type,
                      int interlaced, const unsigned char *rows, const unsigned char *palette, int palette_count,
                      const unsigned char *transparency, int transparency_count,
                      const uint16_t *transparent_grey_or_rgb) {
    FILE *file = fopen(path, "wb");
    if (!file) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_bytep *row_pointers = malloc(sizeof(png_bytep) * height);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(file);
        free(row_pointers);
        return -1;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, bit_depth, colour_type,
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (palette_count > 0) {
        png_color colours[256];
        for (int i = 0; i < palette_count; i++) {
            colours[i].red = palette[3 * i];
            colours[i].green = palette[3 * i + 1];
            colours[i].blue = palette[3 * i + 2];
        }
        png_set_PLTE(png, info, colours, palette_count);
    }
    if (transparency_count > 0) png_set_tRNS(png, info, transparency, transparency_count, NULL);
    if (transparent_grey_or_rgb) {
        png_color_16 colour = {0};
        colour.gray = transparent_grey_or_rgb[0];
        colour.red = transparent_grey_or_rgb[0];
        if (colour_type == PNG_COLOR_TYPE_RGB) {
            colour.green = transparent_grey_or_rgb[1];
            colour.blue = transparent_grey_or_rgb[2];
        }
        png_set_tRNS(png, info, NULL, 0, &colour);
    }
    size_t stride = png_get_rowbytes(png, info);
    for (uint32_t y = 0; y < height; y++) row_pointers[y] = (png_bytep)rows + stride * y;
    png_write_info(png, info);
    png_write_image(png, row_pointers);  // writes every Adam7 pass when interlaced
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row_pointers);
    return fclose(file) == 0 ? 0 : -1;
}

int fixture_write_jpeg(const char *path, uint32_t width, uint32_t height, int components,
                       const unsigned char *pixels, int quality, int progressive) {
    FILE *file = fopen(path, "wb");
    if (!file) return -1;
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr errors;
    cinfo.err = jpeg_std_error(&errors);  // exits the process on error: fine in a test helper
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 4 ? JCS_CMYK : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * components;
    while (cinfo.next_scanline < height) {
        JSAMPROW row = (JSAMPROW)pixels + stride * cinfo.next_scanline;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return fclose(file) == 0 ? 0 : -1;
}

int fixture_read_png(const char *path, uint32_t *width, uint32_t *height, int *channels_in_file,
                     unsigned char **pixels) {
    png_image image = {0};
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) return -1;
    *channels_in_file = PNG_IMAGE_SAMPLE_CHANNELS(image.format);
    image.format = PNG_FORMAT_RGBA;
    *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (!*pixels || !png_image_finish_read(&image, NULL, *pixels, 0, NULL)) {
        png_image_free(&image);
        free(*pixels);
        return -1;
    }
    *width = image.width;
    *height = image.height;
    return 0;
}
