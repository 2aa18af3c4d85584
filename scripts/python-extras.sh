#!/bin/sh
# The Python package's optional test dependencies, from PyPI, pinned, in a virtual
# environment of the project's own (never the system's): ml_dtypes for bfloat16 keys, the
# numpy 2 it needs and a pyopencl built for numpy 2 (so the package's whole test suite also
# runs on numpy 2 there, pyopencl arrays included), and pyopencl's own tests of its
# RadixSort from pyopencl's source distribution (checked by its SHA-256), which
# tests/python-extras-check.sh runs against clradix.pyopencl.RadixSort. Where PyPI cannot be
# reached it says so and leaves nothing behind: the tests that need it are then skipped.
# Usage: python-extras.sh [PYTHON]. The folder: CLRADIX_PYTHON_EXTRAS, else
# ${XDG_DATA_HOME:-~/.local/share}/clradix/python-extras (tests/python-extras-check.sh
# looks in the same place).
set -u
python=${1:-python3}
dir=${CLRADIX_PYTHON_EXTRAS:-${XDG_DATA_HOME:-$HOME/.local/share}/clradix/python-extras}
pins="ml_dtypes==0.7.0 numpy==2.4.6 pyopencl==2026.1.4 pytools==2026.1.1 siphash24==1.9"
sdist=https://files.pythonhosted.org/packages/0a/a9/b6133777fc20be05faa88c4dbae9cc0d26d6dc1395c45770ec49b56edc4b/pyopencl-2026.1.4.tar.gz
sdist_sha256=6cb9544a004609061e86873fe36500da6c2101042e9c7b9c3b804a29a12b98bf

if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/clradix-pins" 2>/dev/null)" = "$pins $sdist_sha256" ]; then
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
# shellcheck disable=SC2086  # the pins are words
if "$python" -m venv --system-site-packages "$dir" \
    && "$dir/bin/python" -m pip install -q --disable-pip-version-check --timeout 20 --retries 1 $pins >&2 \
    && mkdir "$dir/pyopencl-tests" && "$dir/bin/python" -c "$fetch_tests" "$sdist" "$sdist_sha256" "$dir/pyopencl-tests"; then
    echo "$pins $sdist_sha256" > "$dir/clradix-pins"
    echo "python-extras: $pins and pyopencl's tests in $dir" >&2
else
    rm -rf "$dir"
    echo "python-extras: could not install $pins (or pyopencl's tests) from PyPI; the bfloat16, numpy 2 and drop-in tests will be skipped" >&2
fi
exit 0
