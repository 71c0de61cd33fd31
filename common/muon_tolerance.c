/* MUON-TOL-1's combination (see muon_tolerance.h). */
#include <math.h>
#include "muon_tolerance.h"

double muon_scale_bound_factor(const oc_muon_hparams *hp, size_t rows, size_t cols)
{
    double r = (double)rows, c = (double)cols, f;
    if (hp->scale == OC_MUON_SHAPE_SCALING)
        f = sqrt(fmax(1.0, r / c));
    else if (hp->scale == OC_MUON_SPECTRAL)
        f = sqrt(fmax(r, c));
    else
        f = sqrt(r / c);
    return hp->extra_scale * f;
}

void muon_tolerances(const double orth_tol[NS_NCLASSES][2], double orth_norm, double pnorm,
                     double mnorm, double wnorm, double keptnorm, double tol_p[NS_NCLASSES][2],
                     double tol_m[NS_NCLASSES][2])
{
    for (int cl = 0; cl < NS_NCLASSES; cl++) {
        double u = 0x1p-24, elem_m = cl == NS_CLASS_EXACT ? u * mnorm : u * mnorm + 3 * u * wnorm;
        double elem_p = cl == NS_CLASS_EXACT ? u * pnorm + u * orth_norm
                                             : u * pnorm + 4 * u * (keptnorm + orth_norm);
        tol_m[cl][0] = tol_m[cl][1] = elem_m * (1 + 0x1p-20);
        tol_p[cl][0] = (orth_tol[cl][0] + elem_p) * (1 + 0x1p-20);
        tol_p[cl][1] = (orth_tol[cl][1] + elem_p) * (1 + 0x1p-20);
    }
}
