#!/bin/sh
# The Python package's optional test dependencies, from PyPI, pinned, in a virtual
# environment of the project's own (never the system's): NumPy 2.5 (whose np.sort and
# np.argsort take descending=, the oracle of the package's descending sorts) on a Python
# 3.12 or later that is not Debian's (scripts/newer-python.sh: pyenv's, say), with pytest,
# ml_dtypes for bfloat16 keys and a pyopencl built for it, so that the package's whole test
# suite runs there, pyopencl arrays included; where the machine has no such Python, Debian's
# python3 (3.11) with the newest numpy it has (2.4) over Debian's pytest and Mako. Also pyopencl's own
# tests of its RadixSort from pyopencl's source distribution (checked by its SHA-256), which
# tests/python-extras-check.sh runs against clradix.pyopencl.RadixSort. Where PyPI cannot be
# reached it says so and leaves nothing behind: the tests that need it are then skipped.
# Usage: python-extras.sh [PYTHON] (default: the newer Python, else /usr/bin/python3). The
# folder: CLRADIX_PYTHON_EXTRAS, else ${XDG_DATA_HOME:-~/.local/share}/clradix/python-extras
# (tests/python-extras-check.sh looks in the same place).
set -u
python=${1:-$(sh "$(dirname "$0")/newer-python.sh" || echo /usr/bin/python3)}
dir=${CLRADIX_PYTHON_EXTRAS:-${XDG_DATA_HOME:-$HOME/.local/share}/clradix/python-extras}
common="ml_dtypes==0.7.0 pyopencl==2026.1.4 pytools==2026.1.1 siphash24==1.9 platformdirs==4.14.9 typing_extensions==4.16.0"
if "$python" -c "import sys; sys.exit(sys.version_info < (3, 12))"; then
    pins="numpy==2.5.5 pytest==9.2.0 iniconfig==2.3.1 pluggy==1.7.0 packaging==26.4 Pygments==2.21.0 Mako==1.4.3"
    pins="$pins MarkupSafe==3.0.4 $common"
    site=""
else  # Debian's python3: its pytest, the newest numpy for 3.11
    pins="numpy==2.4.6 $common"
    site=--system-site-packages
fi
sdist=https://files.pythonhosted.org/packages/0a/a9/b6133777fc20be05faa88c4dbae9cc0d26d6dc1395c45770ec49b56edc4b/pyopencl-2026.1.4.tar.gz
sdist_sha256=6cb9544a004609061e86873fe36500da6c2101042e9c7b9c3b804a29a12b98bf
stamp="$python $pins $sdist_sha256"

if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/clradix-pins" 2>/dev/null)" = "$stamp" ]; then
    exit 0
fi
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
# pyopencl's test files (test_algorithm.py and the test_array.py it imports), nothing else.
fetch_tests='
import hashlib, io, sys, tarfile, urllib.request
url, sha256, folder = sys.argv[1:]
data = urllib.request.urlopen(url, timeout=30).read()
if hashlib.sha256(data).hexdigest() != sha256:
    sys.exit("python-extras: the pyopencl source distribution has another SHA-256")
with tarfile.open(fileobj=io.BytesIO(data)) as tar:
    for name in ("test_algorithm.py", "test_array.py"):
        member = tar.getmember(url.rsplit("/", 1)[1][:-len(".tar.gz")] + "/test/" + name)
        with open(folder + "/" + name, "wb") as out:
            out.write(tar.extractfile(member).read())
'
# shellcheck disable=SC2086  # the pins are words, $site empty or one word
if "$python" -m venv $site "$dir" \
    && "$dir/bin/python" -m pip install -q --disable-pip-version-check --timeout 20 --retries 1 $pins >&2 \
    && mkdir "$dir/pyopencl-tests" && "$dir/bin/python" -c "$fetch_tests" "$sdist" "$sdist_sha256" "$dir/pyopencl-tests"; then
    echo "$stamp" > "$dir/clradix-pins"
    echo "python-extras: $("$python" -V) with $pins and pyopencl's tests in $dir" >&2
else
    rm -rf "$dir"
    echo "python-extras: could not install $pins (or pyopencl's tests) from PyPI; the bfloat16, NumPy 2.5 and drop-in tests will be skipped" >&2
fi
exit 0
