# bound: the relative error of Adam's direction d = (m/bc1)/(sqrt(v/bc2 + eps_root) + eps)
#   evaluated in binary32 from the implementation's own inputs (stored m, v; bias corrections
#   bc1, bc2 as it computed them, whose errors are r_bc of ADAM-TOL-2 C), in units of
#   u = 2^-24 of |d|. Orders: paper (optax, paper profiles: rx(m/bc1), rx(v/bc2), + eps_root,
#   sqrt, + eps, quotient: each rounded), torch (denom = rx(rx(sqrt(v))/rx(sqrt(bc2))) + eps
#   rounded, rx(m/denom), times 1/bc1 rounded once into the step size; the step product is
#   the update's; against sqrt(v)/sqrt(bc2) = sqrt(v/bc2) with eps_root = 0), keras
#   (rx(rx(c*m)/rx(rx(sqrt(v)) + eps)) with c = lr*sqrt(bc2)/bc1 as computed, its error r_c).
#   spec/adam.md ADAM-TOL-3.
# ranges: m in [1, 2] (the sign and a power of two factor out: rx has an unbounded exponent
#   range), v in [2^-300, 2^300], bc1, bc2 in [2^-30, 1], eps_root in [0, 2^20], eps in
#   [2^-200, 2^20], c in [2^-60, 2^60]; all reals. v = 0 is the same chain with exact
#   operations where this one rounds; m = 0 gives d = 0 exactly.
@rx = float<24,-10000,ne>;
V = v / b2c + er;
D = sqrt(V) + eps;
d = (m / b1c) / D;
N1 = rx(m / b1c);
D1 = rx(rx(sqrt(rx(rx(v / b2c) + er))) + eps);
d1 = rx(N1 / D1);
s2 = rx(sqrt(b2c));
D2 = rx(rx(rx(sqrt(v)) / s2) + eps);
d2 = rx(m / D2) * rx(1 / b1c);
dt = (m / (sqrt(v) / sqrt(b2c) + eps)) * (1 / b1c);
dk = (ck * m) / (sqrt(v) + eps);
d3 = rx(rx(ck * m) / rx(rx(sqrt(v)) + eps));
k_paper = (d1 - d) / d * 1b24;
k_torch = (d2 - dt) / dt * 1b24;
k_keras = (d3 - dk) / dk * 1b24;
{ m in [1, 2] /\ v in [1b-300, 1b300] /\ b1c in [1b-30, 1] /\ b2c in [1b-30, 1]
  /\ er in [0, 1b20] /\ eps in [1b-200, 1b20] /\ ck in [1b-60, 1b60]
  -> k_paper in ? /\ k_torch in ? /\ k_keras in ? }
