#!/bin/sh
# The HTML certificate in a real browser: headless chromium (ci/setup.sh) renders the page of a
# failing mutant to a screenshot, and the plot is there: pixels of the failure colour (#d22) and
# of the pass colour (#2a7) inside the plot's box, as report_html.c draws them; the page of a
# conforming plugin has pass pixels and none of the failure colour in its plot. Skipped (77)
# without chromium.
#   html_browser.sh OPTCERT_BINARY PLUGIN
set -eu
optcert=$1
plugin=$2
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "html_browser: no chromium (ci/setup.sh installs it): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$optcert" certify --impl mutant:eps-inside-sqrt --family adam-torch --html "$tmp/m.html" >/dev/null || true
"$optcert" certify --impl "$plugin" --family adam-torch --html "$tmp/p.html" >/dev/null
for page in m p; do
    # the certificate's header, the table and the first plot fit in 820 x 700
    HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size=820,700 --screenshot="$tmp/$page.png" "file://$tmp/$page.html" \
        >"$tmp/$page.log" 2>&1 || { cat "$tmp/$page.log"; exit 1; }
done
python3 - "$tmp/m.png" "$tmp/p.png" <<'PY'
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

def count(rows, rgb):
    return sum(px == rgb for row in rows[300:] for px in row)  # below the header and table

fail, ok = (0xdd, 0x22, 0x22), (0x22, 0xaa, 0x77)
m, p = pixels(sys.argv[1]), pixels(sys.argv[2])
assert count(m, fail) > 50 and count(m, ok) > 10, (count(m, fail), count(m, ok))
assert count(p, ok) > 50 and count(p, fail) == 0, (count(p, ok), count(p, fail))
print(f"html_browser: chromium drew the plots ({count(m, fail)} failure, {count(p, ok)} pass pixels)")
PY
