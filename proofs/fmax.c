/* fmax for the proofs only: Frama-C 25's libc declares fmax without any contract or body.
 * C11 7.12.12.2 and Annex F.10.9.2: the larger of x and y; a NaN argument is treated as
 * missing data (the other argument is returned). glibc implements exactly this.
 * - Eva analyses the body (there is no Eva builtin for fmax).
 * - WP proves the body against the contract and uses the contract at the call in
 *   ref/adam.c. The order is stated with \le_double (IEEE comparison, the real order for
 *   finite values): stated on reals, cvc5 and Z3 time out on it. */
#include <math.h>

/*@ assigns \result \from x, y;
    behavior finite:
      assumes \is_finite(x) && \is_finite(y);
      ensures \is_finite(\result);
      ensures \le_double(x, \result);
      ensures \le_double(y, \result);
      ensures \result == x || \result == y;
    behavior not_finite:
      assumes !\is_finite(x) || !\is_finite(y);
    complete behaviors;
    disjoint behaviors;
*/
double fmax(double x, double y)
{
    if (x != x)
        return y;
    if (y != y)
        return x;
    return x >= y ? x : y;
}
