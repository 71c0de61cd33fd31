# bound: the error of the second-moment update b2*v + (1 - b2)*g^2 evaluated in binary32,
#   relative to S = b2*v + (1 - b2)*g^2 (both terms nonnegative), stored result against the
#   golden stored value rx(S) (both storage roundings included): x = b2*v rounded once or
#   fused; the coefficient c = rx(1 - b2) (exact for b2 >= 1/2); orders torch
#   rx(rx(x) + rx(rx(c*g)*g)) (addcmul: value*t1*t2 left to right), sq
#   rx(rx(x) + rx(c*rx(g*g))) (optax: g**2 first), fma rx(x + rx(rx(c*g)*g)). Goals k_<order>
#   in units of u = 2^-24 of S. spec/adam.md ADAM-TOL-3.
# ranges: b2 binary32 in [0, 1 - 2^-24]; g in [1, 2] and v >= 0 reals with
#   w = x/S in [2^-700, 1 - 2^-700]. rx is binary32 (24 bits, ties to even) with an unbounded
#   exponent range: scaling g by 2^k and v by 4^k scales every value exactly, so g in [1, 2]
#   covers every g != 0; underflow is the separate absolute term of ADAM-TOL-2; v = 0 or g = 0
#   is the same chain with exact operations only where this one rounds.
@rx = float<24,-10000,ne>;
d = rx(dd);
c = rx(1 - d);
y = (1 - d) * g * g;
x = y * (w / (1 - w));
S = y / (1 - w);
exact = x + y;
A = rx(x);
B1 = rx(rx(c * g) * g);
B2 = rx(c * rx(g * g));
torch = rx(A + B1);
sq = rx(A + B2);
fused = rx(x + B1);
gold = rx(exact);
k_torch = (rx(torch) - gold) / S * 1b24;
k_sq = (rx(sq) - gold) / S * 1b24;
k_fma = (rx(fused) - gold) / S * 1b24;
{ dd in [0, 0.99999994] /\ w in [1b-700, 1] /\ 1 - w in [1b-700, 1] /\ g in [1, 2]
  -> k_torch in ? /\ k_sq in ? /\ k_fma in ? }
k_torch -> ((rx(torch) - torch) / S + (torch - exact) / S - (gold - exact) / S) * 1b24 { S <> 0 };
k_sq -> ((rx(sq) - sq) / S + (sq - exact) / S - (gold - exact) / S) * 1b24 { S <> 0 };
k_fma -> ((rx(fused) - fused) / S + (fused - exact) / S - (gold - exact) / S) * 1b24 { S <> 0 };
(gold - exact) / S -> (gold - exact) / exact { exact <> 0, S <> 0, 1 - w <> 0 };
(rx(torch) - torch) / S -> ((rx(torch) - torch) / torch) * (1 + (torch - exact) / S) { torch <> 0, S <> 0 };
(rx(sq) - sq) / S -> ((rx(sq) - sq) / sq) * (1 + (sq - exact) / S) { sq <> 0, S <> 0 };
(rx(fused) - fused) / S -> ((rx(fused) - fused) / fused) * (1 + (fused - exact) / S) { fused <> 0, S <> 0 };
(torch - exact) / S -> ((torch - (A + B1)) / (A + B1)) * (1 + (A - x) / S + (B1 - y) / S) + (A - x) / S + (B1 - y) / S { A + B1 <> 0, S <> 0 };
(sq - exact) / S -> ((sq - (A + B2)) / (A + B2)) * (1 + (A - x) / S + (B2 - y) / S) + (A - x) / S + (B2 - y) / S { A + B2 <> 0, S <> 0 };
(fused - exact) / S -> ((fused - (x + B1)) / (x + B1)) * (1 + (B1 - y) / S) + (B1 - y) / S { x + B1 <> 0, S <> 0 };
(A - x) / S -> ((A - x) / x) * w { x <> 0, S <> 0 };
(B1 - y) / S -> ((B1 - y) / y) * (1 - w) { y <> 0, S <> 0 };
(B2 - y) / S -> ((B2 - y) / y) * (1 - w) { y <> 0, S <> 0 };
(B1 - y) / y -> (B1 - rx(c * g) * g) / (rx(c * g) * g) * (1 + (rx(c*g) - c*g)/(c*g)) * (c / (1 - d)) + (rx(c*g) - c*g)/(c*g) * (c / (1 - d)) + (c - (1 - d)) / (1 - d) { y <> 0, c * g <> 0, rx(c*g) * g <> 0, 1 - d <> 0 };
(B2 - y) / y -> (B2 - c * rx(g * g)) / y + c * (rx(g * g) - g * g) / y + (c - (1 - d)) * (g * g) / y { y <> 0 };
(B2 - c * rx(g * g)) / y -> ((B2 - c * rx(g * g)) / (c * rx(g * g))) * (c / (1 - d)) * (rx(g * g) / (g * g)) { y <> 0, c * rx(g * g) <> 0, g * g <> 0, 1 - d <> 0 };
c * (rx(g * g) - g * g) / y -> (c / (1 - d)) * ((rx(g * g) - g * g) / (g * g)) { y <> 0, g * g <> 0, 1 - d <> 0 };
(c - (1 - d)) * (g * g) / y -> (c - (1 - d)) / (1 - d) { y <> 0, 1 - d <> 0 };
c / (1 - d) -> 1 + (c - (1 - d)) / (1 - d) { 1 - d <> 0 };
rx(g * g) / (g * g) -> 1 + (rx(g * g) - g * g) / (g * g) { g * g <> 0 };
$ w in 64, dd in (0.5);
