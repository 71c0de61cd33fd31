/* optcert status codes: what the checks and steps return, OC_OK or the reason of a rejection
 * (each family's ERR rule, e.g. spec/adam.md ADAM-ERR-1; any other value fails a case,
 * spec/vectors.md VEC-PLUG-2). */
#ifndef OPTCERT_STATUS_H
#define OPTCERT_STATUS_H

typedef enum oc_status {
    OC_OK = 0,
    OC_ERR_NULL_POINTER,      /* a required buffer is NULL */
    OC_ERR_MISALIGNED,        /* a buffer is not aligned for its element type */
    OC_ERR_ALIASING,          /* buffers that must be separated overlap */
    OC_ERR_BAD_HPARAM,        /* a hyper-parameter is out of its stated range or not finite */
    OC_ERR_BAD_STEP,          /* step counter < 1 */
    OC_ERR_UNSUPPORTED,       /* option not defined for the selected profile */
    OC_ERR_BAD_PROFILE,       /* unknown profile or mutant */
    OC_ERR_IO,                /* file could not be read or written */
    OC_ERR_FORMAT,            /* malformed vector / results file */
    OC_ERR_NO_DEVICE,         /* no accelerator present */
    OC_ERR_INTERNAL,
    OC_ERR_BAD_SHAPE,         /* a matrix shape is empty or too large */
    OC_ERR_NONFINITE,         /* an input is NaN/infinite, or an iteration left its stated domain */
    OC_ERR_PEER               /* another rank of the group failed; this one wrote nothing */
} oc_status;

/* A short English description of a status; never NULL. */
const char *oc_status_str(oc_status s);

#endif
