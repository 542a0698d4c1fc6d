#ifndef FLOWRUN_CYAML_SHIM_H
#define FLOWRUN_CYAML_SHIM_H
#include <yaml.h>
#endif
