/* fma for the proofs only: Frama-C 25's libc declares fma without any contract or body
 * (neither Eva nor WP has a builtin for it). C11 7.12.13.1 and Annex F.10.10.1: x*y + z
 * computed exactly and rounded once. Only the finite case, the one ref/lion.c needs (two_prod
 * computes fma(a, b, -a*b), whose exact value is the rounding error of a*b and is finite):
 * the preconditions are named like the libc's float preconditions (finite_arg,
 * finite_logic_res), so that proofs/prove puts them in the floating-point WP pass.
 * This file is a contract only (a declaration): Eva and WP both use the contract. */
#include <math.h>

/*@ requires finite_arg: \is_finite(x) && \is_finite(y) && \is_finite(z);
    requires finite_logic_res: \abs(x * y + z) <= 0x1.fffffffffffffp+1023;
    assigns \result \from x, y, z;
    ensures \is_finite(\result);
    ensures \result == \round_double(\NearestEven, x * y + z);
    ensures -2 * (\abs(x * y) + \abs(z)) <= \result <= 2 * (\abs(x * y) + \abs(z));
*/
double fma(double x, double y, double z);
