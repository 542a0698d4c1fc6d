#ifndef FLOWRUN_CZLIB_SHIM_H
#define FLOWRUN_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` for gzip members alone (15 + 16): a macro, which Swift cannot call.
static inline int flowrun_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}
#endif
