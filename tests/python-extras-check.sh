#!/bin/sh
# The Python package's tests in the virtual environment of scripts/python-extras.sh
# (NumPy 2.5 on Python 3.12 or later where the machine has one, ml_dtypes for bfloat16 keys
# and a pyopencl built for that numpy), then pyopencl's own
# test of its RadixSort against clradix.pyopencl.RadixSort (the pyopencl_dropin plugin puts
# it in pyopencl's place, on the POCL device): skipped (exit 77) with a message where the
# environment is not installed. Usage: python-extras-check.sh SOURCE_DIR
set -u
dir=${CLRADIX_PYTHON_EXTRAS:-${XDG_DATA_HOME:-$HOME/.local/share}/clradix/python-extras}
if [ ! -x "$dir/bin/python" ] || [ ! -f "$dir/pyopencl-tests/test_algorithm.py" ] \
    || ! "$dir/bin/python" -c "import ml_dtypes, pyopencl, pytest" 2>/dev/null; then
    echo "skipped: no Python environment with ml_dtypes, pyopencl and its tests at $dir (scripts/install-deps.sh makes it from PyPI)"
    exit 77
fi
cd "$1/python" || exit 1
"$dir/bin/python" -c "import sys, numpy, ml_dtypes, pyopencl; print('Python', sys.version.split()[0], 'numpy', numpy.__version__, 'ml_dtypes', ml_dtypes.__version__, 'pyopencl', pyopencl.VERSION_TEXT)"
# On Python 3.12 or later the environment has NumPy 2.5: its own descending sorts are the
# oracle, and the run fails rather than fall back to the rank oracle.
if "$dir/bin/python" -c "import sys; sys.exit(sys.version_info < (3, 12))"; then
    export CLRADIX_TEST_NUMPY_DESCENDING=required
else
    echo "no Python 3.12 or later: NumPy 2.5's descending= is not the oracle here (the rank oracle is)"
fi
# Every file: bfloat16 and pyopencl arrays must run.
"$dir/bin/python" -m pytest -q -p no:cacheprovider -rs tests || exit 1
cd "$dir/pyopencl-tests" || exit 1
PYTHONPATH="$1/python/tests:$1/python${PYTHONPATH:+:$PYTHONPATH}" PYOPENCL_TEST=portable \
    exec "$dir/bin/python" -m pytest -q -p no:cacheprovider -p pyopencl_dropin -rs test_algorithm.py::test_sort
