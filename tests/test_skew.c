/*
 * Skewed keys against the qsort oracle, through the engine's splits by value (cl/segments.cl:
 * seg_sample and the buckets it makes, on rows of one work-item): keys of low entropy,
 * normal and unit floats with NaNs and -0.0 in numpy's order, two values, every key equal
 * but a few, the smallest and the largest key repeated (buckets of their own at the
 * ends), a sample that misleads (every key it did not see in one bucket, split by digit
 * next, and buckets left with bits after the last level), runs of skewed and random keys;
 * flat sorts and segments, every call, both
 * directions and bit ranges, on the lowered thresholds of test_segments (so that small
 * arrays are large jobs, and each level samples) and on the device's own; and top-k over
 * skewed keys. Random keys split by digit as before: test_sort and test_segments.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The own shape with the classes' thresholds of test_segments (the same programs). */
static void open_lowered(void)
{
    open_dev_tuned(NULL, "SMALL_N=64,MEDIUM_N=512");
}

static const dist skewed[] = { DIST_LOW_ENTROPY, DIST_NORMAL, DIST_UNIT_NAN, DIST_TWO, DIST_ALL_BUT_FEW,
                               DIST_ENDS,        DIST_MISLEAD, DIST_MIXED,   DIST_SIXTEEN };
static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_F32_NUMPY,
                                          CLRADIX_U64, CLRADIX_I64, CLRADIX_F64, CLRADIX_F64_NUMPY };
static const sort_call calls[] = { { API_DEVICE, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 4 },
                                   { API_DEVICE, SORT_ARGSORT, 4 }, { API_DEVICE, SORT_PAIRS, 16 } };
enum {
    SKEWED = sizeof skewed / sizeof skewed[0],
    TYPES = sizeof types / sizeof types[0],
    CALLS = sizeof calls / sizeof calls[0]
};

/* Test _i: a type, every skewed distribution through every call as one flat sort of 20000
   keys (a large job under MEDIUM_N = 512, and its buckets too), in turn ascending,
   descending, a bit range and a descending bit range. */
START_TEST(test_flat)
{
    const clradix_key_type type = types[_i];
    const unsigned width = 8 * key_bytes_of(type);
    const clradix_options options[] = { { 0 }, { 0, 0, 1 }, { 3, width - 2, 0 }, { width / 4, width, 1 } };
    open_lowered();
    char msg[300], name[64];
    for (int d = 0; d < SKEWED; ++d)
        for (int c = 0; c < CALLS; ++c) {
            const clradix_options *o = &options[(d + c) % 4];
            ck_assert_msg(!sort_case(&dev, &calls[c], type, skewed[d], 20000, o, 1000 * _i + 10 * d + c, msg,
                                     sizeof msg),
                          "type %d, %s, %s, bits %u..%u%s: %s", type, dist_name(skewed[d]),
                          sort_call_name(&calls[c], name, sizeof name), o->begin_bit, o->end_bit,
                          o->descending ? " descending" : "", msg);
        }
    close_dev();
}
END_TEST

/* A sample that misleads a sort of the top 24 bits (three partition levels): the bucket it
   misjudged is split by digit at the next two levels, and its buckets are left with bits
   to sort after the last level: the medium class sorts them whole. */
START_TEST(test_levels_run_out)
{
    open_lowered();
    char msg[300];
    const clradix_key_type type = _i ? CLRADIX_U64 : CLRADIX_U32;
    const unsigned width = 8 * key_bytes_of(type);
    const clradix_options options = { width - 24, width, 0 };
    ck_assert_msg(!sort_case(&dev, &calls[0], type, DIST_MISLEAD, 20000, &options, 130 + _i, msg, sizeof msg),
                  "type %d, mislead, bits %u..%u: %s", type, width - 24, width, msg);
    close_dev();
}
END_TEST

/* Segments that mix skewed and random keys, at the lowered thresholds (every class) and at
   the device's own (large segments partitioned by value beside random ones). */
START_TEST(test_segments)
{
    static const size_t lowered[] = { 0, 1, 17, 65, 300, 513, 3000, 9000, 20000, 7, 0, 4100 };
    static const size_t own[] = { 3, 300001, 0, 140000, 70000, 12, 2048, 1, 400000, 9000 };
    char msg[300], name[64];
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 0)
            open_lowered();
        else
            open_dev(NULL);
        const size_t *lengths = pass ? own : lowered;
        const size_t count = pass ? sizeof own / sizeof own[0] : sizeof lowered / sizeof lowered[0];
        for (int c = 0; c < 3; ++c) {
            const clradix_key_type type = c == 1 ? CLRADIX_F32_NUMPY : c == 2 ? CLRADIX_U64 : CLRADIX_U32;
            const dist d = c == 1 ? DIST_UNIT_NAN : DIST_MIXED;
            const clradix_options options = { 0, 0, c == 2 };
            ck_assert_msg(!segments_case(&dev, &calls[c], type, d, lengths, count, 3, 2, &options, 70 + 10 * pass + c,
                                         NULL, msg, sizeof msg),
                          "%s thresholds, type %d, %s, %s: %s", pass ? "own" : "lowered", type, dist_name(d),
                          sort_call_name(&calls[c], name, sizeof name), msg);
        }
        close_dev();
    }
}
END_TEST

/* The device's own thresholds: a million keys of each skewed distribution, as a flat sort
   partitioned by value at the real sample and table sizes. */
START_TEST(test_own_thresholds)
{
    open_dev(NULL);
    char msg[300], name[64];
    const clradix_key_type type = _i % 2 ? CLRADIX_U64 : CLRADIX_F32_NUMPY;
    const dist d = skewed[_i];
    const sort_call *call = &calls[_i % 3];
    const clradix_options options = { 0, 0, _i % 4 == 3 };
    ck_assert_msg(!sort_case(&dev, call, d == DIST_MISLEAD ? CLRADIX_U32 : type, d, 1000000, &options, 90 + _i, msg,
                             sizeof msg),
                  "own thresholds, %s, %s: %s", dist_name(d), sort_call_name(call, name, sizeof name), msg);
    close_dev();
}
END_TEST

/* Top-k over skewed keys: flat and per row, the k smallest of low-entropy keys and of keys
   at the ends. */
START_TEST(test_topk)
{
    open_dev(NULL);
    char msg[300];
    static const dist dists[] = { DIST_LOW_ENTROPY, DIST_ENDS, DIST_NORMAL };
    for (int d = 0; d < 3; ++d) {
        ck_assert_msg(!topk_case(&dev, CLRADIX_U32, dists[d], 1, 300000, 1000, 0, 4, 0, NULL, 110 + d, msg, sizeof msg),
                      "top-k of %s: %s", dist_name(dists[d]), msg);
        ck_assert_msg(!topk_case(&dev, CLRADIX_F32_NUMPY, dists[d], 64, 4096, 100, 1, 4, 0, NULL, 120 + d, msg,
                                 sizeof msg),
                      "top-k rows of %s: %s", dist_name(dists[d]), msg);
    }
    close_dev();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("skew");
    TCase *tc = tcase_create("skew");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_flat, 0, TYPES);
    tcase_add_loop_test(tc, test_levels_run_out, 0, 2);
    tcase_add_test(tc, test_segments);
    tcase_add_loop_test(tc, test_own_thresholds, 0, SKEWED);
    tcase_add_test(tc, test_topk);
    suite_add_tcase(s, tc);
    return run_device_suite(s, "skew");
}
