# bound: the relative error of the clipped gradient g * max_norm / (N + 1e-6) evaluated from the
#   implementation's own norm N (its error is the norm's, spec/clip.md CLIP-TOL-3), in units of
#   u = 2^-24 of the exact value at that N. Orders: megatron (N + 1e-6 and the division in
#   binary64, the coefficient converted to binary32 once, the product in binary32: Megatron's
#   clip_coeff passed to the multi-tensor kernel as a float), float (every operation in
#   binary32, the constants 1e-6 and max_norm converted to binary32 too: torch's
#   max_norm / (total_norm + 1e-6) on a float tensor). The golden value's own storage rounding
#   adds 1 to either. spec/clip.md CLIP-TOL-3.
# ranges: N in [2^-200, 2^200], max_norm a binary32 value in [2^-200, 2^200] (a negative one is
#   the same chain mirrored), g in [1, 2] (reals; the sign and a power of two of g factor out:
#   the binary32 format here has an unbounded exponent range, so the coefficient must be a
#   normal binary32 value: tolcheck checks it per case); 1e-6 is the binary64 constant. The
#   test c < 1 that decides whether to scale, and the norm's own error, are by hand
#   (CLIP-TOL-3).
@r64 = float<ieee_64,ne>;
@x32 = float<24,-10000,ne>;
@x64 = float<53,-10000,ne>;
eps = r64(1e-6);
mn = x32(mn0);
g1 = (mn / (N + eps)) * g;
gm = x32(x32(x64(mn / x64(N + eps))) * g);
gf = x32(x32(mn / x32(N + x32(eps))) * g);
k_megatron = (gm - g1) / g1 * 1b24;
k_float = (gf - g1) / g1 * 1b24;
{ N in [1b-200, 1b200] /\ mn0 in [1b-200, 1b200] /\ g in [1, 2]
  -> k_megatron in ? /\ k_float in ? }
