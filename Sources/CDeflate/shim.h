#ifndef FLOWRUN_CDEFLATE_SHIM_H
#define FLOWRUN_CDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
