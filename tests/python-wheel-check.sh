#!/bin/sh
# The Python package as users install it: a wheel built from the checkout (pyproject.toml,
# scikit-build-core from PyPI) that carries libclradix, installed into fresh virtual
# environments, each run from an empty folder without CLRADIX_LIBRARY or an installation:
#  - a Python 3.12 or later that is not Debian's (scripts/newer-python.sh), with numpy and
#    pytest from PyPI (where none exists, it says so);
#  - Debian's python3 with Debian's numpy and pytest.
# In each: the package must load the wheel's own library and sort, then its tests run from a
# copy of python/tests. The wheel must be platform-tagged, and its library must need nothing
# at run time but the OpenCL ICD loader and the C library. Where PyPI (or pip's configured
# index) cannot be reached, it says so and is skipped (exit 77).
# Usage: python-wheel-check.sh SOURCE_DIR DEBIAN_PYTHON
set -eu
source=$1
debian_python=$2
"$debian_python" -c "import venv, ensurepip, numpy, pytest" 2>/dev/null \
    || { echo "skipped: $debian_python lacks venv, numpy or pytest (scripts/install-deps.sh installs them)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1
unset CLRADIX_LIBRARY

"$debian_python" -m venv --system-site-packages "$work/debian"
if ! "$work/debian/bin/pip" download -q --no-deps --timeout 20 --retries 1 -d "$work/probe" scikit-build-core >/dev/null 2>&1; then
    echo "skipped: PyPI cannot be reached, and the wheel's build backend (scikit-build-core) comes from it"
    exit 77
fi
"$work/debian/bin/pip" wheel -q --no-deps -w "$work/dist" "$source"
version=$(sed -n 's/^#define CLRADIX_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$source/include/clradix.h" | paste -sd.)
wheel=$(ls "$work"/dist/*.whl)
case $(basename "$wheel") in
    "clradix-$version-py3-none-linux_"*.whl) echo "wheel: $(basename "$wheel")" ;;
    *) echo "not a platform wheel of version $version: $(basename "$wheel")"; exit 1 ;;
esac
mkdir "$work/unpacked"
(cd "$work/unpacked" && "$debian_python" -m zipfile -e "$wheel" .)
needed=$(readelf -d "$work/unpacked/clradix/libclradix.so.${version%%.*}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ')
echo "its library needs: $needed"
for library in $needed; do
    case $library in
        libOpenCL.so.1 | libc.so.6 | ld-linux*.so.*) ;;
        *) echo "the wheel's library needs $library besides the OpenCL loader and libc"; exit 1 ;;
    esac
done

# Installs the wheel into the environment $1 (pip arguments after it), then checks and tests.
check() {
    environment=$1
    shift
    "$environment/bin/pip" install -q --timeout 20 --retries 1 "$@" "$wheel"
    mkdir "$work/empty-$(basename "$environment")"
    cd "$work/empty-$(basename "$environment")"
    "$environment/bin/python" - <<'PY'
import sys, numpy as np, clradix
print(clradix.sort(np.arange(10)[::-1]))
path, how = clradix.library_path()
assert clradix.__file__.startswith(sys.prefix) and path.startswith(sys.prefix) and how == "the wheel", (clradix.__file__, path, how)
assert (clradix.sort(np.arange(10)[::-1]) == np.arange(10)).all()
print(f"Python {sys.version.split()[0]}, numpy {np.__version__}: clradix {clradix.__version__} sorted with {path}")
PY
    cp -r "$source/python/tests" "$work/tests-$(basename "$environment")"
    cd "$work/tests-$(basename "$environment")"
    CLRADIX_SOURCE_DIR=$source "$environment/bin/python" -m pytest -q -p no:cacheprovider -x .
}

if newer=$(sh "$source/scripts/newer-python.sh"); then
    "$newer" -m venv "$work/newer"
    check "$work/newer" numpy pytest
else
    echo "no Python 3.12 or later besides Debian's (pyenv's or on PATH): the wheel ran with Debian's python3 only"
fi
check "$work/debian" --no-deps --no-index
echo "wheel check: $(basename "$wheel") installed and tested with${newer:+ $("$newer" -V) and} Debian's $("$debian_python" -V)"
