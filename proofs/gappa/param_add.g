# bound: the error of the parameter update p*(1 - lr*wd) - lr*d evaluated in binary32 when
#   p and lr*d have opposite signs (no cancellation), relative to
#   S = |p| (|1 - decay| + decay) + lr|d| = |p| + lr|d|, stored result against the golden
#   stored value rx(exact) (both storage roundings included; the direction d is taken as
#   given: its own error is E_d). Orders: sep (torch: p1 = rx(p*rx(1 - rx(lr*wd))) stored,
#   then rx(p1 - rx(lr*d))), fma (rx(p1 - lr*d) fused). The folded order (optax) is not
#   proved for this sign case: d + wd*p may cancel there, and the hints of param_sub.g need
#   its relative error. Goals k_<order> in units
#   of u = 2^-24 of S. spec/adam.md ADAM-TOL-3, SGD-UPD-1, LION-UPD-1.
# ranges: lr, wd binary32 with lr in [2^-60, 2^20], wd in [2^-100, 2^60], decay = lr*wd in
#   [2^-700, 1/2]; p, d any reals with S = |p| + lr*|d| in [1, 2] and w = |p|/S in
#   [2^-700, 1 - 2^-700]. rx is binary32 (24 bits, ties to even) with an unbounded exponent
#   range, so the bound holds for every S by exact power-of-two scaling; underflow is the
#   separate absolute term of ADAM-TOL-2; wd = 0, p = 0 or d = 0 is the same chain with exact
#   operations only where this one rounds. d = +-1 (Lion's sign, lr*d exact) is in the range.
@rx = float<24,-10000,ne>;
lr = rx(lr0);
wd = rx(wd0);
decay = lr * wd;
p = w * S;
Q = (w - 1) * S;
dd = Q / lr;
P = p * (1 - decay);
exact = P - Q;
q = rx(lr * wd);
f = rx(1 - q);
p1 = rx(p * f);
s = rx(lr * dd);
sep = rx(p1 - s);
fused = rx(p1 - lr * dd);
gold = rx(exact);
k_sep = (sep - gold) / S * 1b24;
k_fma = (fused - gold) / S * 1b24;
{ lr0 in [1b-60, 1b20] /\ wd0 in [1b-100, 1b60] /\ lr * wd in [1b-700, 0.5]
  /\ w in [1b-700, 1] /\ 1 - w in [1b-700, 1] /\ S in [1, 2]
  -> k_sep in ? /\ k_fma in ? }
lr * dd -> Q { lr <> 0 };
k_sep -> ((sep - (p1 - s)) / S + (p1 - P) / S - (s - Q) / S - (gold - exact) / S) * 1b24 { S <> 0 };
k_fma -> ((fused - (p1 - Q)) / S + (p1 - P) / S - (gold - exact) / S) * 1b24 { S <> 0 };
(gold - exact) / S -> ((gold - exact) / exact) * (exact / S) { exact <> 0, S <> 0 };
exact / S -> w * (1 - decay) + (1 - w) { S <> 0 };
(sep - (p1 - s)) / S -> ((sep - (p1 - s)) / (p1 - s)) * ((p1 - s) / S) { p1 - s <> 0, S <> 0 };
(fused - (p1 - Q)) / S -> ((fused - (p1 - Q)) / (p1 - Q)) * ((p1 - Q) / S) { p1 - Q <> 0, S <> 0 };
(p1 - s) / S -> exact / S + (p1 - P) / S - (s - Q) / S { S <> 0 };
(p1 - Q) / S -> exact / S + (p1 - P) / S { S <> 0 };
(p1 - P) / S -> ((p1 - p * f) / (p * f)) * (w * f) + w * (f - (1 - decay)) { p * f <> 0, S <> 0 };
(s - Q) / S -> ((s - Q) / Q) * (w - 1) { Q <> 0, S <> 0 };
f - (1 - decay) -> (f - (1 - q)) + (decay - q);
$ w in 64;
