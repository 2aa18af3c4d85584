"""clradix for Python: numpy arrays and pyopencl arrays sorted by clradix, the portable
stable radix sort for OpenCL devices, with numpy's conventions.

    import numpy as np, clradix
    a = np.random.rand(1_000_000).astype(np.float32)
    s = clradix.sort(a)                  # == np.sort(a, kind="stable"), bit for bit
    i = clradix.argsort(a)               # == np.argsort(a, kind="stable")
    k, v = clradix.sort_pairs(a, np.arange(a.size, dtype=np.uint32))

numpy arrays are sorted on an OpenCL device (the default one, or ``device=``) by blocking
calls; pyopencl arrays on their queue's device, asynchronously, returning pyopencl arrays.
See help(clradix.sort) and the project's docs/python.md.
"""

import ctypes

import numpy as np

from . import _device, _host, _keys, _library, _records, _sorter
from ._library import Error, LibraryNotFoundError
from ._sorter import Sorter

__all__ = ["sort", "argsort", "lexsort", "sort_pairs", "topk", "Sorter", "Error", "LibraryNotFoundError", "devices",
           "library_path"]


def __getattr__(name):
    # The version has one place, the C library's header: the package reports the library it
    # loaded (a wheel's own copy has the wheel's version), else its installed metadata.
    if name == "__version__":
        try:
            number = _library.lib().clradix_version()
        except LibraryNotFoundError:
            import importlib.metadata

            try:
                return importlib.metadata.version("clradix")
            except importlib.metadata.PackageNotFoundError:
                raise AttributeError("clradix.__version__: no libclradix and no installed metadata") from None
        return f"{number // 10000}.{number // 100 % 100}.{number % 100}"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _host_sorter(sorter, device):
    if sorter is not None:
        if sorter.for_device_arrays:
            raise ValueError("this Sorter is for pyopencl arrays of its context; host arrays need Sorter(device)")
        return sorter
    return _sorter.host_sorter(device)


def _structured(a, order, descending, begin_bit, end_bit, float_order):
    """Whether a is a numpy structured array, sorted by its fields (order: numpy's meaning);
    what its sort does not take: ValueError."""
    if _device.is_device_array(a):
        if order is not None:
            raise TypeError("order= sorts numpy structured arrays; pyopencl arrays are sorted by their values")
        return False
    fields = np.asarray(a).dtype.names
    if fields is None:
        if order is not None:
            raise ValueError("Cannot specify order when the array has no fields.")
        return False
    if descending or begin_bit or end_bit is not None or float_order != "numpy":
        raise ValueError("structured arrays are sorted ascending over every bit of their fields, floats in "
                         "numpy's order (descending, bit ranges and float_order are for plain keys)")
    return True


def _byte_strings(a, begin_bit, end_bit):
    """Whether a is a numpy array of byte strings (S, or V without fields); they take no bit
    range (ValueError)."""
    if not _records._is_bytes(np.asarray(a).dtype):
        return False
    if begin_bit or end_bit is not None:
        raise ValueError("byte strings (S and V dtypes) are sorted over all their bytes: no bit range")
    return True


def sort(a, *, axis=-1, order=None, descending=False, begin_bit=0, end_bit=None, float_order="numpy", out=None,
         device=None, sorter=None, queue=None):
    """A sorted copy of a (or, with ``out``, the sorted keys written into out: ``out=a``
    sorts a in place), stable.

    a: a numpy array (or anything np.asarray takes) of uint32, int32, float32, uint64,
    int64 or float64 (another dtype: TypeError), of any shape, sorted along ``axis`` (the
    last by default; None: flattened) like np.sort; or a C-contiguous pyopencl.array.Array
    of any shape, sorted along ``axis`` on its queue's device (or ``queue``'s) without
    waiting, returned as a pyopencl array (an axis other than the last is moved last and
    back on the device). numpy arrays that are not contiguous or not in native byte order
    are copied first; the result has a's dtype.

    descending: largest first, equal keys still in input order; NaN and NaT last in both
    directions, as NumPy 2.5's np.sort(a, descending=True). begin_bit, end_bit: only
    bits [begin_bit, end_bit) of the keys' order-preserving image take part (end_bit None:
    all; ValueError outside 0 .. width). float_order: "numpy" (the default) sorts floats
    as np.sort does: -0.0 equal to +0.0, every NaN last, equal keys in input order, every
    bit pattern kept; "total": IEEE totalOrder, clradix's own (-NaN < -inf < ... < -0.0 <
    +0.0 < ... < +inf < +NaN), exactly reversed by descending (+NaN first, -NaN last).

    order: for a numpy structured array (whose fields are each of a key dtype above, or
    bool, datetime64, timedelta64), as np.sort(a, order=order, kind="stable"): the fields
    named (a name or a list) first, the others after them in the dtype's order; a
    structured array is sorted by all its fields without it. Ascending only, floats in
    numpy's order, bit for bit np.sort's result, through the library's record sort.

    device: for numpy arrays, the device as CLRADIX_DEVICE takes it (an index or a name
    substring; None: the default device). sorter: a Sorter to use instead of the shared
    one of that device (or of the pyopencl array's context and device).
    Errors of the library raise clradix.Error; a raises nothing and stays as it was.
    """
    _keys.check_float_order(float_order)
    if _structured(a, order, descending, begin_bit, end_bit, float_order):
        result = _records.sort(_host_sorter(sorter, device), a, order, axis)
        if out is None:
            return result
        np.copyto(out, result)
        return out
    if _device.is_device_array(a):
        return _device.sort(sorter, a, axis, descending, begin_bit, end_bit, float_order, out, queue)
    if _byte_strings(a, begin_bit, end_bit):
        result = _records.bytes_sort(_host_sorter(sorter, device), np.asarray(a), axis, descending)
        if out is None:
            return result
        np.copyto(out, result)
        return out
    return _host.sort(_host_sorter(sorter, device), a, axis, descending, begin_bit, end_bit, float_order, out)


def argsort(a, *, axis=-1, order=None, descending=False, begin_bit=0, end_bit=None, float_order="numpy",
            index_dtype=None, device=None, sorter=None, queue=None):
    """The stable sorting permutation of a along axis, as np.argsort(a, kind="stable")
    gives it: np.intp indices by default, or index_dtype (int64, uint64, uint32, int32).
    a and the other arguments (order= for structured arrays) as in clradix.sort; for a
    pyopencl array, a pyopencl array of indices."""
    _keys.check_float_order(float_order)
    if _structured(a, order, descending, begin_bit, end_bit, float_order):
        return _records.argsort(_host_sorter(sorter, device), a, order, axis, index_dtype)
    index_dtype = np.intp if index_dtype is None else index_dtype
    if _device.is_device_array(a):
        return _device.argsort(sorter, a, axis, descending, begin_bit, end_bit, float_order, index_dtype, queue)
    if _byte_strings(a, begin_bit, end_bit):
        return _records.bytes_argsort(_host_sorter(sorter, device), np.asarray(a), axis, descending, index_dtype)
    return _host.argsort(_host_sorter(sorter, device), a, axis, descending, begin_bit, end_bit, float_order,
                         index_dtype)


def lexsort(keys, axis=-1, *, device=None, sorter=None, queue=None):
    """np.lexsort(keys, axis): the stable permutation that sorts by the last key, ties by
    the one before it, and so on, as np.intp indices. keys: a sequence of numpy arrays of
    one shape (or a 2-D array, whose rows are the keys), each of a key dtype as in
    clradix.sort, or bool, datetime64, timedelta64; floats in numpy's order. One record
    sort of the keys side by side (with each row's number first along an axis).
    A sequence of pyopencl arrays (C-contiguous, one shape): sorted on their queue's device
    (or ``queue``'s) by one stable argsort per key, from the first key to the last (the
    primary one), indices as a pyopencl array."""
    if not isinstance(keys, np.ndarray) and len(keys) and all(_device.is_device_array(k) for k in keys):
        return _device.lexsort(sorter, list(keys), axis, queue)
    return _records.lexsort(_host_sorter(sorter, device), keys, axis)


def sort_pairs(keys, values, *, descending=False, begin_bit=0, end_bit=None, float_order="numpy", device=None,
               sorter=None, queue=None):
    """(sorted keys, values reordered with them): copies, stable. keys: 1-D, a key dtype
    as in clradix.sort; values: 1-D, as long as keys, any dtype of 4, 8 or 16 bytes per
    element (structured dtypes too), moved bit for bit. Both numpy arrays, or both
    pyopencl arrays of one context. Mismatched lengths: ValueError; another value size:
    TypeError."""
    _keys.check_float_order(float_order)
    if _device.is_device_array(keys):
        return _device.sort_pairs(sorter, keys, values, descending, begin_bit, end_bit, float_order, queue)
    if _device.is_device_array(values):
        raise TypeError("keys and values must both be pyopencl arrays, or both host arrays")
    return _host.sort_pairs(_host_sorter(sorter, device), keys, values, descending, begin_bit, end_bit, float_order)


def topk(a, k, *, axis=-1, largest=True, device=None, sorter=None, queue=None):
    """(values, indices): the k largest keys of a along axis (largest=False: the k
    smallest), sorted (largest first when largest), equal keys by lower index first, and
    their indices along that axis (np.intp). Floats in numpy's order: NaN is the largest.
    a as in clradix.sort (numpy or pyopencl arrays of any shape, axis None flattens; for
    pyopencl arrays, results as pyopencl arrays). k > the length along axis: ValueError; k == 0:
    empty results of the right shape and dtype. Without sorting everything: a radix select
    on the device for a flat array; rows are each a segment of one segmented argsort."""
    if _device.is_device_array(a):
        return _device.topk(sorter, a, k, axis, largest, queue)
    return _host.topk(_host_sorter(sorter, device), a, k, axis, largest)


def devices():
    """The OpenCL devices in clradix's numbering (what ``device=`` and CLRADIX_DEVICE
    take): a list of (index, "<platform> <device>")."""
    lib, opencl = _library.lib(), _library.opencl()
    count = ctypes.c_uint()
    _library.check(lib.clradix_device_list(0, None, ctypes.byref(count)))
    ids = (ctypes.c_void_p * max(count.value, 1))()
    _library.check(lib.clradix_device_list(count.value, ids, ctypes.byref(count)))
    result = []
    for index in range(count.value):
        names = []
        for what, device in ((0x1031, None), (0x102B, ids[index])):  # CL_DEVICE_PLATFORM, CL_DEVICE_NAME
            buffer = ctypes.create_string_buffer(256)
            if device is None:
                platform = ctypes.c_void_p()
                opencl.clGetDeviceInfo(ids[index], what, ctypes.sizeof(platform), ctypes.byref(platform), None)
                opencl.clGetPlatformInfo(platform, 0x0902, 256, buffer, None)  # CL_PLATFORM_NAME
            else:
                opencl.clGetDeviceInfo(device, what, 256, buffer, None)
            names.append(buffer.value.decode(errors="replace"))
        result.append((index, " ".join(names)))
    return result


def library_path():
    """(path, how it was found) of the libclradix in use; loads it. How, in the order tried:
    CLRADIX_LIBRARY, the wheel (its own copy), the installation's prefix, the build tree, or
    the system's library path. Raises
    LibraryNotFoundError, listing what was tried, when there is none."""
    _, _, path, how = _library.load()
    return path, how
