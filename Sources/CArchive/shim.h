#ifndef FLOWRUN_CARCHIVE_SHIM_H
#define FLOWRUN_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>

/// `archive_set_error` with the message as one argument: Swift cannot call a variadic function.
static inline void flowrun_archive_set_error(struct archive *archive, int code, const char *message) {
    archive_set_error(archive, code, "%s", message);
}
#endif
