/* Certificates: per family, per case verdicts, and their reports (table, JSON, JUnit). */
#ifndef OPTCERT_CERTIFY_H
#define OPTCERT_CERTIFY_H

#include <stdio.h>
#include "judge.h"
#include "safetensors.h"

typedef struct oc_family_report {
    char name[64], algorithm[16], profile[32];
    size_t counts[5]; /* indexed by oc_verdict */
    double worst_ulps, worst_ratio;
    oc_case_result *cases;
    size_t ncases;
} oc_family_report;

typedef struct oc_certificate {
    char impl[128], version[128], source[256];
    oc_class cls;
    oc_family_report *fams;
    size_t nfams;
    int conforms; /* no failure and at least one case passed */
    /* The vector set (VEC-SET-2): the families' generator level ("mixed" if they differ), the
     * SHA-256 of its manifest text, whether it differs from the shipped manifest. */
    char level[16], vectors_sha256[65];
    int vectors_custom;
} oc_certificate;

/* The checks of a v2 table before any case runs (the ABI version); a capability claimed
 * without its entry point is no error: its cases are skipped. */
oc_status oc_impl_check(const oc_impl *impl, oc_diag *d);

/* Certifies the family list impl (VEC-ABI-1: the harness's own tables, oc_ref(), or a plugin's
 * v3 table) against every family in vector_dir (or only the family named `only`, if not NULL);
 * a family impl does not list is skipped. OC_ERR_* on bad vectors or a table that fails
 * VEC-ABI-2. */
oc_status oc_certify(const oc_impl_v3 *impl, const char *vector_dir, const char *only,
                     oc_class cls, oc_certificate *cert, oc_diag *d);

struct oc_isolation;
/* As oc_certify; with iso not NULL, each family runs in a child process under iso's limits
 * (isolate.h, VEC-PLUG-1). */
oc_status oc_certify_v3(const oc_impl_v3 *impl, const char *vector_dir, const char *only,
                        oc_class cls, const struct oc_isolation *iso, oc_certificate *cert,
                        oc_diag *d);

/* As oc_certify_v3 for a v2 table (VEC-ABI-4): the families its slots and capability bits
 * claim (oc_abi2_translate). */
oc_status oc_certify_v2(const oc_impl *impl, const char *vector_dir, const char *only,
                        oc_class cls, const struct oc_isolation *iso, oc_certificate *cert,
                        oc_diag *d);

/* Judges a results file (spec/vectors.md §2) against the families in vector_dir. */
oc_status oc_judge_results(const char *results_path, const char *vector_dir, const char *only,
                           oc_class cls, oc_certificate *cert, oc_diag *d);

/* The judgement of one case of fam from an open results file (what oc_judge_results does
 * for each case). */
void oc_judge_results_case(const oc_st_file *st, const oc_family *fam, const oc_case *c,
                           oc_class cls, oc_case_result *r);

void oc_certificate_free(oc_certificate *cert);
/* Adds one case's result to a family's report (counts, worst errors). */
void oc_family_add_result(oc_family_report *fr, const oc_case_result *r);

const char *oc_class_name(oc_class cls);
/* The class whose bound a family's worst/bound refers to under class cls: cls itself for the
 * matrix-judged families (NS-TOL-1), else the fp32 bound of each entry (fp64 for the binary64
 * families), which the exact class reports beside its 1-ulp test. */
const char *oc_bound_class_name(const char *algorithm, oc_class cls);
/* "exact", "fp32", "tf32", "bf16"; 0 on success, -1 for an unknown name. */
int oc_class_parse(const char *name, oc_class *out);
const char *oc_verdict_name(oc_verdict v);

/* Reports. */
void oc_report_table(const oc_certificate *cert, FILE *out, int verbose);
oc_status oc_report_json(const oc_certificate *cert, const char *path, oc_diag *d);
oc_status oc_report_junit(const oc_certificate *cert, const char *path, oc_diag *d);
/* The HTML certificate with a plot of error / bound per case (report_html.c). */
oc_status oc_report_html(const oc_certificate *cert, const char *path, oc_diag *d);
/* s with XML's five special characters escaped (JUnit, HTML). */
void oc_xml_escaped(FILE *f, const char *s);

#endif
