#!/usr/bin/env python3
"""Intel's CPU OpenCL runtime (2026.2) loses the values of clradix's one-launch pairs sort
when few_keys_sort is inlined into local_sort: every value comes out 0, the keys sorted,
also for n above FEW_KEYS, where that function does not even run. Plain pyopencl and
clradix's kernel sources, no clradix library: the kernel is built as shipped (noinline)
and without the attribute, on one work-item, and both results are checked against numpy.

    OCL_ICD_VENDORS=<folder with intel.icd> python3 tests/intel-inline-values.py [PLATFORM]

prints, per n, "as shipped: ok" and, on that runtime, "inlined: values 0 0 0 ..." (POCL:
both ok). PLATFORM is a substring of the platform's name (default: Intel).
"""
import pathlib
import sys

import numpy as np
import pyopencl as cl

CL = pathlib.Path(__file__).resolve().parent.parent / "cl"
OPTIONS = ("-cl-std=CL1.2 -D KEY_BITS=32 -D VALUE_SIZE=4 -D RADIX_BITS=8 -D WG=1 -D KPT=65536 -D RANK_BITS=8"
           " -D HIST_COPIES=1 -D FUSED=1 -D MAX_GROUPS=64 -D SMALL_N=8192 -D SCAN_WG=256 -D TINY_N=16")


def sort_small(context, queue, source, n):
    """radix_sort_small of n u32 keys with their indices as values: (keys ok, values ok, values)."""
    program = cl.Program(context, source).build(options=OPTIONS)
    keys = (np.arange(n, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    values = np.arange(n, dtype=np.uint32)
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    key_buffer = cl.Buffer(context, flags, hostbuf=keys)
    value_buffer = cl.Buffer(context, flags, hostbuf=values)
    u = np.uint32
    program.radix_sort_small(queue, (1,), (1,), key_buffer, value_buffer, u(n), u(0), u(32), u(0), u(0), u(0),
                             u(0)).wait()
    out_keys, out_values = np.empty_like(keys), np.empty_like(values)
    cl.enqueue_copy(queue, out_keys, key_buffer)
    cl.enqueue_copy(queue, out_values, value_buffer)
    order = np.argsort(keys, kind="stable")
    return np.array_equal(out_keys, keys[order]), np.array_equal(out_values, order.astype(np.uint32)), out_values


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "Intel"
    platform = next(p for p in cl.get_platforms() if name in p.name)
    context = cl.Context(platform.get_devices()[:1])
    queue = cl.CommandQueue(context)
    shipped = (CL / "common.cl").read_text() + (CL / "small.cl").read_text()
    inlined = shipped.replace("__attribute__((noinline)) int few_keys_sort(", "int few_keys_sort(")
    assert inlined != shipped
    print(platform.name, "/", platform.get_devices()[0].name)
    for n in (17, 100, 1000):
        for label, source in (("as shipped", shipped), ("inlined", inlined)):
            keys_ok, values_ok, values = sort_small(context, queue, source, n)
            verdict = "ok" if keys_ok and values_ok else f"keys {'ok' if keys_ok else 'WRONG'}, values {values[:6]}"
            print(f"n={n} {label}: {verdict}")


if __name__ == "__main__":
    main()
