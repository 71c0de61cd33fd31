#!/bin/sh
# The HTML certificate in a real browser: headless chromium (ci/setup.sh) loads each page and
# logs no console message (a script's console.error shows as :CONSOLE in its log); the DOM it
# built has the headings (h1, the verdict, an h2 per family, the trajectory and singular-value
# h3s); its screenshot shows the plots: pixels of the failure colour (#d22) and of the pass
# colour (#2a7) in the page of a failing mutant, the pass colour and none of the failure colour
# in the page of a conforming plugin, and in the loss-scale and Newton-Schulz pages the observed
# points (#e80) and the expected lines (#333) of the trajectories and singular values. The
# screenshots are kept in ARTIFACTS (CI's artifact folder). Skipped (77) without chromium.
#   html_browser.sh OPTCERT_BINARY PLUGIN ARTIFACTS
set -eu
optcert=$1
plugin=$2
artifacts=$3
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "html_browser: no chromium (ci/setup.sh installs it): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$optcert" certify --impl mutant:eps-inside-sqrt --family adam-torch --html "$tmp/m.html" >/dev/null || true
"$optcert" certify --impl "$plugin" --family adam-torch --html "$tmp/p.html" >/dev/null
"$optcert" certify --impl mutant:loss-scale/growth-interval-off-by-one --family loss-scale-megatron \
    --html "$tmp/l.html" >/dev/null || true
"$optcert" certify --impl mutant:newton-schulz/one-step-fewer --family newton-schulz-simple \
    --html "$tmp/n.html" >/dev/null || true
mkdir -p "$artifacts"
for page in m p l n; do
    # m, p: the certificate's header, the table and the first plot fit in 820 x 700; l, n: the
    # trajectories and singular values below them in 820 x 1600
    size=820,700
    case $page in l|n) size=820,1600;; esac
    HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --enable-logging=stderr --v=0 --window-size=$size --screenshot="$tmp/$page.png" \
        --dump-dom "file://$tmp/$page.html" >"$tmp/$page.dom" 2>"$tmp/$page.log" ||
        { cat "$tmp/$page.log"; exit 1; }
    if grep ':CONSOLE' "$tmp/$page.log"; then echo "html_browser: $page.html: console messages"; exit 1; fi
    cp "$tmp/$page.png" "$artifacts/html_browser_$page.png"
done
python3 - "$tmp" <<'HEADINGS'
import sys
from html.parser import HTMLParser

class Headings(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found, self.open = [], None
    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3"):
            self.open = [tag, dict(attrs).get("id"), ""]
    def handle_data(self, data):
        if self.open:
            self.open[2] += data
    def handle_endtag(self, tag):
        if self.open and tag == self.open[0]:
            self.found.append(tuple(self.open))
            self.open = None

want = {"m": ["adam-torch"], "p": ["adam-torch"], "l": ["loss-scale-megatron", "Loss-scale trajectories"],
        "n": ["newton-schulz-simple", "Singular values before and after"]}
for page, names in want.items():
    h = Headings()
    h.feed(open(f"{sys.argv[1]}/{page}.dom").read())
    texts = [t for _, _, t in h.found]
    assert ("h1", None, "optcert certificate") in h.found, (page, h.found)
    assert [t for tag, i, t in h.found if i == "verdict"] in (["CONFORMS"], ["DOES NOT CONFORM"]), page
    assert all(any(t.startswith(n) for t in texts) for n in names), (page, names, texts)
print("html_browser: the DOM has the headings")
HEADINGS
python3 - "$tmp/m.png" "$tmp/p.png" "$tmp/l.png" "$tmp/n.png" <<'PY'
import struct, sys, zlib

def pixels(path):
    """RGB rows of an 8-bit non-interlaced RGB/RGBA PNG (what chromium writes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 3 if color == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return rows

def count(rows, rgb, below=300):
    return sum(px == rgb for row in rows[below:] for px in row)  # below the header and table

fail, ok = (0xdd, 0x22, 0x22), (0x22, 0xaa, 0x77)
got, expected = (0xee, 0x88, 0x00), (0x33, 0x33, 0x33)
m, p, l, n = (pixels(a) for a in sys.argv[1:5])
assert count(m, fail) > 50 and count(m, ok) > 10, (count(m, fail), count(m, ok))
assert count(p, ok) > 50 and count(p, fail) == 0, (count(p, ok), count(p, fail))
for name, page in (("loss-scale", l), ("newton-schulz-simple", n)):  # below the first two plots
    assert count(page, got, 1000) > 100 and count(page, expected, 1000) > 100, \
        (name, count(page, got, 1000), count(page, expected, 1000))
print(f"html_browser: chromium drew the plots ({count(m, fail)} failure, {count(p, ok)} pass pixels; "
      f"{count(l, got, 1000)}, {count(n, got, 1000)} observed-point pixels in the trajectories, "
      "singular values)")
PY
