#!/bin/sh
# The Python package as users install it: `pip install ./python` into a virtual environment
# (over the system's numpy and pyopencl, offline: no build isolation, no index), then a sort
# through the installed copy, run from another folder so the source tree is not on the path.
# Usage: python-venv-check.sh PYTHON SOURCE_DIR LIBCLRADIX
set -eu
python=$1
source=$2
library=$3
"$python" -c "import venv, ensurepip" 2>/dev/null || { echo "no venv/ensurepip for $python: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$source/python" "$work/src"   # pip builds in its source folder
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-build-isolation --no-index --no-deps "$work/src"
cd "$work"
CLRADIX_LIBRARY=$library "$work/venv/bin/python" - <<'PY'
import numpy as np, clradix, sys
assert clradix.__file__.startswith(sys.prefix), clradix.__file__
a = np.array([3.0, -0.0, np.nan, 0.0, -2.5], dtype=np.float32)
assert clradix.sort(a).tobytes() == np.sort(a, kind="stable").tobytes()
print("venv check:", clradix.__file__, "sorted with", clradix.library_path()[0])
PY
