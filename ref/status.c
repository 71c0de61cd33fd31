#include "optcert/status.h"

const char *oc_status_str(oc_status s)
{
    switch (s) {
    case OC_OK: return "ok";
    case OC_ERR_NULL_POINTER: return "a required buffer is NULL";
    case OC_ERR_MISALIGNED: return "a buffer is not aligned for its element type";
    case OC_ERR_ALIASING: return "buffers that must not overlap do overlap";
    case OC_ERR_BAD_HPARAM: return "a hyper-parameter is out of range or not finite";
    case OC_ERR_BAD_STEP: return "the step counter must be >= 1";
    case OC_ERR_UNSUPPORTED: return "option not defined for this profile";
    case OC_ERR_BAD_PROFILE: return "unknown profile or mutant";
    case OC_ERR_IO: return "file could not be read or written";
    case OC_ERR_FORMAT: return "malformed file";
    case OC_ERR_NO_DEVICE: return "no accelerator device present";
    case OC_ERR_INTERNAL: return "internal error";
    case OC_ERR_BAD_SHAPE: return "the matrix shape is empty or too large";
    case OC_ERR_NONFINITE: return "an input is not finite, or the iteration left its stated domain";
    case OC_ERR_PEER: return "another rank of the group failed (this rank wrote nothing)";
    }
    return "unknown status";
}
