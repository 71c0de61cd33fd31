# bound: the error of torch's lerp m + c*(g - m) evaluated in binary32, c = rx(1 - b) the
#   weight (exact for b >= 1/2), opposite signs, relative to S = b|m| + (1 - b)|g|: order
#   rx(m + rx(c*rx(g - m))) (torch.lerp with weight < 1/2: Adam's m.lerp_(g, 1 - b1); with
#   weight >= 1/2 torch evaluates end - (end - start)*(1 - weight), the same chain with start
#   and end exchanged: SGD's ema grad.lerp(buf, mu); Emerging-Optimizers' Lion). Goals in units
#   of u = 2^-24 of S: l_lerp the evaluation, k_lerp its stored value against the golden
#   stored value rx(b m + (1 - b) g). spec/adam.md ADAM-TOL-3.
# ranges: b binary32 in [1/2, 1 - 2^-24]; m = x/b, g = y/(1 - b) with x = w S, y = (w - 1) S,
#   S in [1, 2], w in [2^-700, 1 - 2^-700], |g - m| in [2^-9000, 2^9000] (g = m is exact; for
#   binary32 m, g a nonzero |g - m|/S is far above 2^-9000). rx is binary32 (24 bits, ties to
#   even) with an unbounded exponent range, so the bound holds for every S by exact
#   power-of-two scaling; underflow is the separate absolute term of ADAM-TOL-2; w = 0 or 1 is
#   the same chain with exact operations only where this one rounds. b < 1/2 (torch's other
#   branch for the old state's coefficient) is not covered.
@rx = float<24,-10000,ne>;
b = rx(bb);
c = rx(1 - b);
x = w * S;
y = (w - 1) * S;
m = x / b;
g = y / (1 - b);
exact = x + y;
z = g - m;
D = rx(z);
P = rx(c * D);
L = rx(m + P);
gold = rx(exact);
k_lerp = (rx(L) - gold) / S * 1b24;
l_lerp = (L - exact) / S * 1b24;
{ bb in [0.5, 0.99999994] /\ w in [1b-700, 1] /\ 1 - w in [1b-700, 1] /\ S in [1, 2]
  /\ |z| in [1b-9000, 1b9000]
  -> l_lerp in ? /\ k_lerp in ? }
l_lerp -> ((L - (m + P)) / S + (P - c * D) / S + c * (D - z) / S + (c - (1 - b)) * z / S) * 1b24 { S <> 0 };
k_lerp -> ((rx(L) - L) / S + (L - (m + P)) / S + (P - c * D) / S + c * (D - z) / S + (c - (1 - b)) * z / S - (gold - exact) / S) * 1b24 { S <> 0 };
(gold - exact) / S -> ((gold - exact) / exact) * (2 * w - 1) { exact <> 0, S <> 0 };
(L - (m + P)) / S -> ((L - (m + P)) / (m + P)) * ((m + P) / S) { m + P <> 0, S <> 0 };
(m + P) / S -> (2 * w - 1) + (P - c * D) / S + c * (D - z) / S + (c - (1 - b)) * z / S { S <> 0, b <> 0, 1 - b <> 0 };
(P - c * D) / S -> ((P - c * D) / (c * D)) * (c * D / S) { c * D <> 0, S <> 0 };
c * D / S -> c * z / S + c * (D - z) / S { S <> 0 };
c * z / S -> (w - 1) - w * ((1 - b) / b) + (c - (1 - b)) * z / S { S <> 0, b <> 0, 1 - b <> 0 };
c * (D - z) / S -> ((D - z) / z) * (c * z / S) { z <> 0, S <> 0 };
$ w in 64;
