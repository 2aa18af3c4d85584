"""numpy arrays: the keys copied to native byte order and contiguous where needed, sorted
by the blocking host-array calls of the C library."""

import ctypes

import numpy as np

from . import _keys, _library


def _pointer(a):
    return ctypes.c_void_p(a.ctypes.data)


def _native(a):
    """a as a contiguous array of its native-byte-order dtype (a itself when it is one)."""
    return np.ascontiguousarray(a, dtype=_keys.native_key_dtype(a.dtype))


def _call(sorter, name, *arguments):
    """The library's host-array call `name` with the sorter, no queue and arguments; a failure
    raises clradix.Error (a build failure's with the sorter's build log)."""
    _library.check(getattr(_library.lib(), name)(sorter.handle, None, *arguments), sorter=sorter.handle)


def sort_keys_in_place(sorter, k, code, opts):
    if k.size:
        _call(sorter, "clradix_sort_keys_host", code, _pointer(k), k.size, ctypes.byref(opts))


def sort_pairs_in_place(sorter, k, code, v, opts):
    if k.size:
        _call(sorter, "clradix_sort_pairs_host", code, _pointer(k), _pointer(v), v.dtype.itemsize, k.size,
              ctypes.byref(opts))


def argsort_flat(sorter, k, code, opts, index_dtype):
    """The stable permutation of contiguous keys k as index_dtype."""
    indices = np.empty(k.size, dtype=index_dtype)
    if k.size:
        _call(sorter, "clradix_argsort_host", code, _pointer(k), _pointer(indices), indices.dtype.itemsize, k.size,
              ctypes.byref(opts))
    return indices


def _rows(k):
    """The rows of the contiguous N-D array k along its last axis: their count, and the
    offsets of a segmented sort (size_t) that makes each row a segment."""
    length = k.shape[-1]
    rows = k.size // length if length else 0
    return rows, np.arange(rows + 1, dtype=np.uintp) * np.uintp(length)


def sort_rows_in_place(sorter, k, code, opts):
    """Sorts each row of the contiguous N-D keys k along its last axis: one segmented sort
    of the rows."""
    rows, offsets = _rows(k)
    if rows:
        _call(sorter, "clradix_sort_segments_keys_host", code, _pointer(k), k.size, _pointer(offsets), rows,
              ctypes.byref(opts))


def argsort_last_axis(sorter, k, code, opts, index_dtype):
    """The stable permutation of each row of the contiguous N-D keys k along its last axis,
    as positions in the row: one segmented argsort of the rows, whose indices are positions
    in the whole array."""
    rows, offsets = _rows(k)
    if k.ndim == 1 or rows <= 1:
        return argsort_flat(sorter, k.reshape(-1), code, opts, index_dtype).reshape(k.shape)
    wide = np.dtype(np.uint32 if k.size <= _library.MAX_N else np.uint64)
    indices = np.empty(k.shape, dtype=wide)
    _call(sorter, "clradix_argsort_segments_host", code, _pointer(k), _pointer(indices), wide.itemsize, k.size,
          _pointer(offsets), rows, ctypes.byref(opts))
    indices -= offsets[:-1].astype(wide).reshape(k.shape[:-1] + (1,))
    return indices.astype(index_dtype, copy=False)


def _moved(a, axis):
    """a with the sorted axis last (axis None: flattened)."""
    if a.ndim == 0:
        raise ValueError("cannot sort a 0-d array")
    if axis is None:
        return a.reshape(-1)
    return np.moveaxis(a, axis, -1)


def _sort_native(sorter, work, native, opts, float_order):
    """Sorts the contiguous native keys work along its last axis in their own memory (rows:
    each a segment of one segmented sort); returns them, as native. The key transform is
    undone also on failure, which leaves the keys as they were (the library leaves host
    arrays untouched)."""
    descending = bool(opts.descending)
    k = _keys.library_keys(work, True, descending)
    try:
        code = _keys.key_type(native, _keys.host_float_order(k, float_order, opts), descending)
        if k.ndim == 1:
            sort_keys_in_place(sorter, k, code, opts)
        else:
            sort_rows_in_place(sorter, k, code, opts)
    finally:
        k = _keys.restore_keys(k, native, descending)
    return k


def sort(sorter, a, axis, descending, begin_bit, end_bit, float_order, out):
    a = np.asarray(a)
    native = _keys.native_key_dtype(a.dtype)
    opts = _keys.options(native, descending, begin_bit, end_bit)
    result_shape = (a.size,) if axis is None else a.shape
    if out is not None:
        if not isinstance(out, np.ndarray) or out.shape != result_shape or out.dtype != a.dtype:
            raise ValueError(f"out must be an array of shape {result_shape} and dtype {a.dtype}")
        if not out.flags.writeable:
            raise ValueError("out is read-only")
    work = _moved(a, axis)
    if out is a and a.dtype == native and work.flags.c_contiguous:  # in a's own memory, no copy
        _sort_native(sorter, work, native, opts, float_order)
        return a
    k = _sort_native(sorter, np.array(work, dtype=native, order="C"), native, opts, float_order)  # a sorted copy
    result = np.moveaxis(k, -1, axis) if axis is not None and k.ndim > 1 else k
    if result.dtype != a.dtype:
        result = result.astype(a.dtype)  # back to the input's byte order
    if out is None:
        return result
    np.copyto(out, result)
    return out


def argsort(sorter, a, axis, descending, begin_bit, end_bit, float_order, index_dtype):
    a = np.asarray(a)
    native = _keys.native_key_dtype(a.dtype)
    opts = _keys.options(native, descending, begin_bit, end_bit)
    index_dtype = _keys.index_dtype(index_dtype)
    work = _moved(a, axis)
    if work.shape[-1] - 1 > np.iinfo(index_dtype).max:
        raise ValueError(f"{work.shape[-1]} keys along the axis need indices wider than {index_dtype}")
    k = _keys.library_keys(_native(work), False, descending)
    code = _keys.key_type(native, _keys.host_float_order(k, float_order, opts), descending)
    indices = argsort_last_axis(sorter, k, code, opts, index_dtype)
    return indices if axis is None else np.moveaxis(indices, -1, axis)


def topk(sorter, a, k, axis, largest):
    """(keys, indices) of the first k of each row's stable sort along axis (largest: in
    descending order), as numpy arrays of a's dtype and np.intp."""
    a = np.asarray(a)
    native = _keys.native_key_dtype(a.dtype)
    work = _moved(a, axis)
    length = work.shape[-1]
    k = _keys.check_k(k, length)
    rows = work.size // length if length else 0
    keys = _keys.library_keys(_native(work), in_place=False)
    out_keys = np.empty(work.shape[:-1] + (k,), dtype=keys.dtype)
    out_indices = np.empty(work.shape[:-1] + (k,), dtype=np.uint64)
    if rows and k:
        opts = _keys.options(native, largest, 0, None)
        code = _keys.key_type(native, _keys.host_float_order(keys, "numpy", opts))
        _call(sorter, "clradix_topk_rows_host", code, _pointer(keys), rows, length, k, _pointer(out_keys),
              _pointer(out_indices), 8, ctypes.byref(opts))
    values = _keys.restore_keys(out_keys, native).astype(a.dtype, copy=False)
    indices = out_indices.astype(np.intp)
    if axis is not None:
        values, indices = np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)
    return values, indices


def sort_pairs(sorter, keys, values, descending, begin_bit, end_bit, float_order):
    keys, values = np.asarray(keys), np.asarray(values)
    native = _keys.native_key_dtype(keys.dtype)
    opts = _keys.options(native, descending, begin_bit, end_bit)
    _keys.check_pairs(keys, values)
    k = _keys.library_keys(np.array(keys, dtype=native, order="C"), True, descending)
    v = np.array(values, order="C")  # moved bit for bit: any dtype and byte order
    code = _keys.key_type(native, _keys.host_float_order(k, float_order, opts), descending)
    sort_pairs_in_place(sorter, k, code, v, opts)
    k = _keys.restore_keys(k, native, descending)
    return (k if k.dtype == keys.dtype else k.astype(keys.dtype)), v
