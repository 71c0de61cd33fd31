#!/bin/sh
# The HTML certificate (--html FILE, conformance/src/report_html.c) against the JSON report of the
# same run: a well-formed XHTML page whose verdict is the certificate's, one plotted point per
# case with a measured error (pass or FAIL, finite error/bound; the failures red), points higher
# for larger error/bound (triangles on the top edge off the scale), the bound's line at 1, the
# distribution by decade (every plotted case counted once, those over the bound right of the
# line), and a row with the certificate's detail for every case that did not pass.
#   cli_html.sh OPTCERT_BINARY PLUGIN
set -eu
optcert=$1
plugin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set +e
"$optcert" certify --impl mutant:eps-inside-sqrt --family adam-torch --html "$tmp/m.html" \
    --report "json:$tmp/m.json" >/dev/null
rc_mutant=$?
"$optcert" certify --impl "$plugin" --html "$tmp/p.html" --report table --report "json:$tmp/p.json" >"$tmp/p.txt"
rc_plugin=$?
set -e
[ $rc_mutant -eq 1 ] && [ $rc_plugin -eq 0 ] || { echo "exit statuses $rc_mutant, $rc_plugin"; exit 1; }
grep -q "^verdict: CONFORMS" "$tmp/p.txt" || { echo "--html suppressed the table"; exit 1; }
python3 - "$tmp/m.html" "$tmp/m.json" "$tmp/p.html" "$tmp/p.json" <<'PY'
import json, math, sys
import xml.etree.ElementTree as ET
X, S = "{http://www.w3.org/1999/xhtml}", "{http://www.w3.org/2000/svg}"
for page, report in zip(sys.argv[1::2], sys.argv[2::2]):
    root = ET.parse(page).getroot()  # raises on a page that is not well-formed
    doc = json.load(open(report))
    verdict = root.find(f".//{X}h2[@id='verdict']").text
    assert verdict == ("CONFORMS" if doc["conforms"] else "DOES NOT CONFORM"), (page, verdict)
    for fam in doc["families"]:
        cases = {c["tcId"]: c for c in fam["cases"]}
        if fam["skipped"] == len(cases):
            assert root.find(f".//{X}h2[@id='{fam['family']}']") is None, fam["family"]
            continue
        svg = [s for s in root.iter(f"{S}svg")
               if s.find(f"{S}title").text.startswith(fam["family"] + ":")]
        r = lambda c: c["maxErrorOverBound"]
        want = {t for t, c in cases.items() if c["verdict"] in ("pass", "FAIL")
                and isinstance(r(c), float) and not (c["verdict"] == "FAIL" and r(c) == 0)}
        points = {int(p.get("data-tcid")): p for s in svg for p in s.iter()
                  if p.tag in (f"{S}circle", f"{S}polygon")}
        cy = lambda p: float(p.get("cy") or p.get("points").split()[2].split(",")[1])
        assert set(points) == want, (fam["family"], sorted(set(points) ^ want))
        for t, p in points.items():
            assert ("fail" in p.get("class")) == (cases[t]["verdict"] == "FAIL"), (fam["family"], t)
        ys = sorted((r(cases[t]), cy(p)) for t, p in points.items())
        assert all(a[1] >= b[1] for a, b in zip(ys, ys[1:])), (fam["family"], "not monotonic")
        if want:
            assert [l for s in svg for l in s.iter(f"{S}line") if l.get("class") == "bound"]
            bars = [b for s in svg for b in s.iter(f"{S}rect")]  # the distribution
            assert sum(int(b.get("data-count")) for b in bars) == len(want), fam["family"]
            over = sum(int(b.get("data-count")) for b in bars if b.get("class") == "fail")
            assert over == sum(1 for t in want if r(cases[t]) > 1), (fam["family"], over)
            exact = [int(b.get("data-count")) for b in bars if b.get("data-bin") == "exact"]
            assert exact == [sum(1 for t in want if r(cases[t]) == 0)], fam["family"]
        rows, section = {}, False
        for el in root.find(f"{X}body"):
            if el.tag == f"{X}h2":
                section = el.get("id") == fam["family"]
            elif section and el.tag == f"{X}table":
                for tr in el.iter(f"{X}tr"):
                    td = [d.text or "" for d in tr.iter(f"{X}td")]
                    if td:
                        rows[int(td[0])] = (td[1], td[4])
        for t, c in cases.items():
            if c["verdict"] != "pass":
                like = f" -- behaves like {c['behavesLike']}" if c.get("behavesLike") else ""
                assert rows.get(t) == (c["verdict"], c["detail"] + like), (fam["family"], t, rows.get(t))
        assert all(cases[t]["verdict"] != "pass" for t in rows)
print("cli_html: pages agree with the JSON reports")
PY
