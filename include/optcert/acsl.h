/* ACSL predicates that the contracts of several headers share (proofs/NOTES.md); inside the
 * annotation comment, so a C compiler sees nothing here. */
#ifndef OPTCERT_ACSL_H
#define OPTCERT_ACSL_H

/*@ predicate finite_ge0(double x) = \is_finite(x) && 0.0 <= x;
    predicate beta_ok(double b) = \is_finite(b) && 0.0 <= b < 1.0;
*/

#endif
