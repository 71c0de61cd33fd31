#!/usr/bin/env bash
# Shows what proofs/prove's baseline check lets through and what it stops, on replayed results
# (no Frama-C run): in a scratch copy of the tree, the cached results of adam.main are edited.
#   1. a runtime-error goal renumbered (typed_..._rte_mem_access_3 -> _99, still Valid): passes;
#   2. one runtime-error goal no longer proved (Timeout): fails, naming its function;
#   3. a named clause no longer proved: fails, naming the goal.
name=test_baseline part=adam.main entry=proofs/cache/adam.main.json
. "$(dirname "$0")/test_common.sh"
edit() { # edit PYTHON-EXPRESSION-ON-goals: rewrites the scratch copy's entry
    python3 - "$tmp/$entry" "$1" <<'PY'
import json, sys
path, code = sys.argv[1], sys.argv[2]
e = json.load(open(path))
goals = e["goals"]
exec(code)
json.dump(e, open(path, "w"))
PY
}
check "the committed results" 0
rte=$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["goals"]
print(next(k for k, s in g.items() if "_rte_" in k and k[-2] == "_" and s == "Valid"))' "$entry")
named=$(awk '$1 == "adam.main" && $2 == "proved" { print $3; exit }' proofs/baseline.txt)
edit "goals['${rte%_*}_99'] = goals.pop('$rte')"
check "renumbered $rte (still proved)" 0
edit "goals['$rte'] = 'Timeout'"
check "$rte no longer proved" 1 "FAIL adam.main: function"
edit "goals['$named'] = 'Unknown'"
check "named clause $named no longer proved" 1 "goal $named"
[ "$fails" = 0 ]
