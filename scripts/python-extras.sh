#!/bin/sh
# The Python package's optional test dependencies, from PyPI, pinned, in a virtual
# environment of the project's own (never the system's): ml_dtypes for bfloat16 keys, with
# the numpy 2 it needs (so the package's tests also run on numpy 2 there). Where PyPI cannot
# be reached it says so and leaves nothing behind: the tests that need it are then skipped.
# Usage: python-extras.sh [PYTHON]. The folder: CLRADIX_PYTHON_EXTRAS, else
# ${XDG_DATA_HOME:-~/.local/share}/clradix/python-extras (tests/python-extras-check.sh
# looks in the same place).
set -u
python=${1:-python3}
dir=${CLRADIX_PYTHON_EXTRAS:-${XDG_DATA_HOME:-$HOME/.local/share}/clradix/python-extras}
pins="ml_dtypes==0.7.0 numpy==2.4.6"

if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/clradix-pins" 2>/dev/null)" = "$pins" ]; then
    exit 0
fi
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
# shellcheck disable=SC2086  # the pins are words
if "$python" -m venv --system-site-packages "$dir" \
    && "$dir/bin/python" -m pip install -q --disable-pip-version-check --timeout 20 --retries 1 $pins >&2; then
    echo "$pins" > "$dir/clradix-pins"
    echo "python-extras: $pins in $dir" >&2
else
    rm -rf "$dir"
    echo "python-extras: could not install $pins from PyPI; the bfloat16 and numpy 2 tests will be skipped" >&2
fi
exit 0
