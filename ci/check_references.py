#!/usr/bin/python3
"""Every reference resolves inside the repository (issue 16 item 5): a repository path cited in
the documentation, the spec or a source comment (`spec/clip.md`, `ref/adam.c`,
`proofs/NOTES.md`, ...) names a file or folder of the tree, and nothing cites the documents that
were never in it ("reference-facts.md", an "ARCHITECTURE" page). Paths with a placeholder
(`<fam>`, `{a,b}`, `*`, `FILE`) are patterns, not citations, and are skipped; so are generated
files (the build's registries, proofs/out/'s logs) and a test fixture's made-up paths.
usage: ci/check_references.py [FILE ...]   (exit 1 on any unresolved reference; FILEs, outside
the tree too, are read besides the tracked files: the test gives it one with bad cites)"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
TOP = "spec|ref|include|conformance|vectors|fast|proofs|ci|docs|cmake|python|common"
PATH = re.compile(rf"(?<![\w./-])((?:{TOP})/[\w./+-]*[\w/])")
ABSENT = re.compile(r"reference-facts\.md|\bARCHITECTURE\b")
GENERATED = re.compile(r"_registry\.[ch]$")
PLACEHOLDER = re.compile(r"(^|/)(FILE|FAMILY|ADAPTER|SCRIPT|FAM|NAME|X)(\.|/|$)")
FIXTURES = {"conformance/tests/ref_coverage_fixture.py"}  # a test's made-up paths

tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                         check=True).stdout.split()
texts = [f for f in tracked if re.search(r"\.(md|c|h|cu|py|sh|toml|txt|cmake|inc)$", f)
         or f.endswith("CMakeLists.txt")]
texts += [str(pathlib.Path(a).resolve()) for a in sys.argv[1:]]
problems = 0
for f in texts:
    if (f.startswith(("vectors/", "conformance/fuzz/")) and not f.startswith("vectors/gen/")
            or f in FIXTURES):
        continue  # data: vector files and fuzz corpora
    for n, line in enumerate((root / f).read_text(errors="replace").splitlines(), 1):
        if ABSENT.search(line) and f != "ci/check_references.py":  # which names them
            print(f"{f}:{n}: cites a document that is not in the repository: {line.strip()}")
            problems += 1
        for m in PATH.finditer(line):
            p, after = m.group(1).rstrip("."), line[m.end(1):m.end(1) + 2]
            if (re.match(r"[-_]?[<{*]", after) or PLACEHOLDER.search(p) or GENERATED.search(p)
                    or p.startswith("proofs/out/")):
                continue
            if not (root / p).exists():
                print(f"{f}:{n}: {p} does not exist")
                problems += 1
print(f"{len(texts)} files read, {problems} unresolved reference(s)")
sys.exit(1 if problems else 0)
