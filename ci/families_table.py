#!/usr/bin/python3
"""README's table of the families, from `optcert families` (family, profile, case counts, spec
rules) and each family's vector file (its algorithm): one row per family.
  families_table.py OPTCERT [--check README.md]
prints the table; with --check, exits 1 when README.md's table (between the lines
`<!-- families: ci/families_table.py -->` and `<!-- end families -->`) differs from it, 2 on
bad usage. ctest readme_families runs the check."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- families: ci/families_table.py -->", "<!-- end families -->"


def table(optcert):
    lines = subprocess.run([optcert, "families"], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    rows = ["| family | algorithm | profile | cases (valid / invalid / acceptable) | spec rules |",
            "|---|---|---|---|---|"]
    for line in lines[1:]:
        family, profile, valid, invalid, acceptable, _, *rules = line.split()
        doc = json.loads((ROOT / "vectors" / family / f"{family}.json").read_text())
        prefixes = sorted({r.split("-")[0] + "-*" for r in rules})
        rows.append(f"| `{family}` | {doc['algorithm']} | {profile} | {valid} / {invalid} / "
                    f"{acceptable} | {len(rules)} ({', '.join(prefixes)}) |")
    return "\n".join(rows) + "\n"


def main(argv):
    if len(argv) not in (1, 3) or (len(argv) == 3 and argv[1] != "--check"):
        print(__doc__, file=sys.stderr)
        return 2
    made = table(argv[0])
    if len(argv) == 1:
        sys.stdout.write(made)
        return 0
    text = Path(argv[2]).read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"families_table: {argv[2]} has no {BEGIN} ... {END} block", file=sys.stderr)
        return 2
    current = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    if current != made:
        print(f"families_table: the table in {argv[2]} is stale; regenerate it with "
              f"ci/families_table.py build/optcert:\n{made}", file=sys.stderr)
        return 1
    print(f"families_table: {argv[2]}: {len(made.splitlines()) - 2} families, up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
