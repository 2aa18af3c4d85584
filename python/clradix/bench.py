"""python3 -m clradix.bench: clradix next to what Python users have today, on the same
keys: clradix on numpy arrays (host arrays in and out, transfers included) and on
pyopencl arrays (device-resident), numpy.sort(kind="stable"), numpy.sort() (its default,
quicksort) and pyopencl.algorithm.RadixSort; and a matrix sorted along its rows and
argsorted along its columns (segmented sorts) next to numpy's. Every result is checked
against numpy's stable sort; each time is the median of the runs after one warm-up."""

import argparse
import statistics
import sys
import time

import numpy as np

import clradix

DTYPES = ("uint32", "int32", "float32", "uint64", "int64", "float64", "uint8", "int8", "uint16", "int16", "float16",
          "bool", "datetime64[ns]", "timedelta64[ns]", "S8", "S16", "S32")
# pyopencl's RadixSort sorts unsigned keys: each dtype's C type and order-preserving image
# (the dtypes it has them for).
CTYPES = {"uint32": "uint", "int32": "int", "float32": "float", "uint64": "ulong", "int64": "long",
          "float64": "double", "uint8": "uchar", "int8": "char", "uint16": "ushort", "int16": "short"}
RADIX_KEYS = {
    "uint32": "ary[i]", "uint64": "ary[i]", "uint8": "(uint)ary[i]", "uint16": "(uint)ary[i]",
    "int8": "((uint)(uchar)ary[i] ^ 0x80u)", "int16": "((uint)(ushort)ary[i] ^ 0x8000u)",
    "int32": "((uint)ary[i] ^ 0x80000000u)", "int64": "((ulong)ary[i] ^ 0x8000000000000000ul)",
    "float32": "(as_uint(ary[i]) ^ ((as_uint(ary[i]) >> 31) ? 0xFFFFFFFFu : 0x80000000u))",
    "float64": "(as_ulong(ary[i]) ^ ((as_ulong(ary[i]) >> 63) ? 0xFFFFFFFFFFFFFFFFul : 0x8000000000000000ul))",
}


def parse_size(text):
    if "^" in text:
        base, exponent = text.split("^")
        return int(base) ** int(exponent)
    return int(text)


DISTRIBUTIONS = ("random", "unit", "normal", "zipf", "entropy0.811", "entropy0.544", "entropy0.337", "entropy0.201",
                 "exponential", "rootdup", "twodup", "almostsorted")
ENTROPY_LEVELS = {"entropy0.811": 1, "entropy0.544": 2, "entropy0.337": 3, "entropy0.201": 4}  # words ANDed in


def _mix(x):
    """splitmix64's finaliser of uint64 x (wrapping), the hash of the exponential draws."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _suite_keys(dtype, n, rng, dist):
    """The IPS4o suite's exponential, rootdup, twodup and almostsorted as clradix-bench draws
    them: integers as keys of dtype (floats the nearest value, narrow integers wrapped), the
    exponential's draws hashed to keys (floats: finite ones)."""
    i = np.arange(n, dtype=np.uint64)
    if dist == "exponential":
        bits = dtype.itemsize * 8
        lg = min(max(n - 1, 0).bit_length() + 1, bits)
        span = np.uint64(1) << rng.integers(0, lg, n).astype(np.uint64)
        h = _mix(span + rng.integers(0, np.iinfo(np.int64).max, n).astype(np.uint64) % span)
        unsigned = np.dtype(f"uint{bits}")
        if dtype.kind != "f":
            return h.astype(unsigned).view(dtype)
        while True:  # hashed again until finite, so that equal draws stay equal keys
            keys = h.astype(unsigned).view(dtype)
            bad = ~np.isfinite(keys)
            if not bad.any():
                return keys
            h[bad] = _mix(h[bad])
    if dist == "rootdup":
        values = i % np.uint64(max(int(np.sqrt(n)), 1))
    elif dist == "twodup":
        m = np.uint64(1 << max(n.bit_length() - 1, 0))
        values = (i * i + m // np.uint64(2)) % m
    else:  # almostsorted: 0 .. n-1, then sqrt(n) swaps of two random places
        values = i.copy()
        for a, b in rng.integers(0, max(n, 1), (int(np.sqrt(n)), 2)):
            values[a], values[b] = values[b], values[a]
    with np.errstate(over="ignore"):  # float16 past 65504: infinity, as the nearest value
        return values.astype(dtype)


def make_keys(dtype, n, seed, dist="random"):
    """n keys of dtype drawn from dist, as clradix-bench --dist draws them: random (every bit
    pattern; floats every finite one), unit (floats uniform in [0, 1), integers below 2^20),
    normal (floats standard normal; integers around the middle of their range, 0 if signed,
    with a standard deviation of 2^(bits/2), rounded and clamped), zipf (exponent 1.1, up to
    the largest integer of the dtype, floats the largest they hold exactly), CUB's entropy
    levels (a random key ANDed with 1, 2, 3 or 4 more), the IPS4o suite's exponential,
    rootdup, twodup and almostsorted (see clradix-bench --help). bool, datetimes and byte
    strings (random bytes) only random."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "S":
        return np.frombuffer(rng.bytes(n * dtype.itemsize), dtype=dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n, dtype=np.uint8).astype(dtype)
    if dtype.kind in "mM":  # int64 counts, one in a thousand NaT
        counts = rng.integers(-2**62, 2**62, n, dtype=np.int64)
        counts[::1000] = np.iinfo(np.int64).min
        return counts.view(dtype)
    floating = dtype.kind == "f"
    if floating:
        precision = np.finfo(dtype).nmant + 1
        most = 2 ** precision
    else:
        most = int(np.iinfo(dtype).max)
    if dist == "unit":
        if floating:  # multiples of 2^-precision: exact, below 1
            return (rng.integers(0, 2 ** precision, n, dtype=np.int64) / 2.0 ** precision).astype(dtype)
        return rng.integers(0, min(2 ** 20, most + 1), n, dtype=dtype)
    if dist == "normal":
        z = rng.standard_normal(n)
        if floating:
            return z.astype(dtype)
        bits = dtype.itemsize * 8
        centre = 0.0 if dtype.kind == "i" else 2.0 ** (bits - 1)
        # (within the range but for 8-bit keys: 64-bit ones are far from their ends)
        return np.clip(np.rint(centre + z * 2.0 ** (bits // 2)), float(np.iinfo(dtype).min), float(most)).astype(dtype)
    if dist in ENTROPY_LEVELS:  # CUB's: a random key ANDed with 1 .. 4 more (finite floats stay finite)
        keys = make_keys(dtype, n, rng.integers(2**62), "random")
        unsigned = np.dtype(f"uint{dtype.itemsize * 8}")
        bits = keys.view(unsigned).copy()
        for _ in range(ENTROPY_LEVELS[dist]):
            bits &= make_keys(dtype, n, rng.integers(2**62), "random").view(unsigned)
        return bits.view(dtype)
    if dist in ("exponential", "rootdup", "twodup", "almostsorted"):
        return _suite_keys(dtype, n, rng, dist)
    if dist == "zipf":
        values = rng.zipf(1.1, n)
        while True:  # draws past the largest value drawn again
            past = values > most if most < 2**63 else np.zeros(n, dtype=bool)
            if not past.any():
                break
            values[past] = rng.zipf(1.1, int(past.sum()))
        return values.astype(dtype)
    if floating:  # every finite bit pattern
        bits_dtype = np.dtype(f"uint{dtype.itemsize * 8}")
        keys = rng.integers(0, np.iinfo(bits_dtype).max, n, dtype=bits_dtype, endpoint=True).view(dtype)
        while True:
            bad = ~np.isfinite(keys)
            if not bad.any():
                return keys
            keys[bad] = rng.integers(0, np.iinfo(bits_dtype).max, int(bad.sum()), dtype=bits_dtype,
                                     endpoint=True).view(dtype)
    return rng.integers(np.iinfo(dtype).min, most, n, dtype=dtype, endpoint=True)


def timed(run, runs, check):
    """Median seconds of run() over runs after a warm-up; check(result) must hold."""
    result = run()
    ok = check(result)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), ok


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m clradix.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", default="2^20,2^24", help="sizes, comma-separated (2^k allowed)")
    parser.add_argument("--dtype", default="uint32,float32,uint64,float64", help="key dtypes, comma-separated")
    parser.add_argument("--device", default=None, help="index or name part, as CLRADIX_DEVICE (default device)")
    parser.add_argument("--dist", default="random", choices=DISTRIBUTIONS,
                        help="the keys: random (every bit pattern; floats every finite one), unit (floats in "
                             "[0, 1), integers below 2^20), normal, zipf (exponent 1.1), CUB's entropy levels "
                             "(a random key ANDed with 1 to 4 more), the IPS4o suite's exponential, rootdup, "
                             "twodup, almostsorted (as clradix-bench --help defines them)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-pyopencl", action="store_true", help="only the host rows")
    parser.add_argument("--topk", type=int, default=0,
                        help="also the k smallest keys, sorted (of the whole array, and of every row of the matrix): "
                             "clradix.topk next to numpy.argpartition and a sort "
                             "of the k (0: no top-k rows)")
    parser.add_argument("--matrix", default="4096x4096",
                        help="ROWSxCOLUMNS of the matrix sorted along its rows and argsorted along its columns "
                             "(2^k allowed; none: no matrix rows)")
    parser.add_argument("--lexsort", action="store_true",
                        help="also clradix.lexsort next to np.lexsort at each n: two int32 keys, (int64, float64) "
                             "and three keys (int32, int64, float64)")
    parser.add_argument("--structured", action="store_true",
                        help="also clradix.sort(a, order=...) of a structured array (int32, float64, int32 fields) "
                             "next to np.sort(a, order=..., kind='stable') at each n, by 2 and 3 fields")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.n.split(",")]
    matrix = None if args.matrix == "none" else tuple(parse_size(s) for s in args.matrix.split("x"))
    dtypes = args.dtype.split(",")
    for dtype in dtypes:
        if dtype not in DTYPES:
            parser.error(f"unknown dtype {dtype}: one of {', '.join(DTYPES)}")

    sorter = clradix.Sorter(args.device)
    queue = None
    if not args.no_pyopencl:
        try:
            import pyopencl as cl
            import pyopencl.array as cla
            from pyopencl.algorithm import RadixSort

            # The pyopencl device that is the host sorter's (their cl_device_id are one).
            device = next(d for p in cl.get_platforms() for d in p.get_devices() if d.int_ptr == sorter.device_id)
            context = cl.Context([device])
            queue = cl.CommandQueue(context)
            device_sorter = clradix.Sorter(device, context=context)
        except ImportError:
            print("pyopencl not found: the pyopencl rows are left out", file=sys.stderr)

    print(f"clradix {clradix.__version__} on {sorter.device_name}; {args.dist} keys; median of {args.runs} runs; "
          f"speedup: how many times faster clradix is (host rows: clradix on numpy arrays; "
          f"device rows: clradix on pyopencl arrays)")
    print(f"{'dtype':15} {'n':>10}  {'implementation':30} {'ms':>9} {'Mkeys/s':>9} {'speedup':>8}  verified")
    failed = False

    def report(dtype, label, n, rows):
        """Times rows of (name, kind, run, check) and prints them; the clradix row of each
        kind is what the others' speedup is against."""
        nonlocal failed
        measured = []
        for name, kind, run, check in rows:
            seconds, ok = timed(run, args.runs, check)
            failed |= not ok
            measured.append((name, kind, seconds, ok))
        ours = {kind: seconds for name, kind, seconds, ok in measured if name.startswith("clradix")}
        for name, kind, seconds, ok in measured:
            speedup = "" if name.startswith("clradix") else f"{seconds / ours[kind]:.2f}x"
            print(f"{dtype:15} {label:>10}  {name:30} {seconds * 1e3:9.2f} {n / seconds * 1e-6:9.1f} {speedup:>8}  "
                  f"{'yes' if ok else 'NO'}")
        sys.stdout.flush()

    for dtype in dtypes:
        byte_strings = np.dtype(dtype).kind == "S"  # numpy arrays only, no top-k
        if matrix:
            m = make_keys(dtype, matrix[0] * matrix[1], seed=3, dist=args.dist).reshape(matrix)
            by_rows, by_columns = np.sort(m, axis=-1, kind="stable"), np.argsort(m, axis=0, kind="stable")
            label = f"{matrix[0]}x{matrix[1]}"

            def rows_same(result):
                return result.tobytes() == by_rows.tobytes()

            def columns_same(result):
                return np.array_equal(result, by_columns)

            report(dtype, label, m.size, [
                ("clradix sort(axis=-1)", "rows", lambda: clradix.sort(m, axis=-1, sorter=sorter), rows_same),
                ("numpy sort(axis=-1, stable)", "rows", lambda: np.sort(m, axis=-1, kind="stable"), rows_same),
                ("numpy sort(axis=-1)", "rows", lambda: np.sort(m, axis=-1), rows_same),
                ("clradix argsort(axis=0)", "columns", lambda: clradix.argsort(m, axis=0, sorter=sorter), columns_same),
                ("numpy argsort(axis=0, stable)", "columns", lambda: np.argsort(m, axis=0, kind="stable"),
                 columns_same)])
            if 0 < args.topk <= matrix[1] and not byte_strings:  # the k smallest of every row
                k = args.topk
                rows_k = by_rows[:, :k]

                def numpy_rows_topk():
                    part = np.take_along_axis(m, np.argpartition(m, k - 1, axis=-1)[:, :k], -1)
                    return np.take_along_axis(part, np.argsort(part, axis=-1, kind="stable"), -1)

                def rows_k_same(result):
                    return result.tobytes() == rows_k.tobytes()

                report(dtype, f"{label} top {k}", m.size, [
                    ("clradix.topk(axis=-1)", "rows top-k",
                     lambda: clradix.topk(m, k, axis=-1, largest=False, sorter=sorter)[0], rows_k_same),
                    ("numpy argpartition + sort", "rows top-k", numpy_rows_topk, rows_k_same)])
        for n in sizes:
            keys = make_keys(dtype, n, seed=n, dist=args.dist)
            reference = np.sort(keys, kind="stable")

            def same(result):
                return result.tobytes() == reference.tobytes()

            rows = [("clradix, numpy arrays", "host", lambda: clradix.sort(keys, sorter=sorter), same),
                    ("numpy.sort(kind='stable')", "host", lambda: np.sort(keys, kind="stable"), same),
                    ("numpy.sort() (quicksort)", "host", lambda: np.sort(keys), same)]
            if queue is not None and not byte_strings:
                d = cla.to_device(queue, keys)

                def clradix_device():
                    result = clradix.sort(d, sorter=device_sorter)
                    queue.finish()
                    return result

                rows.append(("clradix, pyopencl arrays", "device", clradix_device, lambda r: same(r.get())))
                if np.dtype(dtype).kind == "f":  # what numpy's order costs: the same keys in totalOrder
                    reference_total = clradix.sort(keys, float_order="total")

                    def clradix_total():
                        result = clradix.sort(d, sorter=device_sorter, float_order="total")
                        queue.finish()
                        return result

                    rows.append(("clradix, pyopencl, total order", "total", clradix_total,
                                 lambda r: r.get().tobytes() == reference_total.tobytes()))
                if dtype in CTYPES:
                    key_dtype = np.uint32 if np.dtype(dtype).itemsize <= 4 else np.uint64
                    radix = RadixSort(context, f"{CTYPES[dtype]} *ary", key_expr=RADIX_KEYS[dtype],
                                      sort_arg_names=["ary"], key_dtype=key_dtype)

                    def pyopencl_radix():
                        (result,), event = radix(d, key_bits=np.dtype(dtype).itemsize * 8, queue=queue)
                        event.wait()
                        return result

                    rows.append(("pyopencl RadixSort", "device", pyopencl_radix, lambda r: same(r.get())))
            report(dtype, n, n, rows)
            if 0 < args.topk <= n and not byte_strings:
                k = args.topk
                smallest = reference[:k]

                def numpy_topk():
                    part = np.argpartition(keys, k - 1)[:k]
                    return keys[part[np.argsort(keys[part], kind="stable")]]

                def same_k(result):
                    return result.tobytes() == smallest.tobytes()

                rows = [("clradix.topk, numpy arrays", "host", lambda: clradix.topk(keys, k, largest=False,
                                                                                   sorter=sorter)[0], same_k),
                        ("numpy argpartition + sort", "host", numpy_topk, same_k)]
                if queue is not None:
                    def clradix_device_topk():
                        values, _ = clradix.topk(d, k, largest=False, sorter=device_sorter)
                        queue.finish()
                        return values

                    rows.append(("clradix.topk, pyopencl arrays", "device", clradix_device_topk,
                                 lambda r: same_k(r.get())))
                report(dtype, f"top {k}", n, rows)
    for n in sizes if args.lexsort or args.structured else []:
        rng = np.random.default_rng(n)
        small = rng.integers(0, 1000, n).astype(np.int32)  # few distinct values: ties reach the next key
        wide, real = rng.integers(-2**62, 2**62, n), rng.standard_normal(n)
        if args.lexsort:
            for label, keys in (("2 x int32", (small, small[::-1].copy())), ("int64, float64", (real, wide)),
                                ("int32, int64, float64", (real, wide, small))):
                reference = np.lexsort(keys)
                report(label, n, n, [
                    ("clradix.lexsort", "host", lambda: clradix.lexsort(keys, sorter=sorter),
                     lambda r: np.array_equal(r, reference)),
                    ("numpy.lexsort", "host", lambda: np.lexsort(keys), lambda r: np.array_equal(r, reference))])
        if args.structured:
            table = np.empty(n, dtype=[("a", np.int32), ("b", np.float64), ("c", np.int32)])
            table["a"], table["b"], table["c"] = small, real, small[::-1]
            for order in (["a", "b"], ["a", "c", "b"]):
                reference = np.sort(table, order=order, kind="stable")

                def same(result):
                    return result.tobytes() == reference.tobytes()

                report("structured", f"{n} by {len(order)}", n, [
                    ("clradix.sort(order=)", "host", lambda: clradix.sort(table, order=order, sorter=sorter), same),
                    ("numpy.sort(order=, stable)", "host", lambda: np.sort(table, order=order, kind="stable"),
                     same)])
    sorter.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
