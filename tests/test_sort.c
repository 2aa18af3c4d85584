/*
 * Sorting on a real OpenCL device, checked against the qsort oracle: every size boundary,
 * distribution and key type, through every call (keys, pairs of 4, 8 and 16 bytes,
 * argsort; device buffers and host arrays), for several kernel shapes (tuning rows);
 * then a few large arrays. OpenCL objects are created in checked fixtures, after Check
 * has forked.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

/* Kernel shapes under test: the device's own row, and rows forced through tuning. */
typedef struct row {
    const char *name;
    clradix_tuning tuning;
} row;

static const row rows[] = {
    /* The device's own row (on CPUs: single-launch sorts up to 2^16, fused passes above). */
    { "default", { 0 } },
    { "radix4", { .radix_bits = 4 } },
    /* GPU-like: 256 work-items, 8-bit digits ranked in two 4-bit rounds, counting with
       atomics, a histogram kernel per pass, single-launch sorts up to 2048 keys. */
    { "gpu-like", { .radix_bits = 8, .work_group_size = 256, .keys_per_item = 8, .rank_bits = 4, .hist_copies = 2,
                    .fused = 1, .groups_per_unit = 4, .small_n = 2048 } },
    /* Odd pass counts (5-bit digits), uneven rank rounds, tiny tiles, many blocks, fused
       counting by several work-items, and no single-launch path. */
    { "radix5", { .radix_bits = 5, .work_group_size = 4, .keys_per_item = 16, .rank_bits = 3, .hist_copies = 2,
                  .fused = 2, .groups_per_unit = 3, .small_n = 1 } },
};
enum { ROW_COUNT = sizeof rows / sizeof rows[0] };

static size_t tile;  /* keys per tile of the row under test */

static void open_row(int r)
{
    open_dev(&rows[r].tuning);
    clradix_tuning used;
    ck_assert_int_eq(clradix_sorter_tuning(dev.sorter, &used), CLRADIX_SUCCESS);
    tile = (size_t)used.work_group_size * used.keys_per_item;
}

static void setup_row0(void) { open_row(0); }
static void setup_row1(void) { open_row(1); }
static void setup_row2(void) { open_row(2); }
static void setup_row3(void) { open_row(3); }
static void (*const row_setups[ROW_COUNT])(void) = { setup_row0, setup_row1, setup_row2, setup_row3 };

/* Sizes around every boundary, as tiles * (the row's tile) + plus. */
static const struct { size_t tiles; long plus; } sizes[] = {
    { 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 255 }, { 0, 256 }, { 0, 257 },
    { 1, -1 }, { 1, 0 }, { 1, 1 },
    { 0, 1000 }, { 0, 4097 }, { 0, 65537 }, { 0, 100003 },
    { 3, 7 },    /* several tiles per block, a partial last tile */
    { 17, -1 },  /* several blocks */
};
enum { SIZE_COUNT = sizeof sizes / sizeof sizes[0] };

static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32,
                                          CLRADIX_U64, CLRADIX_I64, CLRADIX_F64 };
enum { TYPE_COUNT = sizeof types / sizeof types[0] };

/* Every call; (type + distribution) picks one per case, so each type meets each call. */
static const sort_call calls[] = {
    { API_DEVICE, SORT_KEYS, 0 },    { API_DEVICE, SORT_PAIRS, 4 }, { API_HOST, SORT_PAIRS, 8 },
    { API_HOST, SORT_KEYS, 0 },      { API_DEVICE, SORT_PAIRS, 16 }, { API_DEVICE, SORT_ARGSORT, 4 },
    { API_HOST, SORT_ARGSORT, 8 },
};
enum { CALL_COUNT = sizeof calls / sizeof calls[0] };

/* One size: every key type and distribution. */
START_TEST(test_sizes)
{
    const size_t n = (size_t)((long)(sizes[_i].tiles * tile) + sizes[_i].plus);
    char msg[256], name[64];
    for (int t = 0; t < TYPE_COUNT; ++t)
        for (dist d = 0; d < DIST_COUNT; ++d) {
            const sort_call *call = &calls[(t + d) % CALL_COUNT];
            const int failed = sort_case(&dev, call, types[t], d, n, NULL, n * 131 + t * 17 + d, msg, sizeof msg);
            ck_assert_msg(!failed, "n=%zu type=%d dist=%s %s: %s", n, types[t], dist_name(d),
                          sort_call_name(call, name, sizeof name), msg);
        }
}
END_TEST

/* A few large arrays. */
START_TEST(test_large)
{
    static const struct { size_t n; clradix_key_type type; dist d; sort_call call; } cases[] = {
        { (size_t)1 << 22, CLRADIX_U32, DIST_RANDOM, { API_DEVICE, SORT_KEYS, 0 } },
        { ((size_t)1 << 22) - 3, CLRADIX_F32, DIST_RANDOM, { API_HOST, SORT_PAIRS, 4 } },
        { 3000017, CLRADIX_U32, DIST_LOW_ENTROPY, { API_DEVICE, SORT_PAIRS, 8 } },
        { 2500000, CLRADIX_I64, DIST_SIXTEEN, { API_DEVICE, SORT_PAIRS, 4 } },
        { 2000003, CLRADIX_F64, DIST_RANDOM, { API_DEVICE, SORT_ARGSORT, 4 } },
        { 1500000, CLRADIX_U64, DIST_TOP_DIGIT, { API_HOST, SORT_KEYS, 0 } },
    };
    char msg[256];
    const int failed = sort_case(&dev, &cases[_i].call, cases[_i].type, cases[_i].d, cases[_i].n, NULL, 1000 + _i,
                                 msg, sizeof msg);
    ck_assert_msg(!failed, "n=%zu type=%d dist=%s: %s", cases[_i].n, cases[_i].type, dist_name(cases[_i].d), msg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sort");
    for (int r = 0; r < ROW_COUNT; ++r) {
        static char names[ROW_COUNT][32];
        snprintf(names[r], sizeof names[r], "sizes-%s", rows[r].name);
        TCase *tc = tcase_create(names[r]);
        tcase_add_checked_fixture(tc, row_setups[r], close_dev);
        tcase_set_timeout(tc, 300);
        tcase_add_loop_test(tc, test_sizes, 0, SIZE_COUNT);
        if (r < 2)
            tcase_add_loop_test(tc, test_large, 0, 6);
        suite_add_tcase(s, tc);
    }
    return run_device_suite(s, "test_sort");
}
