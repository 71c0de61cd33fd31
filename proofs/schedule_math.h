/* Replaces Frama-C 25's libc <math.h> in the Eva analysis of ref/schedule.c only (proofs/parts/schedule.toml
 * passes it with -include; defining __FC_MATH makes the libc header skip its contents).
 * Why: the libc contracts of sinl and sqrtl have preconditions on their long double argument,
 * and for a call whose argument is a long double expression (sinl(sched_pi * x / 2)), Frama-C
 * 25 aborts when it sets up the call-site preconditions at the end of Eva's analysis
 * ("unimplemented feature: Builtins for long double type"), even if the call is never
 * reached. The declarations below carry no precondition; they say nothing about the result
 * (Eva cannot use a postcondition on a long double result anyway), and the driver
 * proofs/eva_schedule.c reaches none of these calls. */
#ifndef OC_PROOFS_SCHEDULE_MATH_H
#define OC_PROOFS_SCHEDULE_MATH_H
#define __FC_MATH 1
/*@ assigns \result \from x; */
extern long double sinl(long double x);
/*@ assigns \result \from x; */
extern long double expm1l(long double x);
/*@ assigns \result \from x; */
extern long double sqrtl(long double x);
#endif
