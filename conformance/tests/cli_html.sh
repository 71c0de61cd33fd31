#!/bin/sh
# The HTML certificate (--html FILE, conformance/src/report_html.c) against the JSON report of the
# same run: a well-formed XHTML page whose verdict is the certificate's, one plotted point per
# case with a measured error (pass or FAIL, finite error/bound; the failures red), points higher
# for larger error/bound (triangles on the top edge off the scale), the bound's line at 1, the
# distribution by decade (every plotted case counted once, those over the bound right of the
# line), and a row with the certificate's detail for every case that did not pass. The plots of
# per-case series (report_html.c, judge.h oc_case_plot) against the JSON report's "plot": error /
# bound per step (the cases shown, each run of steps at its step and value), loss-scale and
# schedule trajectories (expected and observed, at their update or position; a failing case
# shows a point where they differ) and singular values (input, expected, observed, by rank): each
# point where the plot's tick labels put its data value (ref, loss-scale, schedule and
# Newton-Schulz mutants).
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
"$optcert" certify --impl ref --html "$tmp/r.html" --report "json:$tmp/r.json" >/dev/null
for run in loss-scale/growth-interval-off-by-one:loss-scale-megatron \
           schedule/warmup-off-by-one:schedule-megatron newton-schulz/one-step-fewer:newton-schulz-simple; do
    m=${run%%:*}
    fam=${run#*:}
    name=$(echo "$m" | tr / _)
    if "$optcert" certify --impl "mutant:$m" --family "$fam" --html "$tmp/$name.html" \
        --report "json:$tmp/$name.json" >/dev/null; then
        echo "mutant $m conforms"; exit 1
    fi
done
grep -q "^verdict: CONFORMS" "$tmp/p.txt" || { echo "--html suppressed the table"; exit 1; }
python3 - "$tmp/m.html" "$tmp/m.json" "$tmp/p.html" "$tmp/p.json" "$tmp/r.html" "$tmp/r.json" \
    "$tmp"/*_*.html "$tmp"/*_*.json <<'PY'
import json, math, sys
import xml.etree.ElementTree as ET
X, S = "{http://www.w3.org/1999/xhtml}", "{http://www.w3.org/2000/svg}"
F = lambda v: float(v)  # JSON's "inf", "nan" and the page's "inf", "-nan" alike
mutants = sys.argv[7:]  # the mutants' pages, then their reports
pages = sys.argv[1:7] + [a for b in zip(mutants[:len(mutants) // 2], mutants[len(mutants) // 2:])
                         for a in b]

def classes(e):
    return (e.get("class") or "").split()

def mapping(svg):
    """The data -> pixel maps the tick labels of a plot define (data-value at x, or y + 4)."""
    def affine(pairs, what):
        (a, pa), (b, pb) = min(pairs), max(pairs)
        assert b > a, (what, pairs)
        k = (pb - pa) / (b - a)
        assert all(abs(pa + k * (v - a) - p) < 0.05 for v, p in pairs), (what, pairs)
        return lambda v: pa + k * (v - a)
    ticks = [(t, F(t.get("data-value"))) for t in svg.iter(f"{S}text") if t.get("data-value")]
    log = svg.get("data-yscale") == "log"
    y0, y1 = F(svg.get("data-y0")), F(svg.get("data-y1"))
    fx = affine([(v, F(t.get("x"))) for t, v in ticks if "xtick" in classes(t)], "x ticks")
    ys = [(math.log10(v) if log else v, F(t.get("y")) - 4) for t, v in ticks
          if "ytick" in classes(t) and not (log and v == 0)]
    fy = affine(ys, "y ticks")
    zero = [F(t.get("y")) - 4 for t, v in ticks if "ytick" in classes(t) and log and v == 0]
    def Y(v):
        if log and v == 0:
            return zero[0]
        t = y1 if math.isnan(v) else math.log10(abs(v)) if log else v
        return fy(min(max(t, y0), y1))
    return fx, Y

def check_points(svg, xs, ys, px, py, what):
    fx, fy = mapping(svg)
    assert len(xs) == len(ys) == len(px) == len(py), what
    for x, y, a, b in zip(xs, ys, px, py):
        assert abs(fx(x) - a) < 0.05 and abs(fy(y) - b) < 0.05, (what, x, y, a, b, fx(x), fy(y))

def same(a, b):
    return len(a) == len(b) and all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))

def line(svg, cls):
    """The polyline of class cls: its data and its pixel coordinates."""
    [l] = [l for l in svg.iter(f"{S}polyline") if cls in classes(l)]
    pts = [tuple(map(float, p.split(","))) for p in l.get("points").split()]
    return ([F(v) for v in l.get("data-x").split()], [F(v) for v in l.get("data-y").split()],
            [p[0] for p in pts], [p[1] for p in pts])

def dots(svg, cls):
    c = [c for c in svg.iter(f"{S}circle") if cls in classes(c) and "mark" not in classes(c)]
    return ([F(e.get("data-x")) for e in c], [F(e.get("data-y")) for e in c],
            [F(e.get("cx")) for e in c], [F(e.get("cy")) for e in c])

def shown(cases, key, most):
    """The cases the page must show for plot data `key`: failures first, then the largest
    error / bound, then tcId order (report_html.c pick_cases)."""
    have = [c for c in cases.values() if key in c.get("plot", {})]
    have.sort(key=lambda c: (c["verdict"] != "FAIL", -F(c["maxErrorOverBound"]), c["tcId"]))
    return [c["tcId"] for c in have[:most]]

def family_elements(root, family):
    """The elements of a family's section of the page (after its h2, before the next)."""
    out, inside = [], False
    for el in root.find(f"{X}body"):
        if el.tag == f"{X}h2":
            inside = el.get("id") == family
        elif inside:
            out.append(el)
    return out

def series_plots(root, fam, cases):
    """Steps, trajectories and singular values of one family against the JSON report."""
    name, els = fam["family"], family_elements(root, fam["family"])
    steps = [e for e in els if e.tag == f"{S}svg" and "steps" in classes(e)]
    want = shown(cases, "steps", 8)
    assert len(steps) == (1 if want else 0), (name, len(steps))
    for svg in steps:
        groups = [g for g in svg.iter(f"{S}g")]
        assert [int(g.get("data-tcid")) for g in groups] == want, (name, "steps shown")
        for g in groups:
            st = cases[int(g.get("data-tcid"))]["plot"]["steps"]
            x, y, px, py = line(g, "case")
            assert x == [1 + b * st["runLength"] for b in range(len(st["worst"]))], (name, "steps x")
            assert same(y, [F(v) for v in st["worst"]]), (name, "steps y")
            check_points(svg, x, y, px, py, (name, g.get("data-tcid"), "steps"))
    divs = [e for e in els if e.tag == f"{X}div" and "case" in classes(e)]
    for key, cls in (("trajectory", "trajectory"), ("singularValues", "spectrum")):
        mine = [d for d in divs if any(cls in classes(s) for s in d.iter(f"{S}svg"))]
        assert [int(d.get("data-tcid")) for d in mine] == shown(cases, key, 4), (name, key)
        for d in mine:
            c = cases[int(d.get("data-tcid"))]
            data = c["plot"][key]
            for svg in d.iter(f"{S}svg"):
                if key == "trajectory":
                    xs, s = data["x"], data[svg.get("data-output")]
                    order = sorted(range(len(xs)), key=lambda i: xs[i])
                    want = {k: [s[k][i] for i in order] for k in ("expected", "got")}
                    xs = [xs[i] for i in order]
                else:
                    xs, want = data["rank"], {k: data[k] for k in ("input", "expected", "got")}
                for k, ys in want.items():
                    got = (dots if k == "got" else line)(svg, k)
                    assert got[0] == xs and same(got[1], [F(v) for v in ys]), (name, c["tcId"], k)
                    check_points(svg, *got, (name, c["tcId"], key, k))
            if key == "trajectory" and c["verdict"] == "FAIL":  # the first wrong point is kept
                assert any(not same([F(a)], [F(b)]) for o in data.values() if isinstance(o, dict)
                           for a, b in zip(o["expected"], o["got"])), (name, c["tcId"], "no wrong point")
    return len(steps), sum(1 for d in divs for _ in d.iter(f"{S}svg"))
drawn = [0, 0]
for page, report in zip(pages[0::2], pages[1::2]):
    root = ET.parse(page).getroot()  # raises on a page that is not well-formed
    doc = json.load(open(report))
    verdict = root.find(f".//{X}h2[@id='verdict']").text
    assert verdict == ("CONFORMS" if doc["conforms"] else "DOES NOT CONFORM"), (page, verdict)
    for fam in doc["families"]:
        cases = {c["tcId"]: c for c in fam["cases"]}
        if fam["skipped"] == len(cases):
            assert root.find(f".//{X}h2[@id='{fam['family']}']") is None, fam["family"]
            continue
        svg = [s for s in root.iter(f"{S}svg") if classes(s) == ["plot"]
               and s.find(f"{S}title").text.startswith(fam["family"] + ":")]
        for i, n in enumerate(series_plots(root, fam, cases)):
            drawn[i] += n
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
assert all(drawn), drawn
print(f"cli_html: pages agree with the JSON reports ({drawn[0]} plots by step, {drawn[1]} "
      "trajectory and singular-value plots)")
PY
