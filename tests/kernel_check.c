/*
 * Sorts that reach every kernel and variant at small sizes, for a run under oclgrind
 * (--data-races --uninitialized): both digit widths, keys, pairs of every value size,
 * argsort, 64-bit keys, descending order, bit ranges, skipped passes, several work-groups
 * and tiles, and the single-launch path. Every result is checked against the oracle.
 * oclgrind misreports memory at addresses that an earlier sort's buffers used, and starts
 * its --log file afresh for every new context, so tests/oclgrind-check.sh runs each case
 * in a process of its own: `kernel_check --count` prints how many cases there are,
 * `kernel_check I` runs case I. No Check here, so nothing forks. Exits 0 when every sort
 * was right; the caller reads the log.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct check_case {
    const char *shape;   /* CLRADIX_TUNING-style description, for the report */
    clradix_tuning tuning;
    clradix_key_type type;
    dist d;
    size_t n;
    sort_call call;
    clradix_options options;
} check_case;

/* Shapes: the device's own (clamped to oclgrind's 32 KiB of local memory), 4-bit digits
   without and with FUSED, GPU-like ranks in two rounds, 5-bit digits with uneven rounds. */
#define OWN { 0 }
#define RADIX4 { .radix_bits = 4, .work_group_size = 8, .keys_per_item = 8, .groups_per_unit = 3, .hist_copies = 2, \
                 .fused = 1, .small_n = 1 }
#define RADIX4_FUSED { .radix_bits = 4, .work_group_size = 8, .keys_per_item = 8, .groups_per_unit = 3, \
                       .hist_copies = 8, .fused = 2, .small_n = 1 }
#define GPU_LIKE { .radix_bits = 8, .work_group_size = 64, .keys_per_item = 4, .rank_bits = 4, .groups_per_unit = 2, \
                   .hist_copies = 4, .fused = 1, .small_n = 512 }
#define RADIX5 { .radix_bits = 5, .work_group_size = 4, .keys_per_item = 16, .rank_bits = 3, .groups_per_unit = 3, \
                 .hist_copies = 2, .fused = 2, .small_n = 1 }

static const check_case cases[] = {
    { "own", OWN, CLRADIX_U32, DIST_RANDOM, 3000, { API_DEVICE, SORT_KEYS, 0 }, { 0 } },
    { "own", OWN, CLRADIX_F32, DIST_RANDOM, 3000, { API_DEVICE, SORT_PAIRS, 4 }, { 0, 0, 1 } },
    { "radix4", RADIX4, CLRADIX_U32, DIST_RANDOM, 2500, { API_DEVICE, SORT_KEYS, 0 }, { 0 } },
    { "radix4", RADIX4, CLRADIX_I32, DIST_LOW_ENTROPY, 2500, { API_DEVICE, SORT_PAIRS, 8 }, { 0 } },
    { "radix4", RADIX4, CLRADIX_U64, DIST_RANDOM, 1500, { API_DEVICE, SORT_ARGSORT, 8 }, { 0 } },
    { "radix4-fused", RADIX4_FUSED, CLRADIX_U32, DIST_RANDOM, 2500, { API_DEVICE, SORT_PAIRS, 16 }, { 0 } },
    { "radix4-fused", RADIX4_FUSED, CLRADIX_F64, DIST_TOP_DIGIT, 1500, { API_DEVICE, SORT_KEYS, 0 }, { 4, 60, 1 } },
    { "gpu-like", GPU_LIKE, CLRADIX_U32, DIST_RANDOM, 3000, { API_DEVICE, SORT_KEYS, 0 }, { 0 } },
    { "gpu-like", GPU_LIKE, CLRADIX_I64, DIST_SIXTEEN, 2000, { API_DEVICE, SORT_PAIRS, 4 }, { 0 } },
    { "gpu-like", GPU_LIKE, CLRADIX_F32, DIST_RANDOM, 400, { API_DEVICE, SORT_PAIRS, 16 }, { 0 } },  /* one launch */
    { "gpu-like", GPU_LIKE, CLRADIX_U32, DIST_RANDOM, 300, { API_DEVICE, SORT_ARGSORT, 8 }, { 0, 0, 1 } },
    { "radix5", RADIX5, CLRADIX_U32, DIST_RANDOM, 2000, { API_DEVICE, SORT_PAIRS, 4 }, { 3, 29, 0 } },
    { "radix5", RADIX5, CLRADIX_U64, DIST_BOTTOM_DIGIT, 1200, { API_DEVICE, SORT_ARGSORT, 4 }, { 0 } },
    { "own", OWN, CLRADIX_U32, DIST_EQUAL, 2000, { API_DEVICE, SORT_PAIRS, 4 }, { 0 } },  /* every pass skipped */
    { "own", OWN, CLRADIX_U32, DIST_RANDOM, 1000, { API_DEVICE, SORT_KEYS, 0 }, { 8, 8, 0 } },  /* empty range */
};

/* With arguments, runs only the cases with those indices. */
int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--count")) {
        printf("%zu\n", sizeof cases / sizeof cases[0]);
        return 0;
    }
    cl_device_id device;
    char name[256] = "";
    cl_int err = CL_SUCCESS;
    if (clradix_device_find(NULL, &device) != CLRADIX_SUCCESS
        || clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS
        || !strstr(name, "Oclgrind")) {
        fprintf(stderr, "kernel_check: runs only under oclgrind (the device is %s)\n", name);
        return 1;
    }
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return 1;
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int chosen = argc == 1;
        for (int a = 1; a < argc; ++a)
            chosen |= (size_t)atoi(argv[a]) == i;
        if (!chosen)
            continue;
        const check_case *c = &cases[i];
        test_device t = { context, device, clCreateCommandQueue(context, device, 0, &err), NULL };
        clradix_status status = clradix_sorter_create_tuned(context, device, &c->tuning, &t.sorter);
        if (status != CLRADIX_SUCCESS || err != CL_SUCCESS) {
            fprintf(stderr, "kernel_check: case %zu: sorter: %s\n%s\n", i, clradix_status_string(status),
                    clradix_build_log(NULL));
            return 1;
        }
        char msg[256], call[64];
        const int wrong = sort_case(&t, &c->call, c->type, c->d, c->n, &c->options, 100 + i, msg, sizeof msg);
        fprintf(stderr, "kernel_check: case %zu: %s type %d %s n=%zu %s: %s\n", i, c->shape, c->type, dist_name(c->d),
                c->n, sort_call_name(&c->call, call, sizeof call), wrong ? msg : "ok");
        failed |= wrong;
        clradix_sorter_release(t.sorter);
        clReleaseCommandQueue(t.queue);
    }
    clReleaseContext(context);
    return failed;
}
