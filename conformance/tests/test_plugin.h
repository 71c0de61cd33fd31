/* The example plugin (conformance/examples/naive_plugin.c), loaded from its shared library at
 * OPTCERT_PLUGIN_PATH, for the suites that certify it. */
#ifndef OPTCERT_TEST_PLUGIN_H
#define OPTCERT_TEST_PLUGIN_H

#include <CUnit/CUnit.h>
#include <dlfcn.h>
#include "optcert/impl.h"

static inline const oc_impl *test_plugin(void)
{
    void *h = dlopen(OPTCERT_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    oc_impl_entry_fn entry;
    *(void **)&entry = dlsym(h, OC_IMPL_ENTRY_SYMBOL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(entry);
    return entry();
}

#endif
