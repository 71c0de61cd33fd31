#include "cunit_main.h"
void register_suites(void) {}
