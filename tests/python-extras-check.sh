#!/bin/sh
# The Python package's tests in the virtual environment of scripts/python-extras.sh
# (ml_dtypes for bfloat16 keys, numpy 2): skipped (exit 77) with a message where it is not
# installed. Usage: python-extras-check.sh SOURCE_DIR
set -u
dir=${CLRADIX_PYTHON_EXTRAS:-${XDG_DATA_HOME:-$HOME/.local/share}/clradix/python-extras}
if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c "import ml_dtypes, pytest" 2>/dev/null; then
    echo "skipped: no Python environment with ml_dtypes at $dir (scripts/install-deps.sh makes it from PyPI)"
    exit 77
fi
cd "$1/python" || exit 1
"$dir/bin/python" -c "import numpy, ml_dtypes; print('numpy', numpy.__version__, 'ml_dtypes', ml_dtypes.__version__)"
# Every file, with pyopencl skipped where it was built for another numpy; bfloat16 must run.
exec "$dir/bin/python" -m pytest -q -p no:cacheprovider -rs tests
