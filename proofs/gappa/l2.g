# bound: the error of g + x evaluated in binary32, x = a*p the exact product of two binary32
#   values rounded once (muladd rx(g + rx(x))) or fused (fma rx(g + x)), g binary32 (used as
#   is), relative to S = |g| + |x|: the L2 gradient g + wd*p (ADAM-WD-1, SGD-WD-1) and torch's
#   Nesterov direction g + mu*buf (SGD-NEST-1). Goals l_<order> (same signs) and o_<order>
#   (opposite signs) in units of u = 2^-24 of S; the value is not stored. spec/adam.md
#   ADAM-TOL-3.
# ranges: x, g any reals with S in [1, 2] and w = |x|/S in [2^-700, 1 - 2^-700]; rx is binary32
#   (24 bits, ties to even) with an unbounded exponent range, so the bound holds for every S
#   by exact power-of-two scaling; underflow is the separate absolute term of ADAM-TOL-2;
#   x = 0 or g = 0 is the same chain with exact operations only where this one rounds.
@rx = float<24,-10000,ne>;
x = w * S;
y = (1 - w) * S;
z = (w - 1) * S;
exact = x + y;
oexact = x + z;
muladd = rx(rx(x) + y);
fused = rx(x + y);
omuladd = rx(rx(x) + z);
ofused = rx(x + z);
l_muladd = (muladd - exact) / S * 1b24;
l_fma = (fused - exact) / S * 1b24;
o_muladd = (omuladd - oexact) / S * 1b24;
o_fma = (ofused - oexact) / S * 1b24;
{ w in [1b-700, 1] /\ 1 - w in [1b-700, 1] /\ S in [1, 2]
  -> l_muladd in ? /\ l_fma in ? /\ o_muladd in ? /\ o_fma in ? }
l_muladd -> ((muladd - (rx(x) + y)) / S + (rx(x) - x) / S) * 1b24 { S <> 0 };
o_muladd -> ((omuladd - (rx(x) + z)) / S + (rx(x) - x) / S) * 1b24 { S <> 0 };
l_fma -> ((fused - exact) / exact) * 1b24 { S <> 0, exact <> 0 };
o_fma -> ((ofused - oexact) / oexact) * (2 * w - 1) * 1b24 { S <> 0, oexact <> 0 };
(muladd - (rx(x) + y)) / S -> ((muladd - (rx(x) + y)) / (rx(x) + y)) * (1 + (rx(x) - x) / S) { rx(x) + y <> 0, S <> 0 };
(omuladd - (rx(x) + z)) / S -> ((omuladd - (rx(x) + z)) / (rx(x) + z)) * ((2 * w - 1) + (rx(x) - x) / S) { rx(x) + z <> 0, S <> 0 };
(rx(x) - x) / S -> ((rx(x) - x) / x) * w { x <> 0, S <> 0 };
$ w in 256;
