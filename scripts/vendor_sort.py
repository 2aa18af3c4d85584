#!/usr/bin/env python3
"""The GPU vendor's own sort on the same sizes as clradix-bench, for scripts/gpu-check.sh:
CUB's radix sort through CuPy (cupy.sort, cupy.argsort) and PyTorch (torch.sort, stable).
Keys are uniform over every bit pattern of their type, as in clradix-bench; u32 keys go
to PyTorch as int32 bit patterns (the same work, another order). Pairs are what a user of
these libraries writes: the sorting permutation, then the values gathered by it. Writes
CSV lines impl,type,value_size,n,median_ms,mkeys_per_s; prints why when neither library
can use a GPU."""
import argparse
import statistics
import sys


def parse_n(text):
    text = text.strip().upper()
    if "^" in text:
        base, exp = text.split("^")
        return int(base) ** int(exp)
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * scale[text[-1]]) if text[-1] in scale else int(text)


def median_ms(run, event, synchronize, runs):
    run()
    synchronize()
    times = []
    for _ in range(runs):
        start, end = event(), event()
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def cupy_cases(types, pairs, sizes, runs):
    import cupy as cp
    if cp.cuda.runtime.getDeviceCount() == 0:
        raise RuntimeError("CuPy sees no CUDA device")

    def event():
        class Event:
            def __init__(self):
                self.e = cp.cuda.Event()

            def record(self):
                self.e.record()

            def synchronize(self):
                self.e.synchronize()

            def elapsed_time(self, end):
                return cp.cuda.get_elapsed_time(self.e, end.e)
        return Event()

    dtypes = {"u32": cp.uint32, "u64": cp.uint64, "i32": cp.int32, "i64": cp.int64}
    for t in types:
        for value_size in pairs:
            for n in sizes:
                bits = cp.random.randint(0, 2**32, size=n, dtype=cp.int64).astype(cp.uint64)
                if t.endswith("64"):
                    bits = (bits << 32) | cp.random.randint(0, 2**32, size=n, dtype=cp.int64).astype(cp.uint64)
                keys = bits.astype(cp.uint32).view(dtypes[t]) if t.endswith("32") else bits.view(dtypes[t])
                values = cp.arange(n, dtype=cp.uint32)
                if value_size:
                    def run():
                        order = cp.argsort(keys)
                        return keys[order], values[order]
                else:
                    def run():
                        return cp.sort(keys)
                yield "cupy", t, value_size, n, median_ms(run, event, cp.cuda.Device().synchronize, runs)


def torch_cases(types, pairs, sizes, runs):
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("PyTorch sees no CUDA device")

    def event():
        return torch.cuda.Event(enable_timing=True)

    for t in types:
        for value_size in pairs:
            for n in sizes:
                wide = t.endswith("64")
                low = torch.randint(0, 2**32, (n,), dtype=torch.int64, device="cuda")
                keys = ((low << 32) | torch.randint(0, 2**32, (n,), dtype=torch.int64, device="cuda")) if wide \
                    else (low - 2**31).to(torch.int32)
                values = torch.arange(n, dtype=torch.int32, device="cuda")
                if value_size:
                    def run():
                        sorted_keys, order = torch.sort(keys, stable=True)
                        return sorted_keys, values[order]
                else:
                    def run():
                        return torch.sort(keys, stable=True)
                yield "torch", t, value_size, n, median_ms(run, event, torch.cuda.synchronize, runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--type", default="u32")
    parser.add_argument("--pairs", default="0")
    parser.add_argument("--n", default="2^24")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--csv", required=True)
    args = parser.parse_args()
    types = args.type.split(",")
    pairs = [int(p) for p in args.pairs.split(",")]
    sizes = [parse_n(n) for n in args.n.split(",")]
    found = 0
    with open(args.csv, "w") as out:
        out.write("impl,type,value_size,n,median_ms,mkeys_per_s\n")
        for cases in (cupy_cases, torch_cases):
            try:
                for impl, t, value_size, n, ms in cases(types, pairs, sizes, args.runs):
                    out.write(f"{impl},{t},{value_size},{n},{ms:.4f},{n / ms / 1e3:.1f}\n")
                    found += 1
            except Exception as error:  # not installed, no CUDA device, out of memory
                print(f"vendor sort: {cases.__name__.split('_')[0]} not run: {error}", file=sys.stderr)
    return 0 if found else 3


if __name__ == "__main__":
    sys.exit(main())
