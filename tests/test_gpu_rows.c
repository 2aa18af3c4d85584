/*
 * Every GPU row of the tuning table as a GPU runs it. The test build of the library forces
 * the limits of real GPUs onto POCL's CPU device (48 KiB of local memory with work-groups
 * of up to 1024, as NVIDIA's; 64 KiB with up to 256, as AMD's), so that each row is fitted
 * as it would be there, not to POCL's megabyte of local memory. For each row and limit:
 * 32-bit keys run the row's own shape (nothing shrunk); every program variant gets the
 * shape docs/tuning.md lists (clradix_testing_fit, tests/tuning_table.c) and its kernels use no
 * more local memory than the library estimated; and sorts of every key type, call and
 * size boundary match the oracle.
 */
#include "testing.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; size_t local_mem, max_wg; } limits[] = {
    { "48 KiB, 1024 work-items", 48 * 1024, 1024 },
    { "64 KiB, 256 work-items", 64 * 1024, 256 },
};
enum { LIMITS = sizeof limits / sizeof limits[0], MAX_ROWS = 16 };

/* The GPU rows of the table, each set of parameters once. */
static unsigned gpu_rows(clradix_tuning rows[MAX_ROWS], const char *names[MAX_ROWS])
{
    unsigned count = 0;
    clradix_tuning row;
    const char *devices;
    for (unsigned r = 0; clradix_tuning_row(r, &row, &devices) == CLRADIX_SUCCESS && count < MAX_ROWS; ++r) {
        int repeated = 0;
        for (unsigned e = 0; e < count; ++e)
            repeated |= !memcmp(&rows[e], &row, sizeof row);
        if (strstr(devices, "GPU") && !repeated) {
            rows[count] = row;
            names[count++] = devices;
        }
    }
    return count;
}

static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32,
                                          CLRADIX_U64, CLRADIX_I64, CLRADIX_F64 };
static const sort_call calls[] = {
    { API_DEVICE, SORT_KEYS, 0 },    { API_DEVICE, SORT_PAIRS, 4 },  { API_HOST, SORT_PAIRS, 8 },
    { API_HOST, SORT_KEYS, 0 },      { API_DEVICE, SORT_PAIRS, 16 }, { API_DEVICE, SORT_ARGSORT, 4 },
    { API_HOST, SORT_ARGSORT, 8 },
};
enum { TYPES = sizeof types / sizeof types[0], CALLS = sizeof calls / sizeof calls[0] };

/* Test _i: row _i / LIMITS under limits _i % LIMITS. */
START_TEST(test_gpu_row)
{
    clradix_tuning rows[MAX_ROWS];
    const char *names[MAX_ROWS];
    const unsigned count = gpu_rows(rows, names);
    const unsigned r = (unsigned)_i / LIMITS, l = (unsigned)_i % LIMITS;
    ck_assert_uint_lt(r, count);
    const clradix_tuning *row = &rows[r];
    clradix_testing_limits(limits[l].local_mem, limits[l].max_wg, 0, 0);
    setenv("CLRADIX_TUNING", "STRATEGY=1", 1);  /* flat sorts by LSD passes, as the GPU rows run them */
    open_dev(row);
    unsetenv("CLRADIX_TUNING");

    clradix_tuning used;
    ck_assert_int_eq(clradix_sorter_tuning(dev.sorter, &used), CLRADIX_SUCCESS);
    ck_assert_msg(!memcmp(&used, row, sizeof used), "%s under %s: 32-bit keys do not run the row's own shape (%u x %u)",
                  names[r], limits[l].name, used.work_group_size, used.keys_per_item);

    /* Every variant: the shape docs/tuning.md lists, within the estimated local memory. */
    static const unsigned value_sizes[] = { 0, 4, 8, 16 };
    cl_ulong most_local = 0;
    for (unsigned key_bytes = 4; key_bytes <= 8; key_bytes += 4)
        for (int v = 0; v < 4; ++v) {
            clradix_tuning shape, expected;
            unsigned digits = 0, expected_digits = 0;
            cl_ulong local = 0;
            size_t estimate = 0;
            ck_assert_int_eq(clradix_testing_fit(row, limits[l].local_mem, limits[l].max_wg, 1, key_bytes,
                                                 value_sizes[v], &expected, &expected_digits, &estimate),
                             CLRADIX_SUCCESS);
            ck_assert_int_eq(clradix_testing_variant(dev.sorter, key_bytes, value_sizes[v], &shape, &digits, &local),
                             CLRADIX_SUCCESS);
            ck_assert_msg(!memcmp(&shape, &expected, sizeof shape) && digits == expected_digits,
                          "%s under %s, %u-byte keys, %u-byte values: built %u x %u, docs/tuning.md lists %u x %u",
                          names[r],
                          limits[l].name, key_bytes, value_sizes[v], shape.work_group_size, shape.keys_per_item,
                          expected.work_group_size, expected.keys_per_item);
            ck_assert_msg(local <= estimate && local <= limits[l].local_mem,
                          "%s under %s, %u-byte keys, %u-byte values: kernels use %llu bytes, estimated %zu", names[r],
                          limits[l].name, key_bytes, value_sizes[v], (unsigned long long)local, estimate);
            most_local = local > most_local ? local : most_local;
        }

    /* Sorts around the row's tile and single-launch sizes, and across several blocks. */
    const size_t tile = (size_t)row->work_group_size * row->keys_per_item, small = row->small_n;
    const size_t sizes[] = { 1, 2, 255, 257, tile / 4 + 1, small, small + 1, tile - 1, tile + 1, 3 * tile + 7,
                             17 * tile - 1, 100003 };
    char msg[256], name[64];
    int sorts = 0;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; ++z)
        for (int t = 0; t < TYPES; ++t)
            for (dist d = 0; d < DIST_COUNT; d += 2) {
                const sort_call *call = &calls[(z + t + d) % CALLS];
                const int failed = sort_case(&dev, call, types[t], d, sizes[z], NULL, sizes[z] * 7 + t * 3 + d, msg,
                                             sizeof msg);
                ck_assert_msg(!failed, "%s under %s: n=%zu type=%d dist=%s %s: %s", names[r], limits[l].name, sizes[z],
                              types[t], dist_name(d), sort_call_name(call, name, sizeof name), msg);
                ++sorts;
            }
    printf("gpu rows: %s under %s: every variant as listed (kernels use up to %.1f KiB), %d sorts checked\n", names[r],
           limits[l].name, most_local / 1024.0, sorts);
    close_dev();
    clradix_testing_limits(0, 0, 0, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu_rows");
    TCase *tc = tcase_create("gpu_rows");
    tcase_set_timeout(tc, 600);
    clradix_tuning rows[MAX_ROWS];
    const char *names[MAX_ROWS];
    /* A repeat run (the sanitizer build's host code): the first row under the first limits. */
    tcase_add_loop_test(tc, test_gpu_row, 0, test_full_scope() ? (int)(gpu_rows(rows, names) * LIMITS) : 1);
    suite_add_tcase(s, tc);
    return run_device_suite(s, "test_gpu_rows");
}
