/* What the harness's descriptors share (algos.h): the VEC-FMT-1 readers, the parsers' profile
 * error, the element-wise algorithms' mutant names, and the lookup of a descriptor by name. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "algos.h"
#include "../mutants/mixed.h"

/* VEC-FMT-1: a hex-float string (or nan/inf) exactly representable in binary32. */
oc_status oc_get_hex(const char *path, json_t *obj, const char *key, double *out, oc_diag *d)
{
    const char *s = json_string_value(json_object_get(obj, key));
    const char *t = s ? s + (*s == '-' || *s == '+') : NULL;
    int hexlike = t && (strncmp(t, "0x", 2) == 0 || strncmp(t, "0X", 2) == 0 ||
                        strcmp(t, "nan") == 0 || strcmp(t, "inf") == 0);
    char *end = NULL;
    if (hexlike)
        *out = strtod(s, &end);
    if (!hexlike || end == s || *end != '\0' ||
        !(isnan(*out) || isinf(*out) || (fabs(*out) <= FLT_MAX && (double)(float)*out == *out)))
        return oc_fail(d, OC_ERR_FORMAT,
                       "%s: hparams.%s must be a hex-float string exact in binary32", path, key);
    return OC_OK;
}

/* A hex-float string exact in binary64 (the binary64 families and bounds, VEC-FMT-1). */
oc_status oc_get_hex64(const char *path, json_t *obj, const char *key, double *out, oc_diag *d)
{
    const char *s = json_string_value(json_object_get(obj, key));
    char *end = NULL;
    if (s && (strstr(s, "0x") || strstr(s, "nan") || strstr(s, "inf")))
        *out = strtod(s, &end);
    if (!end || end == s || *end != '\0')
        return oc_fail(d, OC_ERR_FORMAT, "%s: %s must be a hex-float string", path, key);
    return OC_OK;
}

oc_status oc_get_bool(const char *path, json_t *obj, const char *key, int *out, oc_diag *d)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_boolean(v))
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.%s must be a boolean", path, key);
    *out = json_is_true(v);
    return OC_OK;
}

/* The "unknown profile" error of algorithm algo's parser (VEC-FMT-1). */
oc_status oc_bad_profile(const char *path, const char *algo, const char *profile, oc_diag *d)
{
    return oc_fail(d, OC_ERR_FORMAT, "%s: unknown %s profile '%s'", path, algo, profile);
}

/* Element-wise algorithms: own mutants first, then the mixed-precision ones (spec/mixed.md). */
const char *oc_elementwise_mutant_name(int mu, int own)
{
    return oc_mixed_mutant_name((oc_mixed_mutant)(mu - own + 1));
}

const oc_algo *oc_algo_find(const char *name)
{
    for (int i = 0; i < OC_NALGOS; i++)
        if (strcmp(oc_algos[i]->name, name) == 0)
            return oc_algos[i];
    return NULL;
}
