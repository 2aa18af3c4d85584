"""Shared by the tests: references computed by numpy alone, and device fixtures."""

import os

import numpy as np
import pytest

import clradix

KEY_DTYPES = [np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64, np.uint8, np.int8, np.uint16, np.int16,
              np.float16, np.bool_, np.dtype("datetime64[ns]"), np.dtype("timedelta64[s]")]
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def order_image(a):
    """The unsigned image of keys whose unsigned order is clradix's (totalOrder for floats)."""
    a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
    width = a.dtype.itemsize * 8
    unsigned = UNSIGNED[a.dtype.itemsize]
    bits = a.view(unsigned)
    sign = unsigned(1 << (width - 1))
    if a.dtype.kind == "i":
        return bits ^ sign
    if a.dtype.kind in "mM":  # as int64 counts minus one, so that NaT (the smallest) wraps to the top
        return (bits - unsigned(1)) ^ sign
    if a.dtype.kind == "f":
        return np.where(bits & sign, ~bits, bits | sign)
    return bits.copy()


FLOAT_LAYOUT = {2: (0x7C00, 0x03FF), 4: (0x7F800000, 0x007FFFFF), 8: (0x7FF0000000000000, 0x000FFFFFFFFFFFFF)}


def numpy_order_image(a, descending=False):
    """The image clradix sorts floats by in numpy's order (what bit ranges select from): the
    totalOrder image of each key read with -0.0 as +0.0 and every NaN as the NaN whose bits
    are +inf's plus one (descending, where NaNs stay last: -inf's minus one)."""
    a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
    unsigned = UNSIGNED[a.dtype.itemsize]
    inf, mantissa = (unsigned(x) for x in FLOAT_LAYOUT[a.dtype.itemsize])
    nan = (inf | mantissa) + unsigned(1) + inf + unsigned(1) if descending else inf + unsigned(1)
    bits = a.view(unsigned)
    magnitude = bits & (inf | mantissa)
    read = np.where(magnitude == 0, unsigned(0), bits)
    read = np.where(((magnitude & inf) == inf) & ((magnitude & mantissa) != 0), nan, read)
    return order_image(read.view(a.dtype))


def stable_descending(ranks):
    """The stable permutation of descending integer ranks (equal ranks in input order)."""
    return np.argsort(-ranks.astype(np.int64), kind="stable")


def numpy_rank(a):
    """Dense ranks of a in numpy's order (-0.0 equal to 0.0, NaNs equal and last)."""
    return np.unique(a, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _numpy_sorts_descending():
    try:  # NumPy 2.5 takes descending= with stable= (not with kind=)
        np.argsort(np.zeros(1), descending=True, stable=True)
        return True
    except TypeError:
        return False


NUMPY_SORTS_DESCENDING = _numpy_sorts_descending()  # NumPy 2.5 and later
# The NumPy 2.5 run (tests/python-extras-check.sh) must have numpy's own oracle, never the
# stand-in below.
if os.environ.get("CLRADIX_TEST_NUMPY_DESCENDING") == "required" and not NUMPY_SORTS_DESCENDING:
    raise RuntimeError(f"numpy {np.__version__} has no descending= to sort by, and this run requires it")


def numpy_descending(a):
    """np.argsort(a, descending=True, stable=True) of 1-D keys as NumPy 2.5 defines it:
    by falling value, -0.0 equal to 0.0, every NaN (and NaT) last, equal keys in input
    order. numpy's own where it has the argument; else from the dense ranks."""
    if NUMPY_SORTS_DESCENDING:
        return np.argsort(a, descending=True, stable=True)
    ranks = numpy_rank(a)
    missing = np.isnat(a) if a.dtype.kind in "mM" else np.isnan(a) if a.dtype.kind == "f" else ranks < 0
    return np.argsort(np.where(missing, ranks.max(initial=0) + 1, -ranks), kind="stable")


def make_keys(dtype, dist, n, seed):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    unsigned = UNSIGNED[dtype.itemsize]
    bits = rng.integers(0, np.iinfo(unsigned).max, n, dtype=unsigned, endpoint=True)
    if dtype.kind == "b":
        bits &= unsigned(1)  # a bool holds 0 or 1
    elif dtype.kind in "mM":
        bits[::17] = unsigned(1 << 63)  # NaT
    if dist == "equal":
        bits[:] = bits[0] if n else 0
    elif dist == "few":
        bits = rng.choice(bits[:7] if n >= 7 else bits, n) if n else bits
    keys = bits.view(dtype)  # floats: every bit pattern, NaNs of both signs included
    if dist == "sorted":
        keys = np.sort(keys, kind="stable")
    elif dist == "reversed":
        keys = np.sort(keys, kind="stable")[::-1].copy()
    return keys


@pytest.fixture(scope="session")
def cl_queue():
    """A pyopencl queue on the first device, or a skip where pyopencl or devices are missing."""
    cl = pytest.importorskip("pyopencl")
    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    if not devices:
        pytest.skip("no OpenCL device")
    context = cl.Context([devices[0]])
    return cl.CommandQueue(context)


@pytest.fixture(scope="session", autouse=True)
def library():
    """The C library must load (the test command points CLRADIX_LIBRARY at the build)."""
    return clradix.library_path()
