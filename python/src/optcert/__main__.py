"""`python -m optcert ARGS` (and the `optcert` script pip installs): the optcert command of this
package with the same arguments, its output and exit status (README: Commands)."""
import os
import sys

from . import OptcertError, executable


def main():
    try:
        exe = executable()
    except OptcertError as e:
        print(f"optcert: {e}", file=sys.stderr)
        return 2
    os.execv(exe, [exe] + sys.argv[1:])
    return 2  # not reached: execv replaces this process or raises


if __name__ == "__main__":
    sys.exit(main())
