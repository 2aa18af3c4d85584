/*
 * Devices that end loops early. Mesa's llvmpipe (the CPU device of rusticl and Clover)
 * compiles kernels with a loop limiter: once the loops of one work-item have run 65535
 * iterations in one launch, all of them together, every loop of it stops after one more
 * iteration and the kernel goes on with whatever it has (a sort then loses or repeats keys;
 * tests/mesa-loop-limit-repro.c). That is no limit OpenCL knows, so the library measures it
 * (device_loop_budget) and, where there is one, gives every work-group a share small enough
 * that no work-item passes it: the planners size their launches with the counts below,
 * which follow the loops of the kernels in cl/ for any shape, and keep to half the budget
 * (on llvmpipe a radix_scatter tile ran 1.0-1.2 times the iterations counted here, at the
 * table's rows and at 1 and 32 work-items: the block that broke the budget there had 1.7-2.1x
 * the tiles the planner gives one).
 */
#include "internal.h"

#include <string.h>

/* ceil(a / b) */
static cl_ulong up(cl_ulong a, cl_ulong b)
{
    return (a + b - 1) / b;
}

cl_ulong loops_allowed(const device_limits *limits)
{
    /* Half the measured budget: room for what the counts leave out (a loop's exit test,
       loops a compiler unrolls or not). */
    return limits->loop_budget ? limits->loop_budget / 2 : ~(cl_ulong)0;
}

/* The constants of the shape the bounds use. */
typedef struct loop_shape {
    cl_ulong wg, kpt, tile, radix_bits, radix, rank_bits, rank_radix, rank_rounds, counter_digits, hist_copies;
    cl_ulong key_bits, passes;
} loop_shape;

static loop_shape shape_of(const radix_params *q, unsigned key_bytes)
{
    loop_shape s;
    s.wg = q->wg;
    s.kpt = q->kpt;
    s.tile = (cl_ulong)q->wg * q->kpt;
    s.radix_bits = q->radix_bits;
    s.radix = (cl_ulong)1 << q->radix_bits;
    s.rank_bits = q->rank_bits;
    s.rank_radix = (cl_ulong)1 << q->rank_bits;
    s.rank_rounds = up(q->radix_bits, q->rank_bits);
    s.counter_digits = q->counter_digits;
    s.hist_copies = q->hist_copies;
    s.key_bits = 8 * (cl_ulong)key_bytes;
    s.passes = up(s.key_bits, q->radix_bits);
    return s;
}

/* group_exclusive_scan (cl/common.cl) of count entries by size work-items: every level of
   both sweeps. */
static cl_ulong scan_loops(cl_ulong count, cl_ulong size)
{
    cl_ulong total = 2;
    for (cl_ulong pairs = count / 2; pairs > 0; pairs /= 2)
        total += 2 * (1 + up(pairs, size));
    return total;
}

/* rank_round of one work-item over n keys (cl/common.cl). */
static cl_ulong rank_round_loops(const loop_shape *s, cl_ulong n)
{
    return 3 * s->rank_radix + 2 * n;  /* counters cleared and scanned, keys counted and placed */
}

/* Several work-items: rank_digits of a tile, with the counters of counter_digits digits at
   once (per chunk: its words cleared, keys counted, words summed one by one, prefixes pushed
   through them as vectors of 4 or words, keys placed, run starts), and group_prefix. */
static cl_ulong rank_digits_loops(const loop_shape *s)
{
    const cl_ulong lanes = s->counter_digits / 2, rake = lanes % 4 ? lanes : lanes / 4;
    const cl_ulong span = s->wg >= 128 ? 16 : s->wg >= 8 ? 8 : s->wg;
    const cl_ulong prefix = span + s->wg / span;
    const cl_ulong chunk = 2 * lanes + rake + 2 * s->kpt + prefix + up(s->counter_digits, s->wg);
    return s->kpt + (s->rank_radix / s->counter_digits) * chunk;
}

/* local_sort (one work-item) or sort_tile (several) of n keys by bits of their image (at most
   the key's width). */
static cl_ulong local_sort_loops(const loop_shape *s, cl_ulong n, cl_ulong bits)
{
    const cl_ulong rounds = up(bits, s->rank_bits);
    if (s->wg > 1)  /* the varying bits, then per round the digits, a rank, keys and values moved */
        return s->kpt + rounds * (5 * s->kpt + rank_digits_loops(s));
    /* One work-item: the few-keys sort (FEW_KEYS, FEW_PER_BUCKET), then the rounds, each
       row of counters counted in one read. */
    const cl_ulong rows = up(s->key_bits, s->rank_bits);
    const cl_ulong few = n <= s->key_bits * 8 ? 19 * n + 3 * s->rank_radix : 0;
    return few + s->rank_radix * rows + n * (1 + rows) + rounds * (1 + s->rank_radix + n);
}

/* One tile moved by a digit (scatter_tile in cl/common.cl): loaded, ordered (one work-item:
   a rank round or a local sort, then each digit's run written; several: rank_digits, or
   sort_tile and the runs found, then the keys and values written), with FUSED's counts
   stepping through up to `groups` blocks per key. */
static cl_ulong tile_loops(const loop_shape *s, cl_ulong groups)
{
    if (s->wg == 1) {
        const cl_ulong order = s->rank_rounds == 1 ? rank_round_loops(s, s->tile)
                                                   : local_sort_loops(s, s->tile, s->radix_bits) + 3 * s->radix;
        return 1 + s->tile + order + s->radix + s->tile * (1 + groups);
    }
    const cl_ulong order = s->rank_rounds == 1 ? rank_digits_loops(s) : local_sort_loops(s, s->tile, s->radix_bits)
                                                                       + 2 * up(s->radix, s->wg);
    return 1 + 5 * s->kpt + order + up(s->radix, s->wg) + s->kpt * (1 + groups);
}

cl_ulong loops_lsd_tiles(const radix_params *q, unsigned key_bytes, cl_ulong allowed)
{
    const loop_shape s = shape_of(q, key_bytes);
    /* radix_histogram_all, radix_histogram and radix_scatter: what each does once, and per
       tile (the scatter's tile is the most). */
    const cl_ulong once = up(s.hist_copies * (s.passes * s.radix + 1), s.wg) + s.passes
                        + up(s.passes * s.radix, s.wg) * (1 + s.hist_copies) + up(s.radix, s.wg);
    const cl_ulong tile = tile_loops(&s, q->fused ? q->max_groups : 0), count = 1 + s.kpt * (1 + s.passes);
    const cl_ulong per_tile = tile > count ? tile : count;
    return allowed > once + per_tile ? (allowed - once) / per_tile : 0;
}

cl_ulong loops_small_sort(const radix_params *q, unsigned key_bytes, cl_ulong n)
{
    const loop_shape s = shape_of(q, key_bytes);
    return 1 + 2 * up(n, s.wg) + local_sort_loops(&s, n, s.key_bits);
}

cl_ulong loops_engine_block(const radix_params *q, unsigned key_bytes, cl_ulong block_len)
{
    const loop_shape s = shape_of(q, key_bytes);
    /* seg_histogram (counts, and one work-item's OR of the group's bits) and seg_scatter
       (the digits' offsets, then the block's tiles); the larger. */
    const cl_ulong count = 1 + up(s.hist_copies * (s.radix + 1), s.wg) + up(block_len, s.wg)
                         + up(s.radix, s.wg) * (1 + s.hist_copies) + s.wg;
    const cl_ulong move = 1 + 2 * up(s.radix, s.wg) + up(block_len, s.tile) * tile_loops(&s, 0);
    return count > move ? count : move;
}

cl_ulong loops_medium_job(const radix_params *q, unsigned key_bytes, cl_ulong len)
{
    const loop_shape s = shape_of(q, key_bytes);
    if (s.wg == 1)
        return 1 + s.passes * s.radix + len * (1 + s.passes) + s.passes * (1 + s.radix + len) + len;
    const cl_ulong pass = 1 + 3 * up(s.radix, s.wg) + up(len, s.wg) + scan_loops(s.radix, s.wg)
                        + up(len, s.tile) * tile_loops(&s, 0);
    return 1 + s.passes * pass + up(len, s.wg);
}

cl_ulong loops_topk_slice_cap(const radix_params *q, cl_ulong allowed)
{
    /* The count, the fallback's count and the split of a slice: per tile of WG keys a
       rank of the tile (WG > 1), or one work-item's keys eight at a time, each of the
       eight looked at again where one may be in; besides, the digits' counts. */
    const cl_ulong once = 8 + 2 * up(256, q->wg);
    if (allowed <= once + 1 + scan_loops(q->wg, q->wg) + 9)
        return 0;
    return q->wg == 1 ? 8 * ((allowed - once) / 9) : q->wg * ((allowed - once) / (1 + scan_loops(q->wg, q->wg)));
}

cl_ulong loops_topk_row(const radix_params *q, unsigned key_bytes, cl_ulong row_length)
{
    const loop_shape s = shape_of(q, key_bytes);
    const cl_ulong digits = up(s.key_bits, 8);
    const cl_ulong read = s.wg == 1 ? 2 * row_length + 8 : up(row_length, s.wg);  /* one read of the row */
    const cl_ulong place = s.wg == 1 ? 2 * row_length + 8 : up(row_length, s.wg) * (1 + scan_loops(s.wg, s.wg));
    return 1 + digits * (1 + up(256, s.wg) + read + 256) + place;
}

#ifndef CLRADIX_LOOP_PROBE_N
#define CLRADIX_LOOP_PROBE_N (1u << 20)
#endif

/* A loop of n iterations that no compiler can shorten (it reads memory), which writes how
   many it ran. */
static const char probe_source[] =
    "__kernel void loop_probe(__global uint *out, __global const uint *in, uint n)\n"
    "{\n"
    "    uint i = 0, sum = 0;\n"
    "    for (; i < n; ++i)\n"
    "        sum += in[i & 7];\n"
    "    out[0] = i;\n"
    "    out[1] = sum;\n"
    "}\n";

/* Devices probed in this process, and what they measured: a sorter's creation probes
   once per device (a build costs that platform a tenth of a second). */
enum { PROBED_DEVICES = 16 };
typedef struct probe_result {
    cl_device_id device;
    cl_ulong budget;
} probe_result;
static probe_result probed[PROBED_DEVICES];
static unsigned probed_count;
static pthread_mutex_t probed_lock = PTHREAD_MUTEX_INITIALIZER;

static int probed_before(cl_device_id device, cl_ulong *budget)
{
    int found = 0;
    pthread_mutex_lock(&probed_lock);
    for (unsigned i = 0; i < probed_count && !found; ++i)
        if (probed[i].device == device) {
            *budget = probed[i].budget;
            found = 1;
        }
    pthread_mutex_unlock(&probed_lock);
    return found;
}

static void remember_probe(cl_device_id device, cl_ulong budget)
{
    pthread_mutex_lock(&probed_lock);
    if (probed_count < PROBED_DEVICES)
        probed[probed_count++] = (probe_result){ device, budget };
    pthread_mutex_unlock(&probed_lock);
}

clradix_status device_loop_budget(cl_context context, cl_device_id device, cl_ulong *budget)
{
    *budget = 0;
#ifdef CLRADIX_TESTING
    const cl_ulong forced = testing_loop_budget();
    if (forced) {
        *budget = forced;
        return CLRADIX_SUCCESS;
    }
#endif
    /* Mesa's OpenCL platforms compile through gallivm on llvmpipe: the probe tells whether
       this device is one (other drivers end no loop early, and are spared a build). */
    char platform[256];
    device_platform_name(device, platform, sizeof platform);
    if ((!strstr(platform, "rusticl") && !strstr(platform, "Clover")) || probed_before(device, budget))
        return CLRADIX_SUCCESS;
    const char *source = probe_source;
    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    cl_kernel kernel = NULL;
    cl_mem out = NULL, in = NULL;
    cl_command_queue queue = NULL;
    cl_uint result[2] = { 0, 0 };
    const cl_uint zeros[8] = { 0 }, n = CLRADIX_LOOP_PROBE_N;
    const size_t one = 1;
    if (err == CL_SUCCESS)
        err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err == CL_SUCCESS)
        kernel = clCreateKernel(program, "loop_probe", &err);
    if (err == CL_SUCCESS)
        out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof result, NULL, &err);
    if (err == CL_SUCCESS)
        in = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof zeros, (void *)zeros, &err);
    if (err == CL_SUCCESS)
        queue = clCreateCommandQueue(context, device, 0, &err);
    if (err == CL_SUCCESS)
        err = set_args(kernel, 3, ARG(out), ARG(in), ARG(n));
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL);
    if (queue)
        clReleaseCommandQueue(queue);
    if (in)
        clReleaseMemObject(in);
    if (out)
        clReleaseMemObject(out);
    if (kernel)
        clReleaseKernel(kernel);
    if (program)
        clReleaseProgram(program);
    if (err != CL_SUCCESS)
        return status_from_cl(err);
    *budget = result[0] < n ? result[0] : 0;
    remember_probe(device, *budget);
    return CLRADIX_SUCCESS;
}
