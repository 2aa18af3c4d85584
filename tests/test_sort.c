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
#include <string.h>

/* Kernel shapes under test: the device's own (row 0, every call), the rows of the built-in
   table for other devices than GPUs (test_gpu_rows runs those at a GPU's limits) and than
   the device itself, then these, which reach paths the table does not. */
typedef struct row {
    const char *name;
    clradix_tuning tuning;
    const char *environment;  /* CLRADIX_TUNING while the sorter is made, or NULL */
} row;

/* These reach LSD paths: by LSD passes (test_segments runs the engine at odd shapes). */
static const row extra_rows[] = {
    { "radix4", { .radix_bits = 4 }, "STRATEGY=1" },
    /* Odd pass counts (5-bit digits), uneven rank rounds, tiny tiles, many blocks, fused
       counting by several work-items, and no single-launch path. */
    { "radix5", { .radix_bits = 5, .work_group_size = 4, .keys_per_item = 16, .rank_bits = 3, .hist_copies = 2,
                  .fused = 2, .groups_per_unit = 3, .small_n = 1 }, "STRATEGY=1" },
};
enum { EXTRA_ROWS = sizeof extra_rows / sizeof extra_rows[0], MAX_ROWS = 32 };

/* The rows in test order; the count. With CLRADIX_TEST_ROWS=gpu (a vendor's driver, as
   ctest runs Intel's CPU runtime, and Mesa's llvmpipe, which runs work-items as GPUs do):
   the device's own and the table's first GPU row with its strategy (LSD passes), at the
   device's own limits (on llvmpipe every GPU row fits to the same 32 x 8). */
static int rows_under_test(row rows[MAX_ROWS])
{
    int count = 0;
    rows[count++] = (row){ "the device's own", { 0 }, NULL };
    clradix_tuning t;
    const char *devices;
    const char *only = getenv("CLRADIX_TEST_ROWS");
    if (only && !strcmp(only, "gpu")) {
        for (unsigned r = 0; clradix_tuning_row(r, &t, &devices) == CLRADIX_SUCCESS && count < 2; ++r)
            if (strstr(devices, "GPU"))
                rows[count++] = (row){ devices, t, "STRATEGY=1" };
        return count;
    }
    /* POCL's devices (POCL_DEVICES set, as ctest sets it) are CPUs: their own row is the CPU row. */
    const int on_cpu = getenv("POCL_DEVICES") != NULL;
    for (unsigned r = 0; clradix_tuning_row(r, &t, &devices) == CLRADIX_SUCCESS && count < MAX_ROWS; ++r) {
        int repeated = 0;
        for (int e = 0; e < count; ++e)
            repeated |= !memcmp(&rows[e].tuning, &t, sizeof t);
        if (!strstr(devices, "GPU") && !(on_cpu && strstr(devices, "CPU")) && !repeated)
            rows[count++] = (row){ devices, t, NULL };
    }
    for (int e = 0; e < EXTRA_ROWS && count < MAX_ROWS; ++e)
        rows[count++] = extra_rows[e];
    return count;
}

/* The rows a run covers: in a repeat run, the device's own alone (with CLRADIX_TEST_ROWS,
   the rows it names). */
static int row_count(void)
{
    row rows[MAX_ROWS];
    const int count = rows_under_test(rows);
    return test_full_scope() || getenv("CLRADIX_TEST_ROWS") ? count : 1;
}

/* Row r. */
static row row_at(int r)
{
    row rows[MAX_ROWS];
    rows_under_test(rows);
    return rows[r];
}

static size_t tile;  /* keys per tile of the row under test */

/* Opens the sorter of row r in the test body (after Check's fork). */
static void open_row(int r, const char **name)
{
    const row chosen = row_at(r);
    *name = chosen.name;
    open_dev_tuned(&chosen.tuning, chosen.environment);
    clradix_tuning used;
    ck_assert_int_eq(clradix_sorter_tuning(dev.sorter, &used), CLRADIX_SUCCESS);
    tile = (size_t)used.work_group_size * used.keys_per_item;
}

/* Sizes around every boundary, as tiles * (the row's tile) + plus. */
static const struct { size_t tiles; long plus; } sizes[] = {
    { 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 255 }, { 0, 256 }, { 0, 257 },
    { 1, -1 }, { 1, 0 }, { 1, 1 },
    { 0, 1000 }, { 0, 4097 }, { 0, 65537 }, { 0, 100003 },
    { 3, 7 },    /* several tiles per block, a partial last tile */
    { 17, -1 },  /* several blocks (rows with large tiles have them at 3 tiles already) */
};
enum { LARGEST_TILED = 1 << 18 };  /* tile multiples above this are cut to it */
enum { SIZE_COUNT = sizeof sizes / sizeof sizes[0] };

static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_U64, CLRADIX_I64,
                                          CLRADIX_F64, CLRADIX_U8,  CLRADIX_I8,  CLRADIX_U16, CLRADIX_I16,
                                          CLRADIX_F16, CLRADIX_BF16 };
enum { TYPE_COUNT = sizeof types / sizeof types[0], WIDE_TYPES = 6 };  /* 8- and 16-bit keys: the own row's */

/* Every call; (type + distribution) picks one per case, so each type meets each call. */
static const sort_call calls[] = {
    { API_DEVICE, SORT_KEYS, 0 },    { API_DEVICE, SORT_PAIRS, 4 }, { API_HOST, SORT_PAIRS, 8 },
    { API_HOST, SORT_KEYS, 0 },      { API_DEVICE, SORT_PAIRS, 16 }, { API_DEVICE, SORT_ARGSORT, 4 },
    { API_HOST, SORT_ARGSORT, 8 },
};
enum { CALL_COUNT = sizeof calls / sizeof calls[0] };

/* The other rows: calls that need only the keys-only and 4-byte-value programs, since
   each program costs seconds to compile on a machine without cached builds. */
static const sort_call row_calls[] = {
    { API_DEVICE, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 4 }, { API_DEVICE, SORT_ARGSORT, 4 }, { API_HOST, SORT_KEYS, 0 },
};
enum { ROW_CALL_COUNT = sizeof row_calls / sizeof row_calls[0] };

/* One row and one size: every key type and distribution; every call with the device's
   own row (a repeat run: keys and 4-byte values), a subset with the others, whose 8- and 16-bit keys the oclgrind job and
   test_segments's shapes cover (each program variant costs seconds on a cold machine). */
START_TEST(test_sizes)
{
    const int r = _i / SIZE_COUNT;
    const char *row_name;
    open_row(r, &row_name);
    size_t n = (size_t)((long)(sizes[_i % SIZE_COUNT].tiles * tile) + sizes[_i % SIZE_COUNT].plus);
    if (sizes[_i % SIZE_COUNT].tiles > 1 && n > LARGEST_TILED)
        n = LARGEST_TILED - 1;  /* rows with large tiles: still several tiles, and test_large goes further */
    char msg[256], name[64];
    /* The device's own row every distribution; the other rows, which are there for their
       kernel shapes, and a repeat run: random, equal, low-entropy. */
    const int dist_step = test_full_scope() && r == 0 ? 1 : 3;
    for (int t = 0; t < (r == 0 ? TYPE_COUNT : WIDE_TYPES); ++t)
        for (dist d = 0; d < DIST_COUNT; d += dist_step) {
            const sort_call *call = r == 0 && test_full_scope() ? &calls[(t + d) % CALL_COUNT]
                                                                : &row_calls[(t + d) % ROW_CALL_COUNT];
            const int failed = sort_case(&dev, call, types[t], d, n, NULL, n * 131 + t * 17 + d, msg, sizeof msg);
            ck_assert_msg(!failed, "row %s n=%zu type=%d dist=%s %s: %s", row_name, n, types[t], dist_name(d),
                          sort_call_name(call, name, sizeof name), msg);
        }
    close_dev();
}
END_TEST

/* A few large arrays, with the device's own row. */
static void open_default(void) { open_dev(NULL); }

START_TEST(test_large)
{
    if (!test_full_scope() && _i % 2)
        return;  /* a repeat run: 32-, 64- and 16-bit keys, keys, pairs and argsort, in half the cases */
    static const struct { size_t n; clradix_key_type type; dist d; sort_call call; } cases[] = {
        { (size_t)1 << 22, CLRADIX_U32, DIST_RANDOM, { API_DEVICE, SORT_KEYS, 0 } },
        { ((size_t)1 << 22) - 3, CLRADIX_F32, DIST_RANDOM, { API_HOST, SORT_PAIRS, 4 } },
        { 3000017, CLRADIX_U32, DIST_LOW_ENTROPY, { API_DEVICE, SORT_PAIRS, 8 } },
        { 2500000, CLRADIX_I64, DIST_SIXTEEN, { API_DEVICE, SORT_PAIRS, 4 } },
        { 2000003, CLRADIX_F64, DIST_RANDOM, { API_DEVICE, SORT_ARGSORT, 4 } },
        { 1500000, CLRADIX_U64, DIST_TOP_DIGIT, { API_HOST, SORT_KEYS, 0 } },
        { ((size_t)1 << 22) + 5, CLRADIX_U16, DIST_RANDOM, { API_DEVICE, SORT_KEYS, 0 } },
        { 3000001, CLRADIX_I8, DIST_RANDOM, { API_HOST, SORT_PAIRS, 4 } },
        { 2000001, CLRADIX_F16, DIST_LOW_ENTROPY, { API_DEVICE, SORT_ARGSORT, 8 } },
        { 1500001, CLRADIX_BF16, DIST_RANDOM, { API_DEVICE, SORT_PAIRS, 16 } },
    };
    char msg[256];
    const int failed = sort_case(&dev, &cases[_i].call, cases[_i].type, cases[_i].d, cases[_i].n, NULL, 1000 + _i,
                                 msg, sizeof msg);
    ck_assert_msg(!failed, "n=%zu type=%d dist=%s: %s", cases[_i].n, cases[_i].type, dist_name(cases[_i].d), msg);
}
END_TEST

/* Keys whose digits step through the radix in lock step (IDs, counters), which the passes of
   one work-item write a line at a time: keys, pairs and argsort, both directions, jobs
   finished in local memory and medium ones in global memory (64-bit keys and 16-byte
   values have shorter lines). */
START_TEST(test_lockstep)
{
    static const struct { size_t n; clradix_key_type type; clradix_options options; sort_call call; } cases[] = {
        { (size_t)1 << 20, CLRADIX_U32, { 0 }, { API_DEVICE, SORT_KEYS, 0 } },
        { 3000017, CLRADIX_U32, { 0 }, { API_DEVICE, SORT_PAIRS, 4 } },
        { 2000003, CLRADIX_I32, { 0, 0, 1 }, { API_HOST, SORT_PAIRS, 8 } },
        { (size_t)1 << 21, CLRADIX_U64, { 0 }, { API_DEVICE, SORT_KEYS, 0 } },
        { 1500001, CLRADIX_I64, { 0 }, { API_DEVICE, SORT_PAIRS, 16 } },
        { 1200007, CLRADIX_F32, { 0 }, { API_DEVICE, SORT_ARGSORT, 4 } },
        { 1000003, CLRADIX_U32, { 0 }, { API_DEVICE, SORT_PAIRS, 16 } },
        { 1100009, CLRADIX_U16, { 0 }, { API_DEVICE, SORT_PAIRS, 4 } },
    };
    char msg[256];
    const int failed = sort_case(&dev, &cases[_i].call, cases[_i].type, DIST_SEQUENTIAL, cases[_i].n,
                                 &cases[_i].options, 70 + _i, msg, sizeof msg);
    ck_assert_msg(!failed, "n=%zu type=%d descending=%d: %s", cases[_i].n, cases[_i].type,
                  cases[_i].options.descending, msg);
}
END_TEST

/* Bit ranges and keys whose top varying bit lies off a digit boundary counted from
   begin_bit, with 16-byte values (medium jobs of the partition engine, whose digits end at
   the job's top bit: their counts and moves once disagreed there), through both APIs. */
START_TEST(test_unaligned_digits)
{
    static const struct { clradix_key_type type; dist d; clradix_options options; sort_call call; } cases[] = {
        { CLRADIX_U32, DIST_LOW_ENTROPY, { 3, 30, 0 }, { API_DEVICE, SORT_PAIRS, 16 } },
        { CLRADIX_U64, DIST_LOW_ENTROPY, { 5, 50, 0 }, { API_HOST, SORT_PAIRS, 16 } },
        { CLRADIX_U64, DIST_LOW_ENTROPY, { 5, 0, 1 }, { API_DEVICE, SORT_PAIRS, 16 } },
        { CLRADIX_U32, DIST_UNIT, { 0 }, { API_DEVICE, SORT_PAIRS, 16 } },
    };
    char msg[256];
    const int failed = sort_case(&dev, &cases[_i].call, cases[_i].type, cases[_i].d, 200003, &cases[_i].options,
                                 60, msg, sizeof msg);
    ck_assert_msg(!failed, "type=%d dist=%s bits [%u, %u): %s", cases[_i].type, dist_name(cases[_i].d),
                  cases[_i].options.begin_bit, cases[_i].options.end_bit, msg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sort");
    TCase *rows = tcase_create("rows");  /* every row x every size; the test opens its sorter */
    tcase_set_timeout(rows, 300);
    tcase_add_loop_test(rows, test_sizes, 0, row_count() * SIZE_COUNT);
    suite_add_tcase(s, rows);

    TCase *large = tcase_create("large");
    tcase_add_checked_fixture(large, open_default, close_dev);
    tcase_set_timeout(large, 300);
    tcase_add_loop_test(large, test_large, 0, 10);  /* (a repeat run: every other one) */
    tcase_add_loop_test(large, test_unaligned_digits, 0, 4);
    tcase_add_loop_test(large, test_lockstep, 0, 8);
    suite_add_tcase(s, large);
    return run_device_suite(s, "test_sort");
}
