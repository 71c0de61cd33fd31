#!/usr/bin/env bash
# Shows what proofs/prove's Gappa verdict stops, on replayed results (no Gappa run): in a scratch
# copy of the tree, the cached results of lion.gappa are edited.
#   1. the committed results: pass;
#   2. a goal proved above the part's limit (the generator's allowance): fails, naming it;
#   3. a file Gappa did not prove (non-zero exit): fails;
#   4. a warning (a hint whose denominator Gappa only assumed nonzero): fails;
#   5. a goal the part's limits name, missing from the results: fails.
name=test_gappa part=lion.gappa entry=proofs/cache/lion.gappa.json
. "$(dirname "$0")/test_common.sh"
edit() { # edit PYTHON-STATEMENTS on r, the results of proofs/gappa/param_sub.g
    python3 - "$tmp/$entry" "$1" <<'PY'
import json, sys
path, code = sys.argv[1], sys.argv[2]
e = json.load(open(path))
r = e["gappa"]["proofs/gappa/param_sub.g"]
exec(code)
json.dump(e, open(path, "w"))
PY
}
check "the committed results" 0 "replayed"
edit "r['goals']['k_sep'][2] = 6.5"
check "param_sub.k_sep proved at 6.5, limit 6" 1 "limit param_sub.k_sep"
edit "r['rc'] = 1"
check "param_sub.g not proved" 1 "gappa exited 1"
edit "r['warnings'] = ['Warning: the expression (x) has been assumed to be nonzero when checking a rewriting rule.']"
check "a warning of param_sub.g" 1 "assumed to be nonzero"
edit "del r['goals']['k_fma']"
check "param_sub.k_fma missing" 1 "limit param_sub.k_fma: no such goal"
[ "$fails" = 0 ]
