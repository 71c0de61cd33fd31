"""The adapter runs of ci/certify-outside.sh that share one Python environment, in one
interpreter that imports the heavy libraries once (torch takes 3 to 5 s of CPU to import, as
much as a whole adapter run of Debian's torch 1.13): each run is a child forked from it, so no
state passes from one run to another (the parent only imports). Run by the environment's
interpreter, with its PYTHONPATH, from the repository root:
    outside_batch.py JOBS OUT RUNS [MODULE...]
imports each MODULE, then runs the lines of RUNS, `N LIBRARY SCRIPT FAMILY RESULTS [FLAG...]`,
JOBS at a time: conformance/adapters/SCRIPT.py FLAG... --vectors vectors/FAMILY/FAMILY.json
--out RESULTS as its own program would run (sys.argv, sys.path[0] its folder, __main__), its
standard output and error in OUT/N.adapter.log; then writes OUT/N.status, its exit status (128 + the
signal that ended it), and OUT/N.version, LIBRARY's installed version (the run fails without
one). Exit 2 on bad usage."""
import os
import runpy
import sys
import traceback
from importlib import metadata

ADAPTERS = os.path.join("conformance", "adapters")  # from the repository root


def child(out, n, script, argv):
    """In the forked child: the adapter run as `python SCRIPT ARGV...` runs it; never returns."""
    fd = os.open(os.path.join(out, n + ".adapter.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.argv = [script] + argv
    code = 0
    try:  # __file__ absolute, as Python >= 3.9 sets it for a script
        runpy.run_path(os.path.abspath(script), run_name="__main__")
    except SystemExit as e:  # as the interpreter does with sys.exit's argument
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:  # an uncaught exception, printed as the interpreter does
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv):
    if len(argv) < 4 or not argv[1].isdigit() or int(argv[1]) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    jobs, out, runs = int(argv[1]), argv[2], argv[3]
    sys.path[0] = os.path.abspath(ADAPTERS)  # as for `python conformance/adapters/SCRIPT.py`
    for module in argv[4:]:
        __import__(module)
    versions, running = {}, {}

    def reap():
        pid, status = os.wait()
        n = running.pop(pid)
        code = os.waitstatus_to_exitcode(status)
        with open(os.path.join(out, n + ".status"), "w") as f:
            print(code if code >= 0 else 128 - code, file=f)

    for line in open(runs, encoding="utf-8"):
        n, library, script, family, results, *flags = line.split()
        if library not in versions:
            try:
                versions[library] = metadata.version(library)
            except metadata.PackageNotFoundError:
                versions[library] = None
        if versions[library] is not None:
            with open(os.path.join(out, n + ".version"), "w") as f:
                print(versions[library], file=f)
        while len(running) >= jobs:
            reap()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            child(out, n, os.path.join(ADAPTERS, script + ".py"),
                  flags + ["--vectors", f"vectors/{family}/{family}.json", "--out", results])
        running[pid] = n
    while running:
        reap()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
