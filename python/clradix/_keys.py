"""Key types, bit ranges and numpy's float order: what host and device paths share."""

import numpy as np

from ._library import Options

# numpy dtype -> clradix_key_type
KEY_TYPES = {
    np.dtype(np.uint32): 0,
    np.dtype(np.int32): 1,
    np.dtype(np.float32): 2,
    np.dtype(np.uint64): 3,
    np.dtype(np.int64): 4,
    np.dtype(np.float64): 5,
    np.dtype(np.uint8): 6,
    np.dtype(np.int8): 7,
    np.dtype(np.uint16): 8,
    np.dtype(np.int16): 9,
    np.dtype(np.float16): 10,
}
SUPPORTED = "uint8, int8, uint16, int16, float16, uint32, int32, float32, uint64, int64, float64"
FLOAT_ORDERS = ("numpy", "total")
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}  # the unsigned dtype of each key width

# Per float width: the unsigned view, its sign bit, and the canonical NaN, above every
# other bit pattern in totalOrder (a positive NaN with every payload bit set).
_FLOAT_BITS = {
    2: (np.uint16, np.uint16(0x8000), np.uint16(0x7FFF), np.uint16(0x7C00)),
    4: (np.uint32, np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x7F800000)),
    8: (np.uint64, np.uint64(0x8000000000000000), np.uint64(0x7FFFFFFFFFFFFFFF), np.uint64(0x7FF0000000000000)),
}


def native_key_dtype(dtype):
    """The native-byte-order dtype of a key array, or TypeError."""
    dtype = np.dtype(dtype)
    native = dtype.newbyteorder("=") if dtype.byteorder not in ("=", "|") else dtype
    if native not in KEY_TYPES:
        raise TypeError(f"clradix sorts keys of dtype {SUPPORTED}, not {dtype}")
    return native


def key_type(dtype):
    return KEY_TYPES[native_key_dtype(dtype)]


def options(dtype, descending, begin_bit, end_bit):
    """The C options for a bit range [begin_bit, end_bit) (end_bit None: the key's width),
    or ValueError."""
    width = np.dtype(dtype).itemsize * 8
    end = width if end_bit is None else end_bit
    if not (0 <= begin_bit <= end <= width) or isinstance(begin_bit, bool) or isinstance(end, bool):
        raise ValueError(f"bit range [{begin_bit}, {end_bit}) is not within 0 .. {width}")
    if begin_bit == end:  # an empty range; the C call reads end_bit 0 as the width
        begin_bit = end = width
    return Options(int(begin_bit), int(end), 1 if descending else 0)


INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.uint32), np.dtype(np.int32))


def index_dtype(dtype):
    """The argsort index dtype asked for, or TypeError."""
    dtype = np.dtype(dtype)
    if dtype not in INDEX_DTYPES:
        raise TypeError(f"index_dtype must be one of int64 (intp), uint64, uint32, int32, not {dtype}")
    return dtype


def check_pairs(keys, values):
    """ValueError or TypeError unless keys and values are 1-D, as long, and the values of 4,
    8 or 16 bytes (numpy or pyopencl arrays alike)."""
    if keys.ndim != 1 or values.ndim != 1:
        raise ValueError("sort_pairs takes 1-D keys and values")
    if keys.shape != values.shape:
        raise ValueError(f"keys and values differ in length: {keys.size} and {values.size}")
    if values.dtype.itemsize not in (4, 8, 16):
        raise TypeError(f"values must have 4, 8 or 16 bytes per element, not {values.dtype.itemsize} ({values.dtype})")


def check_float_order(float_order):
    if float_order not in FLOAT_ORDERS:
        raise ValueError(f"float_order must be one of {FLOAT_ORDERS}, not {float_order!r}")


def needs_numpy_order(a, float_order):
    """Whether host keys a (native, contiguous) need numpy's float order applied: floats
    holding a NaN or a negative zero (without them, totalOrder is numpy's order). The
    minimum is NaN when any key is (one vectorised read); zeros are looked for only when
    the keys reach zero."""
    if float_order != "numpy" or a.dtype.kind != "f" or a.size == 0:
        return False
    if a.dtype.itemsize == 2:  # numpy computes in halves slowly: the bits, as integers
        unsigned, sign, _, exponent = _FLOAT_BITS[2]
        bits = a.view(unsigned)
        return bool(((bits & ~sign) > exponent).any() or (bits == sign).any())
    low = a.min()
    if np.isnan(low):
        return True
    if low > 0 or a.max() < 0:
        return False
    zeros = a == 0
    return bool(zeros.any() and np.signbit(a[zeros]).any())


def numpy_order_keys(a):
    """Keys whose totalOrder is numpy's order of the floats a: -0.0 as +0.0, every NaN as
    one NaN above +inf (so equal NaNs keep their input order in a stable sort)."""
    unsigned, sign, nan, exponent = _FLOAT_BITS[a.dtype.itemsize]
    bits = a.view(unsigned)
    canonical = np.where(bits == sign, unsigned(0), bits)
    canonical = np.where((bits & ~sign) > exponent, nan, canonical)
    return canonical.view(a.dtype)


# The same transform in OpenCL C, on the bits, for pyopencl arrays (see _device.py).
NUMPY_ORDER_KERNEL = {
    2: "ushort x = in[i]; out[i] = (x & 0x7FFF) > 0x7C00 ? 0x7FFF : (x == 0x8000 ? 0 : x)",
    4: "uint x = in[i]; out[i] = (x & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FFFFFFFu : (x == 0x80000000u ? 0u : x)",
    8: "ulong x = in[i]; out[i] = (x & 0x7FFFFFFFFFFFFFFFul) > 0x7FF0000000000000ul ? 0x7FFFFFFFFFFFFFFFul"
       " : (x == 0x8000000000000000ul ? 0ul : x)",
}
