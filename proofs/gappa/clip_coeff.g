# bound: the relative error of the clipped gradient g * max_norm / (N + 1e-6) evaluated from the
#   implementation's own norm N (its error is the norm's, CLIP-TOL-2), in units of u = 2^-24 of
#   the exact value at that N. Orders: megatron (N + 1e-6 and the division in binary64, the
#   coefficient converted to binary32 once, the product in binary32: Megatron's clip_coeff
#   passed to the multi-tensor kernel as a float), float (every operation in binary32). The
#   golden value's own storage rounding adds 1 to either. spec/clip.md CLIP-TOL-2.
# ranges: N in [2^-60, 2^60], max_norm in [2^-30, 2^30], g in [1, 2] (reals; the sign and a
#   power of two of g factor out: rx has an unbounded exponent range); 1e-6 is the binary64
#   constant. The test c < 1 that decides whether to scale is by hand (CLIP-TOL-2).
@r64 = float<ieee_64,ne>;
@x32 = float<24,-10000,ne>;
@x64 = float<53,-10000,ne>;
eps = r64(1e-6);
g1 = (mn / (N + eps)) * g;
gm = x32(x32(x64(mn / x64(N + eps))) * g);
gf = x32(x32(mn / x32(N + eps)) * g);
k_megatron = (gm - g1) / g1 * 1b24;
k_float = (gf - g1) / g1 * 1b24;
{ N in [1b-60, 1b60] /\ mn in [1b-30, 1b30] /\ g in [1, 2]
  -> k_megatron in ? /\ k_float in ? }
