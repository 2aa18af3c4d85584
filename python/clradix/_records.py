"""numpy structured arrays sorted by their fields (``order=``) and np.lexsort, through the
C library's record sorts: each record's fields are its keys, numpy's float order per
field, and records equal in every field keep their order. Rows along an axis become one
sort of records with the row's number as the first field."""

import ctypes

import numpy as np

from . import _host, _keys, _library


def _is_bytes(dtype):
    """Fixed-width byte strings (S) and raw bytes (V without fields; not ml_dtypes' types,
    which are of kind V too), which numpy compares byte by byte as unsigned numbers."""
    return dtype.kind == "S" or (dtype.type is np.void and dtype.names is None and dtype.subdtype is None)


def _field_code(dtype, name):
    """The clradix_key_type of a field of dtype (numpy's float order), or TypeError; byte
    strings pass (_byte_columns makes them keys)."""
    if _is_bytes(dtype):
        return None
    try:
        native = _keys.native_key_dtype(dtype)
    except TypeError:
        raise TypeError(f"field {name!r}: clradix sorts fields of dtype {_keys.SUPPORTED}, not {dtype}") from None
    return _keys.key_type(native, "numpy")


def _byte_columns(name, column):
    """A byte-string column as (name, array) columns of native unsigned integers, most
    significant first, whose order is the strings' byte order: its bytes in big-endian
    chunks of 8, then 4, 2 and 1 bytes."""
    width = column.dtype.itemsize
    raw = np.ascontiguousarray(column).view(np.uint8).reshape(column.shape + (width,))
    columns, at = [], 0
    for size in (8, 4, 2, 1):
        while width - at >= size:
            chunk = np.ascontiguousarray(raw[..., at:at + size]).view(f">u{size}").reshape(column.shape)
            columns.append((f"{name}.{at}", chunk.astype(f"=u{size}")))
            at += size
    return columns


def _packed(columns, row_count=None, descending=False):
    """A packed structured array of native key fields from (name, array) columns, all of
    one length (time fields as library_keys makes them: int64 counts minus one), with a
    leading uint32/uint64 field of the row numbers when row_count is given (each row's
    records consecutive). The most significant field lies last in memory, so that records
    of 4 or 8 bytes are their composite key, which the library's sort reads as one key.
    Returns (records, key fields most significant first)."""
    columns = [part for name, column in columns
               for part in (_byte_columns(name, column) if _is_bytes(column.dtype) else [(name, column)])]
    names, formats, arrays = [], [], []
    length = len(columns[0][1]) if columns else 0
    if row_count is not None:
        per_row = length // row_count if row_count else 0
        row_dtype = np.dtype(np.uint32 if row_count <= _library.MAX_N else np.uint64)
        names.append("row")
        formats.append(row_dtype)
        arrays.append(np.repeat(np.arange(row_count, dtype=row_dtype), per_row))
    for name, column in columns:
        native = _keys.native_key_dtype(column.dtype)
        names.append(name)
        formats.append(np.dtype(np.int64) if _keys._is_time(native) else native)
        arrays.append(column)
    sizes = [np.dtype(f).itemsize for f in formats]
    offsets = [sum(sizes[i + 1:]) for i in range(len(sizes))]
    records = np.empty(length, dtype=np.dtype({"names": names, "formats": formats, "offsets": offsets,
                                               "itemsize": sum(sizes)}))
    for name, column in zip(names, arrays):
        if _keys._is_time(column.dtype):
            records[name] = column.view(np.int64) - 1  # NaT (the smallest int64) wraps to the largest: last
        else:
            records[name] = column
    fields = [_library.KeyField(_field_code(records.dtype.fields[n][0], n), records.dtype.fields[n][1],
                                int(descending and (i > 0 or row_count is None))) for i, n in enumerate(names)]
    return records, fields


def _sort_records(sorter, records, fields):
    """Sorts the contiguous 1-D records (structured or void) in place by fields (KeyFields)."""
    if records.size:
        array = (_library.KeyField * len(fields))(*fields)
        _host._call(sorter, "clradix_sort_records_host", _host._pointer(records), records.dtype.itemsize,
                    records.size, array, len(fields))


def _argsort_records(sorter, records, fields, index_dtype):
    wide = np.dtype(np.uint32 if records.size <= _library.MAX_N else np.uint64)
    indices = np.empty(records.size, dtype=wide)
    if records.size:
        array = (_library.KeyField * len(fields))(*fields)
        _host._call(sorter, "clradix_argsort_records_host", _host._pointer(records), records.dtype.itemsize,
                    records.size, array, len(fields), _host._pointer(indices), wide.itemsize)
    return indices


def _order_names(dtype, order):
    """numpy's meaning of order for a structured dtype: the fields named, then the others in
    the dtype's order; an unknown name: ValueError."""
    names = list(dtype.names)
    wanted = [] if order is None else [order] if isinstance(order, str) else list(order)
    for name in wanted:
        if name not in names:
            raise ValueError(f"unknown field name: {name!r}")
    return wanted + [n for n in names if n not in wanted]


def _rows_permutation(sorter, work, columns, index_dtype, descending=False):
    """The stable permutation of each row of work (the sorted axis last) by the columns
    (name, array of work's shape; descending: each reversed), as positions in the row, of
    work's shape."""
    length = work.shape[-1] if work.ndim else 0
    rows = work.size // length if length else 0
    flat = [(name, np.ascontiguousarray(column).reshape(-1)) for name, column in columns]
    records, fields = _packed(flat, rows if work.ndim > 1 else None, descending)
    order = _argsort_records(sorter, records, fields, index_dtype).astype(np.int64)
    if work.ndim > 1 and rows:
        order -= np.repeat(np.arange(rows, dtype=np.int64) * length, length)
    return order.reshape(work.shape).astype(index_dtype, copy=False)


def argsort(sorter, a, order, axis, index_dtype):
    """np.argsort(a, order=order, axis=axis, kind="stable") of a structured array a."""
    a = np.asarray(a)
    index_dtype = _keys.index_dtype(np.intp if index_dtype is None else index_dtype)
    work = _host._moved(a, axis)
    columns = [(name, work[name]) for name in _order_names(a.dtype, order)]
    for name, column in columns:
        if column.ndim != work.ndim:
            raise TypeError(f"field {name!r}: sub-array fields are not sorted by clradix")
        _field_code(column.dtype, name)
    indices = _rows_permutation(sorter, work, columns, index_dtype)
    return indices if axis is None else np.moveaxis(indices, -1, axis)


def _sorted_copy(sorter, a, order):
    """a flattened and sorted by its fields in place of a copy of its own, records moving
    whole (the library reads records of 4 or 8 bytes as one key where it can); None where a
    field is not one the library reads as it lies (time, byte-swapped, sub-array)."""
    fields = []
    for name in _order_names(a.dtype, order):
        dtype, offset = a.dtype.fields[name][:2]
        if dtype.subdtype or _keys._is_time(dtype) or dtype.byteorder not in ("=", "|") or _is_bytes(dtype):
            return None
        fields.append(_library.KeyField(_field_code(dtype, name), offset, 0))
    copy = _bytes_copy(a.reshape(-1))
    _sort_records(sorter, copy, fields)
    return copy


def _bytes_copy(flat):
    """A copy of the 1-D structured array flat, made as bytes where it is contiguous
    (numpy copies structured arrays field by field: 5x slower for two uint32 fields)."""
    if not flat.flags.c_contiguous:
        return np.array(flat, copy=True)
    return flat.view(np.uint8).copy().view(flat.dtype)


def sort(sorter, a, order, axis):
    """np.sort(a, order=order, axis=axis, kind="stable") of a structured array a."""
    a = np.asarray(a)
    if axis is None or a.ndim == 1:
        flat = _sorted_copy(sorter, a, order)
        if flat is not None:
            return flat
    indices = argsort(sorter, a, order, axis, np.intp)
    if axis is None:
        return a.reshape(-1)[indices]
    return np.take_along_axis(a, indices, axis=axis)


def _byte_words(flat, descending):
    """A 1-D array of byte strings as records of native 64-bit words (the bytes, zero-padded
    to a multiple of 8, read big-endian: their order is the strings'; one void record per
    string), and its fields."""
    width = flat.dtype.itemsize
    padded = np.zeros((flat.size, -(-width // 8) * 8), dtype=np.uint8)
    padded[:, :width] = np.ascontiguousarray(flat).view(np.uint8).reshape(flat.size, width)
    words = padded.view(">u8").astype("=u8")
    code = _keys.key_type(np.dtype(np.uint64))
    fields = [_library.KeyField(code, 8 * k, int(descending)) for k in range(words.shape[1])]
    return words.view(np.dtype((np.void, words.itemsize * words.shape[1]))).reshape(-1), fields


def bytes_argsort(sorter, a, axis, descending, index_dtype):
    """np.argsort(a, axis=axis, kind="stable") of byte strings (S, or V without fields),
    compared byte by byte as numpy compares them; descending: largest first, ties in input
    order. One record sort of the bytes as big-endian words."""
    index_dtype = _keys.index_dtype(index_dtype)
    if axis is None or a.ndim == 1:
        records, fields = _byte_words(a.reshape(-1), descending)
        return _argsort_records(sorter, records, fields, index_dtype).astype(index_dtype, copy=False)
    work = _host._moved(a, axis)
    indices = _rows_permutation(sorter, work, [("bytes", work)], index_dtype, descending)
    return np.moveaxis(indices, -1, axis)


def bytes_sort(sorter, a, axis, descending):
    """np.sort of byte strings, as bytes_argsort orders them, bit for bit: a 1-D array by a
    record sort of its words, which then become bytes again; rows by their permutation."""
    if axis is None or a.ndim == 1:
        records, fields = _byte_words(a.reshape(-1), descending)
        _sort_records(sorter, records, fields)
        width = a.dtype.itemsize
        back = records.view("=u8").astype(">u8").view(np.uint8).reshape(records.size, records.itemsize)[:, :width]
        return np.ascontiguousarray(back).view(a.dtype).reshape(-1)
    indices = bytes_argsort(sorter, a, axis, descending, np.intp)
    return np.take_along_axis(a, indices, axis=axis)


def lexsort(sorter, keys, axis):
    """np.lexsort(keys, axis): the last key primary, np.intp indices."""
    if isinstance(keys, np.ndarray) and keys.ndim > 0:
        keys = list(keys)  # an array's items are the keys, as numpy takes them (a 1-D one's: scalars)
    keys = [np.asarray(k) for k in keys]
    if not keys:
        raise TypeError("need a sequence of keys with len > 0 in lexsort")
    shape = keys[0].shape
    if any(k.shape != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    if not shape:
        return np.intp(0)  # as numpy: scalar keys sort to the one position
    work = [np.moveaxis(k, axis, -1) for k in keys]
    columns = [(f"k{i}", work[i]) for i in reversed(range(len(keys)))]
    for name, column in columns:
        _field_code(column.dtype, name)
    indices = _rows_permutation(sorter, work[0], columns, np.intp)
    return np.moveaxis(indices, -1, axis)
