#ifndef FLOWRUN_CPNG_SHIM_H
#define FLOWRUN_CPNG_SHIM_H
#include <png.h>
#endif
