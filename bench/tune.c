/*
 * clradix-bench --tune: searches the kernel parameters for one device, key type, value
 * size and n by coordinate descent from the device's own table row (one parameter at a
 * time over a grid for the device class, keeping each improvement, until a sweep changes
 * nothing), verifying every candidate's result, and prints the best row.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

enum { FIELDS = sizeof(clradix_tuning) / sizeof(unsigned), MAX_VALUES = 8 };

typedef struct grid {
    const char *name[FIELDS];
    unsigned values[FIELDS][MAX_VALUES];  /* 0 ends a list */
} grid;

/* The values tried for each field, per device class: CPUs whose local memory is cached
   memory, and devices that run work-items as SIMD lanes (GPUs, and CPUs with little local
   memory such as Mesa's llvmpipe). */
static const grid cpu_grid = {
    { "RADIX_BITS", "WG", "KPT", "RANK_BITS", "GROUPS_PER_CU", "HIST_COPIES", "FUSED", "SMALL_N" },
    { { 4, 5, 6, 7, 8 }, { 1, 2, 4 }, { 4096, 16384, 32768, 65536 }, { 0 }, { 1, 2, 4 }, { 0 }, { 1, 2 }, { 0 } },
};
static const grid gpu_grid = {
    { "RADIX_BITS", "WG", "KPT", "RANK_BITS", "GROUPS_PER_CU", "HIST_COPIES", "FUSED", "SMALL_N" },
    { { 4, 6, 8 }, { 8, 16, 32, 64, 128, 256, 512 }, { 4, 8, 16, 32, 64, 128 }, { 2, 4, 8 }, { 1, 2, 4, 8, 16 },
      { 1, 2, 4, 8 }, { 0 }, { 0 } },
};

static unsigned *field(clradix_tuning *t, int f)
{
    return &t->radix_bits + f;
}

/* Median seconds of runs sorts with tuning t, or a negative value when t cannot run or
   gives a wrong result. */
static double measure(cl_context context, cl_device_id device, cl_command_queue queue, const clradix_tuning *t,
                      clradix_key_type type, size_t value_size, size_t n, const void *keys, const void *values,
                      input_digest digest, void *out_keys, void *out_values, int runs, clradix_tuning *used)
{
    clradix_sorter *sorter;
    if (clradix_sorter_create_tuned(context, device, t, &sorter) != CLRADIX_SUCCESS)
        return -1;
    clradix_sorter_tuning(sorter, used);
    cl_int err;
    const size_t key_bytes = n * type_bytes(type), value_bytes = n * value_size;
    cl_mem kb = clCreateBuffer(context, CL_MEM_READ_WRITE, key_bytes, NULL, &err);
    cl_mem vb = value_size ? clCreateBuffer(context, CL_MEM_READ_WRITE, value_bytes, NULL, &err) : NULL;
    double *times = malloc((size_t)runs * sizeof *times), result = -1;
    int ok = err == CL_SUCCESS;
    for (int run = -1; run < runs && ok; ++run) {  /* run -1 builds and warms up */
        clEnqueueWriteBuffer(queue, kb, CL_FALSE, 0, key_bytes, keys, 0, NULL, NULL);
        if (vb)
            clEnqueueWriteBuffer(queue, vb, CL_FALSE, 0, value_bytes, values, 0, NULL, NULL);
        clFinish(queue);
        const double t0 = seconds();
        clradix_status s = vb ? clradix_sort_pairs(sorter, queue, type, kb, vb, value_size, n, NULL, 0, NULL, NULL)
                              : clradix_sort_keys(sorter, queue, type, kb, n, NULL, 0, NULL, NULL);
        ok = s == CLRADIX_SUCCESS && clFinish(queue) == CL_SUCCESS;
        if (run >= 0)
            times[run] = seconds() - t0;
    }
    if (ok) {
        clEnqueueReadBuffer(queue, kb, CL_TRUE, 0, key_bytes, out_keys, 0, NULL, NULL);
        if (vb)
            clEnqueueReadBuffer(queue, vb, CL_TRUE, 0, value_bytes, out_values, 0, NULL, NULL);
        char why[160];
        if (verify_sort(type, keys, digest, out_keys, vb ? out_values : NULL, value_size, n, why, sizeof why)) {
            fprintf(stderr, "tune: WRONG RESULT with a candidate: %s\n", why);
            result = -2;
        } else {
            result = sort_times(times, runs);
        }
    }
    free(times);
    if (kb)
        clReleaseMemObject(kb);
    if (vb)
        clReleaseMemObject(vb);
    clradix_sorter_release(sorter);
    return result;
}

static void print_tuning(FILE *f, const char *prefix, const clradix_tuning *t, const grid *g)
{
    fprintf(f, "%s", prefix);
    for (int i = 0; i < FIELDS; ++i)
        fprintf(f, "%s%s=%u", i ? "," : "", g->name[i], *field((clradix_tuning *)t, i));
    fprintf(f, "\n");
}

int tune_device(cl_device_id device, clradix_key_type type, size_t value_size, size_t n, int runs)
{
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = err == CL_SUCCESS ? clCreateCommandQueue(context, device, 0, &err) : NULL;
    if (err != CL_SUCCESS) {
        fprintf(stderr, "tune: cannot create a context and queue (OpenCL error %d)\n", err);
        return 1;
    }
    cl_device_type kind = 0;
    cl_ulong local_mem = 0;
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof kind, &kind, NULL);
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
    const grid *g = kind & CL_DEVICE_TYPE_CPU && local_mem >= 128 * 1024 ? &cpu_grid : &gpu_grid;

    void *keys = malloc(n * type_bytes(type)), *out_keys = malloc(n * type_bytes(type));
    void *values = value_size ? malloc(n * value_size) : NULL, *out_values = value_size ? malloc(n * value_size) : NULL;
    make_keys(type, DIST_RANDOM, n, 7, keys);
    if (values)
        make_values(value_size, n, values);
    const input_digest digest = digest_keys(type, keys, n);

    /* Start from the row the library picks for this device. */
    clradix_tuning best = { 0 }, used;
    double best_time = measure(context, device, queue, &best, type, value_size, n, keys, values, digest, out_keys,
                               out_values, runs, &best);
    if (best_time < 0) {
        fprintf(stderr, "tune: the device's own row fails\n");
        return 1;
    }
    print_tuning(stderr, "tune: start ", &best, g);
    fprintf(stderr, "tune: %.2f ms, %.1f Mkeys/s\n", best_time * 1e3, n / best_time * 1e-6);
    int wrong = 0;
    for (int sweep = 0, improved = 1; improved && sweep < 4; ++sweep) {
        improved = 0;
        for (int f = 0; f < FIELDS; ++f)
            for (int v = 0; v < MAX_VALUES && g->values[f][v]; ++v) {
                clradix_tuning candidate = best;
                if (*field(&candidate, f) == g->values[f][v])
                    continue;
                *field(&candidate, f) = g->values[f][v];
                if (f == 0 && candidate.rank_bits > candidate.radix_bits)
                    candidate.rank_bits = candidate.radix_bits;
                if (candidate.hist_copies > candidate.work_group_size)
                    candidate.hist_copies = candidate.work_group_size;
                const double t = measure(context, device, queue, &candidate, type, value_size, n, keys, values, digest,
                                         out_keys, out_values, runs, &used);
                wrong |= t == -2;
                if (t > 0)
                    fprintf(stderr, "tune: %s=%u: %.2f ms, %.1f Mkeys/s\n", g->name[f], g->values[f][v], t * 1e3,
                            n / t * 1e-6);
                else
                    fprintf(stderr, "tune: %s=%u: %s\n", g->name[f], g->values[f][v],
                            t == -2 ? "WRONG RESULT" : "cannot run");
                if (t > 0 && t < best_time * 0.98) {  /* 2 %: below the noise, not an improvement */
                    best_time = t;
                    best = used;
                    improved = 1;
                }
            }
    }
    char device_name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
    printf("best for %s, %s%s, n=%zu: %.2f ms, %.1f Mkeys/s\n", device_name, type_name(type),
           value_size ? (value_size == 4 ? " + 4-byte values" : value_size == 8 ? " + 8-byte values" : " + 16-byte values")
                      : "",
           n, best_time * 1e3, n / best_time * 1e-6);
    print_tuning(stdout, "CLRADIX_TUNING=", &best, g);
    printf("table row: { %u, %u, %u, %u, %u, %u, %u, %u }\n", best.radix_bits, best.work_group_size, best.keys_per_item,
           best.rank_bits, best.groups_per_unit, best.hist_copies, best.fused, best.small_n);
    free(keys);
    free(out_keys);
    free(values);
    free(out_values);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return wrong;
}
