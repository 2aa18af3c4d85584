#!/bin/sh
# Prints the path of a CPython 3.12 or later that is not Debian's (NumPy 2.5 needs 3.12; Debian
# 12's python3 is 3.11): python3.12, 3.13 or 3.14 on PATH or in pyenv's versions, in that
# order. Exits 1, printing nothing, where there is none.
root=${PYENV_ROOT:-$HOME/.pyenv}
for version in 3.12 3.13 3.14; do
    for python in $(command -v "python$version" 2>/dev/null) "$root"/versions/"$version".*/bin/"python$version"; do
        case $python in /usr/bin/*) continue ;; esac
        if [ -x "$python" ] && "$python" -c "import venv, ensurepip" 2>/dev/null; then
            echo "$python"
            exit 0
        fi
    done
done
exit 1
