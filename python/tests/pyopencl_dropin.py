"""A pytest plugin (-p pyopencl_dropin) that runs pyopencl's own tests with
clradix.pyopencl.RadixSort in place of pyopencl.algorithm.RadixSort, as code that switches
by its import gets it; the session fails unless the drop-in was used (a test skipped for a
missing module would otherwise pass). tests/python-extras-check.sh runs pyopencl's test_sort
with it."""

import pyopencl.algorithm

import clradix.pyopencl

_made = 0


class _CountedRadixSort(clradix.pyopencl.RadixSort):
    def __init__(self, *args, **kwargs):
        global _made
        super().__init__(*args, **kwargs)
        _made += 1


pyopencl.algorithm.RadixSort = _CountedRadixSort


def pytest_sessionfinish(session, exitstatus):
    if not _made:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"clradix.pyopencl.RadixSort made {_made} times in pyopencl's tests"
                                + ("" if _made else ": never, which fails this run"))
