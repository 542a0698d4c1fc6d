#ifndef FLOWRUN_CARCHIVE_SHIM_H
#define FLOWRUN_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
