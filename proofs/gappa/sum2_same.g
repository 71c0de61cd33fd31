# bound: the error of x + y evaluated in binary32, same signs, relative to S = |x| + |y|:
#   x = a*p, the exact product of two binary32 values, rounded once (rx(x)) or fused into an
#   FMA; y = (1 - d)*g with the coefficient 1 - d computed in binary32 (exact for d >= 1/2 by
#   Sterbenz, one rounding below) and multiplied by g. Orders: muladd rx(rx(x) + rx(c*g)),
#   fma1 rx(x + rx(c*g)), fma2 rx(rx(x) + c*g). Goals, in units of u = 2^-24 of S:
#   l_<order> the evaluation itself, k_<order> its stored value against the golden stored value
#   rx(x + y) (both storage roundings included). spec/adam.md ADAM-TOL-3.
# ranges: d binary32 in [0, 1 - 2^-24]; x, g any reals with y = (1 - w) S, S in [1, 2], w in
#   [2^-700, 1 - 2^-700]. rx is binary32 (24 bits, ties to even) with an unbounded exponent
#   range, so the bound holds for every S by exact power-of-two scaling; underflow is the
#   separate absolute term of ADAM-TOL-2; w = 0 or 1 (a zero term) is the same chain with
#   exact operations only where this one rounds.
@rx = float<24,-10000,ne>;
d = rx(dd);
c = rx(1 - d);
x = w * S;
y = (1 - w) * S;
g = y / (1 - d);
exact = x + y;
A = rx(x);
B = rx(c * g);
muladd = rx(A + B);
fma1 = rx(x + B);
fma2 = rx(A + c * g);
gold = rx(exact);
k_muladd = (rx(muladd) - gold) / S * 1b24;
k_fma1 = (rx(fma1) - gold) / S * 1b24;
k_fma2 = (rx(fma2) - gold) / S * 1b24;
l_muladd = (muladd - exact) / S * 1b24;
l_fma1 = (fma1 - exact) / S * 1b24;
l_fma2 = (fma2 - exact) / S * 1b24;
{ dd in [0, 0.99999994] /\ w in [1b-700, 1] /\ 1 - w in [1b-700, 1] /\ S in [1, 2]
  -> k_muladd in ? /\ k_fma1 in ? /\ k_fma2 in ?
  /\ l_muladd in ? /\ l_fma1 in ? /\ l_fma2 in ? }
(1 - d) * g -> y { 1 - d <> 0 };
c * g -> y + y * ((c - (1 - d)) / (1 - d)) { 1 - d <> 0 };
l_muladd -> ((muladd - exact) / S) * 1b24 { S <> 0 };
k_muladd -> ((rx(muladd) - muladd) + (muladd - exact) + (exact - gold)) / S * 1b24 { S <> 0 };
l_fma1 -> ((fma1 - exact) / S) * 1b24 { S <> 0 };
k_fma1 -> ((rx(fma1) - fma1) + (fma1 - exact) + (exact - gold)) / S * 1b24 { S <> 0 };
l_fma2 -> ((fma2 - exact) / S) * 1b24 { S <> 0 };
k_fma2 -> ((rx(fma2) - fma2) + (fma2 - exact) + (exact - gold)) / S * 1b24 { S <> 0 };
(exact - gold) / S -> ((exact - gold) / exact) * (exact / S) { exact <> 0, S <> 0 };
(rx(muladd) - muladd) / S -> ((rx(muladd) - muladd) / muladd) * (muladd / S) { muladd <> 0, S <> 0 };
(rx(fma1) - fma1) / S -> ((rx(fma1) - fma1) / fma1) * (fma1 / S) { fma1 <> 0, S <> 0 };
(rx(fma2) - fma2) / S -> ((rx(fma2) - fma2) / fma2) * (fma2 / S) { fma2 <> 0, S <> 0 };
muladd / S -> 1 + (muladd - exact) / S { S <> 0 };
fma1 / S -> 1 + (fma1 - exact) / S { S <> 0 };
fma2 / S -> 1 + (fma2 - exact) / S { S <> 0 };
(muladd - exact) / S -> (muladd - (A + B)) / S + (A - x) / S + (B - c * g) / S + ((c - (1 - d)) / (1 - d)) * (1 - w) { S <> 0, 1 - d <> 0 };
(fma1 - exact) / S -> (fma1 - (x + B)) / S + (B - c * g) / S + ((c - (1 - d)) / (1 - d)) * (1 - w) { S <> 0, 1 - d <> 0 };
(fma2 - exact) / S -> (fma2 - (A + c * g)) / S + (A - x) / S + ((c - (1 - d)) / (1 - d)) * (1 - w) { S <> 0, 1 - d <> 0 };
(A - x) / S -> ((A - x) / x) * w { x <> 0, S <> 0 };
(B - c * g) / S -> ((B - c*g) / (c*g)) * ((c * g) / S) { c * g <> 0, S <> 0 };
(c * g) / S -> (1 - w) * (1 + (c - (1 - d)) / (1 - d)) { S <> 0, 1 - d <> 0 };
(muladd - (A + B)) / S -> ((muladd - (A + B)) / (A + B)) * ((A + B) / S) { A + B <> 0, S <> 0 };
(fma1 - (x + B)) / S -> ((fma1 - (x + B)) / (x + B)) * ((x + B) / S) { x + B <> 0, S <> 0 };
(fma2 - (A + c * g)) / S -> ((fma2 - (A + c * g)) / (A + c * g)) * ((A + c * g) / S) { A + c * g <> 0, S <> 0 };
(A + B) / S -> 1 + (A - x) / S + (B - y) / S { S <> 0 };
(x + B) / S -> 1 + (B - y) / S { S <> 0 };
(A + c * g) / S -> 1 + (A - x) / S + (c * g - y) / S { S <> 0 };
$ w in 64, dd in (0.5);
