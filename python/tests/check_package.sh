#!/bin/sh
# The Python package as a user gets it: `pip install ./python` (scikit-build-core compiles the C
# harness with CMake, OPTCERT_HARNESS_ONLY, and puts it in the package) into a fresh directory,
# then, with nothing but that directory on the path: optcert.torch and the pytest plugin under
# torch 2.15 (/opt/optcert-torch2), optcert.optax and optcert.keras (Keras 3 on jax) in the jax
# environment (/opt/optcert-jax).
# Both environments have scikit-build-core and pytest (ci/setup-python.sh); the build uses them
# (--no-build-isolation) rather than fetching them from PyPI, and the torch/numpy/jax already there
# (--no-deps). ci/test runs it.
#   python/tests/check_package.sh
set -eu
cd "$(dirname "$0")/../.."
T2=/opt/optcert-torch2/bin/python
JAX=/opt/optcert-jax/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
"$T2" -m pip install -q --no-build-isolation --no-deps --target "$tmp/site" ./python
echo "check_package: pip install ./python: $(( $(date +%s) - t0 )) s"
unset OPTCERT_EXECUTABLE OPTCERT_VECTORS
export PYTHONPATH="$tmp/site"
"$T2" -m pytest -q -p no:cacheprovider python/tests/test_torch.py python/tests/test_mapping.py \
    python/tests/test_plugin.py
KERAS_BACKEND=jax "$JAX" -m pytest -q -p no:cacheprovider python/tests/test_optax.py \
    python/tests/test_keras.py
