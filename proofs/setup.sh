#!/usr/bin/env bash
# Installs and configures the proof toolchain (Frama-C 25 + WP/Eva, Why3 1.5.1, Z3, cvc5, and
# Gappa 1.4 for the fp32 error bounds of proofs/gappa/) on Debian 12. Idempotent. The system part (apt, two files under /usr/share/why3) needs
# root when something is missing. The prover configuration (~/.why3.conf) is per user: a
# user other than root who runs the proofs runs this script too, after root has.
# Why each step is needed:
#   - Alt-Ergo is not packaged in bookworm and Debian's CVC4 aborts on float goals, so the
#     provers are Z3 and cvc5.
#   - Why3 1.5.1 does not know cvc5: we add a driver and a detection entry by hand.
#   - Why3's default memlimit (1000 MB) makes Z3 fail float goals with "out of memory".
set -euo pipefail

need_root() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup.sh: $1 needs root; run this script as root first" >&2
        exit 1
    fi
}

pkgs=(frama-c-base why3 z3 cvc5 gappa)
missing=()
for p in "${pkgs[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    if [ "$status" != "install ok installed" ]; then
        missing+=("$p")
    fi
done
if [ "${#missing[@]}" -gt 0 ]; then
    need_root "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends "${missing[@]}"
fi

# 1. cvc5 driver: cvc4_17.drv with "(set-logic ALL)", since cvc5 rejects ALL_SUPPORTED.
#    It also leaves out six field lemmas on real division ((x+y)/z = x/z + y/z, ...) that
#    Why3 otherwise sends with every goal: with them cvc5 times out on any goal that mixes
#    IEEE doubles and reals (e.g. "0.0 <= b < 1.0" for a double b in the oc_adam_check
#    contract); without them it proves those goals in about 2 s. Dropping hypotheses is
#    sound (it can only lose proofs), and cvc5 handles real division natively.
drv=/usr/share/why3/drivers/cvc5_103.drv
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cat > "$tmp" <<'EOF'
(** Why3 driver for cvc5 1.0.3 (written by optcert proofs/setup.sh) *)
prelude ";; produced by cvc5_103.drv ;;"
prelude "(set-logic ALL)"
unknown "^(error \"Can't get-info :reason-unknown when the last result wasn't unknown!\")$" "(not unknown!)"
import "cvc4_16.gen"
theory BuiltIn
  meta "supports_smt_get_info_unknown_reason" ""
end
theory real.Real
  remove prop add_div
  remove prop sub_div
  remove prop neg_div
  remove prop assoc_mul_div
  remove prop assoc_div_mul
  remove prop assoc_div_div
end
EOF
if ! cmp -s "$tmp" "$drv"; then
    need_root "writing $drv"
    install -m 644 "$tmp" "$drv"
fi

# 2. Detection entry. It must be in the system file: `why3 config detect` ignores entries
#    in ~/.why3.conf and in --extra-config.
det=/usr/share/why3/provers-detection-data.conf
if ! grep -q '^\[ATP cvc5\]' "$det"; then
    need_root "editing $det"
    cat >> "$det" <<'EOF'

# cvc5 1.0.3 (added by optcert proofs/setup.sh)
[ATP cvc5]
name = "CVC5"
exec = "cvc5"
version_switch = "--version"
version_regexp = "This is cvc5 version \\([^ \n\r]+\\)"
version_ok = "1.0.3"
driver = "cvc5_103"
command = "%e --stats --tlimit-per=%t000 --lang=smt2 %f"
command_steps = "%e --stats --rlimit=%S --lang=smt2 %f"
EOF
fi

# 3. Prover detection for the current user (rewrites ~/.why3.conf), then memlimit = 0.
rm -f "$HOME/.why3.conf"
why3 config detect >/dev/null
sed -i 's/^memlimit = .*/memlimit = 0/' "$HOME/.why3.conf"

# 4. WP must see both provers.
provers=$(frama-c -wp-detect 2>&1)
echo "$provers"
for p in z3 cvc5; do
    if ! grep -q "\[$p|" <<<"$provers"; then
        echo "setup.sh: WP does not see prover $p" >&2
        exit 1
    fi
done
echo "setup.sh: ok ($(frama-c -version), why3 $(why3 --version | awk '{print $NF}'), $(gappa --version))"
