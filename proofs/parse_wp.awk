# Reads a WP log and prints "<goal> <status>" per goal: "[wp] [<prover>] Goal <name> : <status>"
# or, when several provers failed, "[wp] [Failed] Goal <name>" followed by one
# "  <prover>: <status> ..." line per prover; a failed goal reports Timeout if any prover timed
# out, else Unknown if any answered unknown, else Failed. Used by run.sh and run_loss_scale.sh.
function flush() { if (goal != "") print goal, (st == "" ? "Failed" : st); goal = ""; st = "" }
function rank(s) { return s == "Valid" ? 4 : s == "Timeout" ? 3 : s == "Unknown" ? 2 : 1 }
/^\[wp\] \[[^]]*\] Goal / {
    flush()
    goal = $0; sub(/^.*\] Goal /, "", goal); sub(/ .*$/, "", goal)
    if (match($0, / : [A-Za-z]+/)) st = substr($0, RSTART + 3, RLENGTH - 3)
    next
}
goal != "" && /^  [^ ][^:]*: [A-Za-z]+/ {
    v = $0; sub(/^[^:]*: /, "", v); sub(/ .*$/, "", v)
    if (rank(v) > rank(st)) st = v
    next
}
{ flush() }
END { flush() }
