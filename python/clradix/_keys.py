"""Key types, bit ranges and numpy's float order: what host and device paths share."""

import numpy as np

from ._library import Options

# numpy dtype -> clradix_key_type (floats: in totalOrder; _NUMPY_ORDER has their numpy order)
KEY_TYPES = {
    np.dtype(np.uint32): 0,
    np.dtype(np.int32): 1,
    np.dtype(np.float32): 2,
    np.dtype(np.uint64): 3,
    np.dtype(np.int64): 4,
    np.dtype(np.float64): 5,
    np.dtype(np.uint8): 6,
    np.dtype(np.bool_): 6,  # False, True: the bytes 0 and 1
    np.dtype(np.int8): 7,
    np.dtype(np.uint16): 8,
    np.dtype(np.int16): 9,
    np.dtype(np.float16): 10,
}
_BFLOAT16 = 11  # CLRADIX_BF16, for ml_dtypes.bfloat16 (found by name: ml_dtypes is not needed)
_NUMPY_ORDER = {2: 12, 5: 13, 10: 14, _BFLOAT16: 15}  # CLRADIX_F32_NUMPY, _F64_, _F16_, _BF16_NUMPY
_NAN_LAST = {2: 16, 5: 17, 10: 18, _BFLOAT16: 19}  # CLRADIX_F32_NAN_LAST, ... (numpy's order, NaNs last descending)
_INT64 = 4
SUPPORTED = ("bool, uint8, int8, uint16, int16, float16, bfloat16 (ml_dtypes), uint32, int32, float32, uint64, "
             "int64, float64, datetime64, timedelta64; byte strings (S, V) in sort, argsort, lexsort and order=")
FLOAT_ORDERS = ("numpy", "total")


def _is_time(dtype):
    return dtype.kind in "mM"  # timedelta64, datetime64 (any unit): int64 counts, NaT the smallest


def _is_bfloat16(dtype):
    return dtype.name == "bfloat16" and dtype.itemsize == 2


def native_key_dtype(dtype):
    """The native-byte-order dtype of a key array, or TypeError."""
    dtype = np.dtype(dtype)
    native = dtype.newbyteorder("=") if dtype.byteorder not in ("=", "|") else dtype
    if native not in KEY_TYPES and not _is_time(native) and not _is_bfloat16(native):
        raise TypeError(f"clradix sorts keys of dtype {SUPPORTED}, not {dtype}")
    return native


def key_type(dtype, float_order="total", nan_last=False):
    """The clradix_key_type of keys of dtype as library_keys gives them, floats in
    float_order; nan_last: numpy's order with NaNs last also when descending (NumPy 2.5's
    descending=True)."""
    dtype = native_key_dtype(dtype)
    code = _INT64 if _is_time(dtype) else _BFLOAT16 if _is_bfloat16(dtype) else KEY_TYPES[dtype]
    if float_order != "numpy":
        return code
    return (_NAN_LAST if nan_last else _NUMPY_ORDER).get(code, code)


def host_float_order(a, float_order, opts=None):
    """The float order to sort the host keys a (native, contiguous) in: "total" where it is
    float_order "numpy" and totalOrder gives the same result (the library's totalOrder
    programs are faster: on POCL its numpy-order ones take 1.6-2.3x their time), else
    float_order. That is where a holds no NaN and no -0.0; or, in an ascending sort of the
    whole key (opts None, or ascending over every bit), where its NaNs all have one bit
    pattern with the sign bit clear, as np.nan does, and no -0.0: totalOrder then puts them
    last, in input order, as numpy does. One
    vectorised read: the minimum is NaN when any key is; -0.0 is looked for only when the
    keys reach zero."""
    if float_order != "numpy" or a.size == 0 or not (a.dtype.kind == "f" or _is_bfloat16(a.dtype)):
        return float_order
    if a.dtype.itemsize == 2:  # numpy computes in halves slowly: the bits, as integers
        bits = a.view(np.uint16)
        infinity = np.uint16(0x7F80 if _is_bfloat16(a.dtype) else 0x7C00)
        special = ((bits & np.uint16(0x7FFF)) > infinity).any() or (bits == np.uint16(0x8000)).any()
        return "numpy" if special else "total"
    width = a.dtype.itemsize * 8
    bits = a.view(np.dtype(f"uint{width}"))
    sign = bits.dtype.type(1 << (width - 1))
    low = a.min()
    if np.isnan(low):
        if opts is not None and (opts.descending or opts.begin_bit != 0 or opts.end_bit != width):
            return "numpy"
        nans = bits[np.isnan(a)]
        if (nans[0] & sign) or (nans != nans[0]).any():
            return "numpy"
    elif low > 0 or a.max() < 0:
        return "total"
    # -0.0 by its bits: one compare (selecting the zeros first cost 70 ms for 2^24 keys of
    # which a third were zeros)
    return "numpy" if (bits == sign).any() else "total"


def library_keys(k, in_place, nat_smallest=False):
    """The keys k (native) as the library sorts them: datetime64 and timedelta64 keys as
    int64 counts minus one (NaT, the smallest int64, then wraps to the largest, and numpy
    sorts NaT last; the other keys keep their order), in k's memory when in_place, else in
    a new array; nat_smallest (for a descending sort that puts NaT last): the counts
    themselves. Every other dtype: k itself. numpy and pyopencl arrays alike."""
    if not _is_time(k.dtype):
        return k
    counts = k.view(np.int64)
    if nat_smallest:
        return counts if in_place else counts.copy()
    if not in_place:
        return counts - 1
    counts -= 1
    return counts


def restore_keys(counts, dtype, nat_smallest=False):
    """Keys of dtype back from library_keys(k, True, nat_smallest), in place."""
    if not _is_time(dtype):
        return counts
    if not nat_smallest:
        counts += 1
    return counts.view(dtype)


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


def check_k(k, length):
    """k as an int, or ValueError (TypeError for a non-integer)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer, not {type(k).__name__}")
    if not 0 <= k <= length:
        raise ValueError(f"k={k} is not within 0 .. {length} (the length along the axis)")
    return int(k)


def check_float_order(float_order):
    if float_order not in FLOAT_ORDERS:
        raise ValueError(f"float_order must be one of {FLOAT_ORDERS}, not {float_order!r}")
