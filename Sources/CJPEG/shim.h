#ifndef FLOWRUN_CJPEG_SHIM_H
#define FLOWRUN_CJPEG_SHIM_H
// jpeglib.h needs FILE and size_t declared before it.
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
#endif
