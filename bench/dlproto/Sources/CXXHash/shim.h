#ifndef FLOWRUN_CXXHASH_SHIM_H
#define FLOWRUN_CXXHASH_SHIM_H
#include <xxhash.h>
#endif
