#!/usr/bin/python3
"""Branch coverage of the reference (ref/) by the committed vectors (issue 19 item 3).

    ci/ref_coverage.py BUILD_DIR [--list] [--mutants]

BUILD_DIR is a build configured with -DOPTCERT_REF_COVERAGE=ON with optcert and the reference's
CUnit suites (conformance/tests/test_ref_*.c) built (ci/ref-coverage.sh makes one). Its optcert
runs `optcert certify --impl ref --class exact` over the committed vectors (must conform), the
CUnit suites run (must pass), and with --mutants `optcert mutants` runs, nproc programs at a time,
each kind of run writing its own counters (GCOV_PREFIX, a temporary directory); gcov -b -c reads
every ref/*.c from each kind's. A branch is
  - covered: taken by some vector case;
  - a mutant branch: not taken, on a source line that names a mutant (the catalogued mistakes
    are the mutants' code paths, not the reference's; ctest cli_mutants shows each of them
    killed). With --mutants such a branch must be taken by `optcert mutants`;
  - excepted: its source line is listed in ci/ref-coverage-exceptions.txt, either by itself
    (`ref/FILE.c:LINE justification`) or as one of a class of lines no vector can reach
    (`unit /REGEX/ justification`: every line of ref/ matching REGEX; each of their branches that
    no vector takes must be taken by the CUnit suites, else it counts as uncovered);
  - otherwise uncovered.
Prints per file and in total: branches (mutant branches left out), covered, excepted, uncovered,
the figure covered / (branches - excepted), and per class how many branches it excepts. Exit 1
if the figure is below the floor in ci/ref-coverage-floor.txt, more branches are uncovered than
the ceiling there (its second number), or an exception names a line
(or a class matches no branch) with no untaken branch (stale), or a line that no longer reads
the exception's quoted text (moved); 2 on bad usage or when the
reference does not conform. --list prints every uncovered branch. ctest ref_coverage_fixture
(conformance/tests/ref_coverage_fixture.py) checks the verdict (judge) on a fake gcov report.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# a line that names a mutant, or a variable that holds one's choice (swapped betas, Lion's sign
# of zero, truncating narrowing, the Gram matrix of the wrong side)
MUTANT_LINE = re.compile(r"mutant|_MUT_|\b(swapped|zero_is_one|truncate|wrong_side)\b",
                         re.IGNORECASE)


def parse_gcov(path, name, branches, source):
    """Adds the branches and source lines of gcov -b -c's report `path` of ref/NAME to
    branches {(file, line): [taken count per branch]} and source {(file, line): text}."""
    line = None
    for text in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"\s*([^:]+):\s*(\d+):(.*)", text)
        if m and not text.startswith("branch") and not text.startswith("call"):
            line = int(m.group(2))
            source[("ref/" + name, line)] = m.group(3)
            continue
        b = re.match(r"branch\s+\d+\s+(taken (\d+)|never executed)", text)
        if b and line is not None:
            taken = int(b.group(2)) if b.group(2) is not None else 0
            branches.setdefault(("ref/" + name, line), []).append(taken)


def gcov(build, data):
    """{(file, line): [taken count per branch]} for every ref/*.c, and the source lines, from the
    counters that runs with GCOV_PREFIX=data wrote (beside a copy of the build's notes files)."""
    objdir = os.path.join(build, "CMakeFiles", "optcert_ref.dir", "ref")
    counters = data + objdir  # GCOV_PREFIX prefixes the object directory's absolute path
    os.makedirs(counters, exist_ok=True)
    branches, source = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(os.path.join(ROOT, "ref"))):
            if not name.endswith(".c"):
                continue
            src = os.path.join(ROOT, "ref", name)
            shutil.copy(os.path.join(objdir, name + ".gcno"), counters)
            subprocess.run(["gcov", "-b", "-c", "-o", os.path.join(counters, name + ".gcno"), src],
                           cwd=tmp, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            path = os.path.join(tmp, name + ".gcov")
            if os.path.exists(path):
                parse_gcov(path, name, branches, source)
    return branches, source


def run_all(build, runs):
    """Runs each (counters directory, program, arguments) of runs, nproc at a time (in the order
    of runs: the longest first), each writing its counters under its directory (GCOV_PREFIX;
    libgcov merges the counters of concurrent runs under a lock); returns their exit statuses."""
    def one(r):
        data, program, args = r
        env = dict(os.environ, GCOV_PREFIX=data)
        return subprocess.run([os.path.join(build, program)] + args, cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
        return list(pool.map(one, runs))


def unit_suites():
    """The reference's CUnit suites, relative to the build directory."""
    tests = os.path.join(ROOT, "conformance", "tests")
    return sorted(os.path.join("conformance", "tests", f[:-2]) for f in os.listdir(tests)
                  if f.startswith("test_ref_") and f.endswith(".c"))


def unit_excepted(classes, line, unit_counts, b):
    """Whether branch b of a source line is excepted by a class: the line matches the class and
    the CUnit suites take the branch (the first matching class counts it)."""
    for c in classes:
        if c[0].search(line):
            if b < len(unit_counts) and unit_counts[b]:
                c[2] += 1
                return True
            return False
    return False


def read_exceptions(path):
    """The exceptions file: ({(file, line): (quoted text, why)}, [[class regex, why, count]]).
    Raises ValueError naming a malformed line exception."""
    exceptions, classes = {}, []
    for text in open(path, encoding="utf-8"):
        m = re.match(r"(ref/\S+\.c):(\d+)\s+`([^`]+)`\s+(\S.*)", text)
        if m:
            exceptions[(m.group(1), int(m.group(2)))] = (m.group(3), m.group(4))
        elif re.match(r"ref/", text):
            raise ValueError(f"malformed exception (ref/FILE.c:LINE `TEXT` why): {text.strip()}")
        m = re.match(r"unit /(.+)/\s+(\S.*)", text)
        if m:
            classes.append([re.compile(m.group(1)), m.group(2), 0])
    return exceptions, classes


def judge(ref, source, units, mut, exceptions, classes, floor, root=ROOT, listing=False,
          most_untaken=None):
    """Counts and prints the branches (ref, units, mut: gcov's counts of the vectors, the CUnit
    suites and the mutants, or None without --mutants; source: gcov's source lines) against the
    exceptions (read_exceptions; their quoted text is checked in the files under root).
    Returns the exit status: 1 below the floor, with more uncovered branches than most_untaken
    (None: no ceiling), or with a stale or moved exception, else 0."""
    moved = []  # an exception whose line no longer reads its text: the line moved
    for (path, line), (quoted, _) in sorted(exceptions.items()):
        lines = open(os.path.join(root, path), encoding="utf-8").read().splitlines()
        if line > len(lines) or lines[line - 1].strip() != quoted:
            moved.append((path, line, quoted))
    per_file, uncovered, used = {}, [], set()
    for key, counts in sorted(ref.items()):
        mcounts = mut.get(key, [0] * len(counts)) if mut is not None else [1] * len(counts)
        f = per_file.setdefault(key[0], [0, 0, 0, 0])  # branches, covered, excepted, uncovered
        for b, taken in enumerate(counts):
            if taken:
                f[0] += 1
                f[1] += 1
            elif MUTANT_LINE.search(source.get(key, "")) and b < len(mcounts) and mcounts[b]:
                continue  # a mutant branch
            elif key in exceptions:
                f[0] += 1
                f[2] += 1
                used.add(key)
            elif unit_excepted(classes, source.get(key, ""), units.get(key, []), b):
                f[0] += 1
                f[2] += 1
            else:
                f[0] += 1
                f[3] += 1
                uncovered.append((key, b))
    total = [sum(v[i] for v in per_file.values()) for i in range(4)]
    print("branch coverage of ref/ by the committed vectors (gcov; mutant branches left out)")
    print(f"{'file':26} {'branches':>8} {'covered':>8} {'excepted':>8} {'uncovered':>9} {'figure':>7}")
    for name, v in sorted(per_file.items()) + [("total", total)]:
        fig = 100.0 * v[1] / max(v[0] - v[2], 1)
        print(f"{name:26} {v[0]:8d} {v[1]:8d} {v[2]:8d} {v[3]:9d} {fig:6.2f}%")
    figure = 100.0 * total[1] / max(total[0] - total[2], 1)
    for regex, why, count in classes:
        print(f"excepted as /{regex.pattern}/ (taken by the CUnit suites): {count} branches")
    stale = sorted(set(exceptions) - used)
    for key in stale:
        print(f"stale exception (no untaken branch there): {key[0]}:{key[1]}")
    for path, line, quoted in moved:
        print(f"moved exception: {path}:{line} does not read `{quoted}`")
    stale_classes = [c for c in classes if c[2] == 0]
    for regex, _, _ in stale_classes:
        print(f"stale exception class (excepts no branch): /{regex.pattern}/")
    if listing:
        for (key, b) in uncovered:
            print(f"uncovered: {key[0]}:{key[1]} branch {b}: {source.get(key, '').strip()}")
    print(f"figure: {figure:.2f}% of the reference's branches taken by a vector case "
          f"(floor {floor:.2f}%)")
    over = most_untaken is not None and len(uncovered) > most_untaken
    print(f"uncovered: {len(uncovered)} branches neither taken nor excepted (at most "
          f"{most_untaken if most_untaken is not None else 'any'}; issue 19 item 3's goal is 0)")
    return 1 if figure < floor or over or stale or moved or stale_classes else 0


def main(argv):
    if len(argv) < 2 or not os.path.isdir(argv[1]):
        print(__doc__, file=sys.stderr)
        return 2
    build, listing = os.path.abspath(argv[1]), "--list" in argv[2:]
    verify = "--mutants" in argv[2:]
    try:
        exceptions, classes = read_exceptions(os.path.join(ROOT, "ci", "ref-coverage-exceptions.txt"))
    except ValueError as e:
        print(f"ref_coverage: {e}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as data:
        vectors, units, mutants = (os.path.join(data, d) for d in ("vectors", "units", "mutants"))
        # `optcert mutants` with --mutants (a minute on one core; exit 1 would mean a surviving
        # mutant: ctest cli_mutants says so), the vectors and the CUnit suites, counted apart
        suites = unit_suites()
        runs = [(mutants, "optcert", ["mutants"])] if verify else []
        runs.append((vectors, "optcert", ["certify", "--impl", "ref", "--class", "exact"]))
        status = run_all(build, runs + [(units, suite, []) for suite in suites])
        if status[len(runs) - 1] != 0:
            print("ref_coverage: the reference does not conform to the vectors", file=sys.stderr)
            return 2
        for suite, st in zip(suites, status[len(runs):]):
            if st != 0:
                print(f"ref_coverage: {suite} fails", file=sys.stderr)
                return 2
        ref, source = gcov(build, vectors)
        units, _ = gcov(build, units)
        mut = gcov(build, mutants)[0] if verify else None
    # ci/ref-coverage-floor.txt: the floor in percent, then the most uncovered branches allowed
    # (a ratchet: lowered as branches get cases or exceptions, to 0)
    words = open(os.path.join(ROOT, "ci", "ref-coverage-floor.txt")).read().split()
    floor, most_untaken = float(words[0]), int(words[1])
    return judge(ref, source, units, mut, exceptions, classes, floor, listing=listing,
                 most_untaken=most_untaken)

if __name__ == "__main__":
    sys.exit(main(sys.argv))
