"""clradix.pyopencl.RadixSort: a drop-in for pyopencl.algorithm.RadixSort. Code written
for pyopencl's sort switches by its import alone:

    from clradix.pyopencl import RadixSort        # instead of pyopencl.algorithm's
    sort = RadixSort(ctx, "int *ary, float *weights", key_expr="ary[i]", sort_arg_names=["ary", "weights"])
    (ary_sorted, weights_sorted), event = sort(ary, weights, key_bits=16)

The key expression is computed on the device by a pyopencl elementwise kernel, as
pyopencl does; then one clradix argsort of the keys and one clradix gather per named array,
instead of pyopencl's scan per bits_at_a_time bits. The result is the same: the arrays
sorted stably by the key's bits [0, key_bits) read as an unsigned number (key_bits rounded
up to a multiple of bits_at_a_time, as pyopencl's passes take them), as new arrays.
"""

import numpy as np

from . import _device, _keys, _sorter

_UNSIGNED_TYPES = {1: 6, 2: 8, 4: 0, 8: 3}  # the key's bytes: CLRADIX_U8, _U16, _U32, _U64


class RadixSort:
    """pyopencl.algorithm.RadixSort's interface on clradix.

    context: the pyopencl.Context of the arrays. arguments: C argument declarations (a
    string such as "int *ary, float scale", or pyopencl.tools argument objects), each
    array one of the call's arguments. key_expr: a C expression of the arguments and the
    index i, giving element i's key, of key_dtype (an integer dtype of 1, 2, 4 or 8 bytes).
    sort_arg_names: the array arguments to sort (others are only read). bits_at_a_time
    (or bits): pyopencl's pass width, which only rounds key_bits up here; index_dtype and
    scan_kernel: pyopencl's tuning, accepted and not needed; options: the key kernel's
    build options.
    """

    def __init__(self, context, arguments, key_expr, sort_arg_names, bits_at_a_time=2, index_dtype=np.int32,
                 key_dtype=np.uint32, scan_kernel=None, options=None, *, bits=None):
        from pyopencl.elementwise import ElementwiseKernel
        from pyopencl.tools import VectorArg, parse_arg_list

        self.context = context
        self.arguments = parse_arg_list(arguments)
        self.key_expr = key_expr
        self.sort_arg_names = list(sort_arg_names)
        self.bits = int(bits_at_a_time if bits is None else bits)
        self.index_dtype = np.dtype(index_dtype)
        self.key_dtype = np.dtype(key_dtype)
        self.options = options
        if self.key_dtype.kind not in "iu" or self.key_dtype.itemsize not in _UNSIGNED_TYPES:
            raise TypeError(f"key_dtype must be an integer dtype of 1, 2, 4 or 8 bytes, not {self.key_dtype}")
        if self.bits < 1:
            raise ValueError(f"bits_at_a_time must be positive, not {self.bits}")
        arrays = [index for index, argument in enumerate(self.arguments) if isinstance(argument, VectorArg)]
        unknown = set(self.sort_arg_names) - {self.arguments[index].name for index in arrays}
        if not arrays or unknown:
            raise ValueError(f"sort_arg_names must name array arguments; not among them: {sorted(unknown)}")
        self._sized = arrays[-1]  # pyopencl's rule: the last array argument's length is n
        with_offsets = [VectorArg(argument.dtype, argument.name, with_offset=True)
                        if isinstance(argument, VectorArg) else argument for argument in self.arguments]
        self._key_kernel = ElementwiseKernel(context, with_offsets + [VectorArg(self.key_dtype, "clradix_key", True)],
                                             f"clradix_key[i] = ({key_expr})", name="clradix_sort_key",
                                             options=options)

    def __call__(self, *args, queue=None, allocator=None, key_bits=None, wait_for=None, **kwargs):
        """(sorted copies of the arrays named in sort_arg_names, in the order of the
        arguments, an event after all of them). args as the constructor's arguments;
        key_bits: how many low bits of the key to sort by (None: all); queue: the last
        array argument's by default; allocator: for the new arrays; wait_for: events the
        key kernel waits for."""
        import pyopencl as cl
        import pyopencl.array as cla

        if kwargs:
            raise TypeError(f"invalid keyword arguments: {set(kwargs)}")
        if len(args) != len(self.arguments):
            raise TypeError(f"{len(self.arguments)} arguments expected ({len(args)} given)")
        sized = args[self._sized]
        n = len(sized)
        queue = sized.queue if queue is None else queue
        allocator = sized.allocator if allocator is None else allocator
        width = self.key_dtype.itemsize * 8
        key_bits = width if key_bits is None else int(key_bits)
        end_bit = min(max(0, -(-key_bits // self.bits) * self.bits), width)
        keys = cla.empty(queue, n, self.key_dtype, allocator=allocator)
        if n:
            keys.add_event(self._key_kernel(*args, keys, range=slice(n), queue=queue, wait_for=wait_for))
        sorter = _sorter.queue_sorter(queue)
        options = _keys.options(keys.dtype, False, 0, end_bit)
        indices = _device.argsort_into(sorter, queue, keys, _UNSIGNED_TYPES[self.key_dtype.itemsize], options,
                                       np.uint32)  # device calls sort at most 2^32 - 1 keys
        result = tuple(_device.gather(sorter, queue, indices, value, allocator)
                       for argument, value in zip(self.arguments, args) if argument.name in self.sort_arg_names)
        waits = [event for array in result for event in array.events] or indices.events or keys.events
        return result, cl.enqueue_marker(queue, wait_for=waits or wait_for)
