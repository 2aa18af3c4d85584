#!/usr/bin/env python3
"""Two ways Intel's CPU OpenCL runtime (2026.2) mishandles clradix's kernels, shown with plain
pyopencl and clradix's kernel sources (no clradix library), each as shipped and without its
workaround:

1. values: the one-launch pairs sort (radix_sort_small, one work-item) returns every value 0
   when few_keys_sort is inlined into local_sort, also for n above FEW_KEYS, where that
   function does not even run. Workaround: few_keys_sort noinline.
2. barriers: with 64 work-items ranking in 4-bit rounds, radix_sort_small crashes
   (segmentation fault) once the program also holds scatter.cl, whose kernels call the same
   functions with barriers (rank_round), unless those are inlined into every kernel.
   Workaround: BARRIER_FUNCTION, always_inline where the library builds with
   -D INLINE_BARRIER_FUNCTIONS (Intel's CPU runtime). Each case runs in a child process, so
   that the crash is reported rather than suffered.

    OCL_ICD_VENDORS=<folder with intel.icd> python3 tests/intel-cpu-repro.py [PLATFORM]

On that runtime: "as shipped: ok" and "without the workaround: values 0 0 ..." / "crashed";
on POCL both ok. PLATFORM is a substring of the platform's name (default: Intel).
"""
import pathlib
import subprocess
import sys

CL = pathlib.Path(__file__).resolve().parent.parent / "cl"
COMMON = ("-cl-std=CL1.2 -D KEY_BITS=32 -D VALUE_SIZE=4 -D RADIX_BITS=8 -D HIST_COPIES=1 -D FUSED=1 -D MAX_GROUPS=6"
          " -D SCAN_WG=256 -D TINY_N=16")
CASES = {  # name: (sources, options, work-items, the workaround: source text to drop, or a build option)
    "values": (["common.cl", "small.cl"], " -D WG=1 -D KPT=65536 -D RANK_BITS=8 -D SMALL_N=8192", 1,
               ("__attribute__((noinline)) int few_keys_sort(", "int few_keys_sort(")),
    "barriers": (["common.cl", "histogram.cl", "plan.cl", "scan.cl", "scatter.cl", "small.cl", "iota.cl"],
                 " -D WG=64 -D KPT=4 -D RANK_BITS=4 -D SMALL_N=8192", 64, " -D INLINE_BARRIER_FUNCTIONS=1"),
}


def run(platform_name, case, shipped, n):
    """In this process: radix_sort_small of n u32 keys with their indices as values."""
    import numpy as np
    import pyopencl as cl

    files, options, work_items, workaround = CASES[case]
    source = "".join((CL / name).read_text() for name in files)
    if isinstance(workaround, str):  # a build option, as the library passes it on that runtime
        options += workaround if shipped else ""
    else:
        assert workaround[0] in source
        source = source if shipped else source.replace(*workaround)
    platform = next(p for p in cl.get_platforms() if platform_name in p.name)
    context = cl.Context(platform.get_devices()[:1])
    queue = cl.CommandQueue(context)
    program = cl.Program(context, source).build(options=COMMON + options)
    keys = (np.arange(n, dtype=np.uint64) * 2654435761 % 2**32).astype(np.uint32)
    values = np.arange(n, dtype=np.uint32)
    flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
    key_buffer, value_buffer = cl.Buffer(context, flags, hostbuf=keys), cl.Buffer(context, flags, hostbuf=values)
    u = np.uint32
    program.radix_sort_small(queue, (work_items,), (work_items,), key_buffer, value_buffer, u(n), u(0), u(32), u(0),
                             u(0), u(0), u(0)).wait()
    out_keys, out_values = np.empty_like(keys), np.empty_like(values)
    cl.enqueue_copy(queue, out_keys, key_buffer)
    cl.enqueue_copy(queue, out_values, value_buffer)
    order = np.argsort(keys, kind="stable")
    ok = np.array_equal(out_keys, keys[order]) and np.array_equal(out_values, order.astype(np.uint32))
    print("ok" if ok else f"keys {'ok' if np.array_equal(out_keys, keys[order]) else 'WRONG'}, values {out_values[:6]}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        run(sys.argv[2], sys.argv[3], sys.argv[4] == "shipped", int(sys.argv[5]))
        return
    name = sys.argv[1] if len(sys.argv) > 1 else "Intel"
    for case in CASES:
        for n in (100, 1000):
            for shipped in ("shipped", "without"):
                child = subprocess.run([sys.executable, __file__, "--child", name, case, shipped, str(n)],
                                       capture_output=True, text=True)
                lines = child.stdout.strip().splitlines()
                verdict = lines[-1] if child.returncode == 0 and lines else f"crashed (exit status {child.returncode})"
                label = "as shipped" if shipped == "shipped" else "without the workaround"
                print(f"{case}, n={n}, {label}: {verdict}")


if __name__ == "__main__":
    main()
