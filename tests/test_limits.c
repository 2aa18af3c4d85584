/*
 * Devices smaller than the ones the tests run on, faked by the test build: local memory of
 * 16, 32 or 64 KiB, kernels whose own work-group limit (CL_KERNEL_WORK_GROUP_SIZE) is 32,
 * 64 or 256 work-items, and loops that stop after so many iterations per work-item (a loop
 * budget, as Mesa's llvmpipe has; loops.c). Under each, a GPU row fitted to those limits
 * as a GPU with them would fit it (the table's first GPU row, 256 x 8, or a caller's row of
 * 1024 work-items where the kernels' limit is 256): every key type and every call (keys,
 * pairs of every value size, argsort, device buffers and host arrays, segments, top-k flat
 * and by rows) sorts right against the oracle, past the single-launch size and over
 * several tiles and blocks. Each limit is faked on a device that has more:
 * CLRADIX_TEST_LIMITS names the configuration a run covers (16k, 32k, 64k on POCL; simd,
 * the loop budget, on Mesa's llvmpipe: 32 KiB, kernels of 32, work-items in SIMD lanes;
 * its kernels report twice the local memory they declare, so less faked there would be
 * less than it says); unset, every one. (48 KiB and 64 KiB with work-groups of 256 at
 * most are test_gpu_rows's; llvmpipe's own 32 KiB and kernels of 32 run every suite in
 * the rusticl runs.)
 */
#include "testing.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct limits {
    const char *id, *name;
    size_t local_mem, kernel_wg;
    unsigned row_wg;            /* 0: the first GPU row's work-group size; else this one, as a caller asks */
    unsigned long loop_budget;  /* 0: the device's own */
    int simd;                   /* run on llvmpipe rather than POCL */
} limits;

/* Each limit once at least, each on its own run (one per ctest test, so that they share the
   cores); the budget small enough that work-groups take a few tiles, a block or a few jobs
   each, and copies go in pieces. */
static const limits configurations[] = {
    { "16k", "16 KiB, kernels of 32 work-items", 16 * 1024, 32, 0, 0, 0 },
    { "32k", "32 KiB, kernels of 64 work-items", 32 * 1024, 64, 0, 0, 0 },
    { "64k", "64 KiB, kernels of 256 work-items, a row of 1024", 64 * 1024, 256, 1024, 0, 0 },
    { "simd", "32 KiB, kernels of 32 work-items, loops of 24000 iterations", 32 * 1024, 32, 0, 24000, 1 },
};
enum { CONFIGURATIONS = sizeof configurations / sizeof configurations[0] };

/* The configurations this run covers (CLRADIX_TEST_LIMITS); their count. */
static int chosen_configurations(const limits *chosen[CONFIGURATIONS])
{
    const char *which = getenv("CLRADIX_TEST_LIMITS");
    int count = 0;
    for (int c = 0; c < CONFIGURATIONS; ++c)
        if (!which || !strcmp(which, configurations[c].id))
            chosen[count++] = &configurations[c];
    return count;
}

/* Every type with a flat call, every call with a type: one value size per key width, so
   that each shape compiles one program per width (each costs POCL seconds). */
static const struct { clradix_key_type type; sort_call call; } flat[] = {
    { CLRADIX_U32, { API_DEVICE, SORT_KEYS, 0 } },        { CLRADIX_I32, { API_HOST, SORT_KEYS, 0 } },
    { CLRADIX_F32, { API_DEVICE, SORT_KEYS, 0 } },        { CLRADIX_U64, { API_HOST, SORT_PAIRS, 4 } },
    { CLRADIX_I64, { API_DEVICE, SORT_ARGSORT, 4 } },     { CLRADIX_F64, { API_DEVICE, SORT_PAIRS, 4 } },
    { CLRADIX_U8, { API_DEVICE, SORT_PAIRS, 8 } },        { CLRADIX_I8, { API_HOST, SORT_ARGSORT, 8 } },
    { CLRADIX_U16, { API_DEVICE, SORT_PAIRS, 16 } },      { CLRADIX_I16, { API_HOST, SORT_PAIRS, 16 } },
    { CLRADIX_F16, { API_DEVICE, SORT_PAIRS, 16 } },      { CLRADIX_BF16, { API_HOST, SORT_PAIRS, 16 } },
    { CLRADIX_F32_NUMPY, { API_DEVICE, SORT_KEYS, 0 } },  { CLRADIX_F64_NUMPY, { API_DEVICE, SORT_PAIRS, 4 } },
    { CLRADIX_F16_NUMPY, { API_DEVICE, SORT_ARGSORT, 8 } }, { CLRADIX_BF16_NUMPY, { API_HOST, SORT_PAIRS, 8 } },
};
enum { FLAT = sizeof flat / sizeof flat[0] };

/* Segments of every class of the engine. */
static const size_t lengths[] = { 0, 1, 9, 40, 300, 1100, 5000, 2, 23000 };
enum { SEGMENTS = sizeof lengths / sizeof lengths[0] };

/* Test _i: the run's configuration _i. */
START_TEST(test_limits)
{
    const limits *chosen[CONFIGURATIONS];
    ck_assert_int_lt(_i, chosen_configurations(chosen));
    const limits *l = chosen[_i];
    clradix_tuning row = { 0 };
    const char *devices = "";
    for (unsigned r = 0; clradix_tuning_row(r, &row, &devices) == CLRADIX_SUCCESS; ++r)
        if (strstr(devices, "GPU"))
            break;
    if (l->row_wg)
        row.work_group_size = l->row_wg;
    clradix_testing_limits(l->local_mem, 0, 0, 0);
    clradix_testing_traits traits = { 0 };
    traits.kernel_work_group = l->kernel_wg;
    traits.loop_budget = l->loop_budget;
    clradix_testing_set_traits(&traits);
    setenv("CLRADIX_TUNING", "STRATEGY=1", 1);  /* flat sorts by LSD passes, as the GPU rows run them */
    open_dev(&row);
    unsetenv("CLRADIX_TUNING");
    clradix_tuning used;
    ck_assert_int_eq(clradix_sorter_tuning(dev.sorter, &used), CLRADIX_SUCCESS);
    ck_assert_uint_le(used.work_group_size, l->kernel_wg);
    const size_t tile = (size_t)used.work_group_size * used.keys_per_item;

    char msg[256], name[64];
    int calls_checked = 0;
    for (int t = 0; t < FLAT; ++t) {
        /* Past the single-launch size, over several tiles and blocks. */
        const sort_call *call = &flat[t].call;
        const size_t n = t % 2 ? 17 * tile + 5 : 70001;
        const clradix_options options = { 0, 0, t % 3 == 0 };
        const dist d = (dist)(t % DIST_COUNT);
        const int failed = sort_case(&dev, call, flat[t].type, d, n, &options, n + t, msg, sizeof msg);
        ck_assert_msg(!failed, "%s: n=%zu type=%d dist=%s %s: %s", l->name, n, flat[t].type, dist_name(d),
                      sort_call_name(call, name, sizeof name), msg);
        ++calls_checked;
    }
    /* Segments through keys, pairs and argsort (sixteen values: buckets that are done
       after a partition, copied back in pieces under a budget); top-k flat and by rows. */
    static const sort_call segment_calls[] = { { API_DEVICE, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 4 },
                                               { API_DEVICE, SORT_ARGSORT, 4 } };
    for (int c = 0; c < 3; ++c) {
        const sort_call *call = &segment_calls[c];
        const clradix_key_type type = c == 1 ? CLRADIX_U64 : CLRADIX_U32;
        const int failed = segments_case(&dev, call, type, c ? DIST_SIXTEEN : DIST_RANDOM, lengths, SEGMENTS, 3, 2,
                                         NULL, 7 + c, NULL, msg, sizeof msg);
        ck_assert_msg(!failed, "%s: segments of type %d %s: %s", l->name, type, sort_call_name(call, name, sizeof name),
                      msg);
        ++calls_checked;
    }
    int failed = topk_case(&dev, CLRADIX_U32, DIST_RANDOM, 1, 70001, 300, 0, 4, 0, NULL, 1, msg, sizeof msg);
    ck_assert_msg(!failed, "%s: top-k: %s", l->name, msg);
    failed = topk_case(&dev, CLRADIX_U32, DIST_SIXTEEN, 37, 900, 7, 1, 8, 0, NULL, 2, msg, sizeof msg);
    ck_assert_msg(!failed, "%s: top-k by rows: %s", l->name, msg);
    calls_checked += 2;
    printf("limits: %s: %s as %u x %u, %d calls checked\n", l->name, devices, used.work_group_size,
           used.keys_per_item, calls_checked);
    close_dev();
    clradix_testing_set_traits(NULL);
    clradix_testing_limits(0, 0, 0, 0);
}
END_TEST

/* Less local memory than the library supports (an embedded-profile device may have
   1 KiB): refused when the sorter is created, whatever the shape asked for. */
START_TEST(test_too_little_local_memory)
{
    clradix_testing_limits(16 * 1024 - 1, 0, 0, 0);
    clradix_sorter *sorter = NULL;
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_ERROR_UNSUPPORTED);
    const clradix_tuning small = { 4, 1, 1, 1, 1, 1, 1, 1 };
    ck_assert_int_eq(clradix_sorter_create_tuned(NULL, NULL, &small, &sorter), CLRADIX_ERROR_UNSUPPORTED);
    ck_assert_ptr_null(sorter);
    clradix_testing_limits(16 * 1024, 0, 0, 0);
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_SUCCESS);
    clradix_sorter_release(sorter);
    clradix_testing_limits(0, 0, 0, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("limits");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_too_little_local_memory);
    /* A repeat run (the sanitizer build's host code): the first configuration. */
    const limits *chosen[CONFIGURATIONS];
    const int count = chosen_configurations(chosen);
    tcase_add_loop_test(tc, test_limits, 0, test_full_scope() || count == 0 ? count : 1);
    suite_add_tcase(s, tc);
    return run_device_suite(s, "test_limits");
}
