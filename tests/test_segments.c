/*
 * Segmented sorts against the qsort oracle, segment by segment: mixes of empty, length-1,
 * tiny, local, medium and large segments, with gaps before offsets[0] and after
 * offsets[num_segments] that must stay untouched byte for byte, through every call (keys,
 * pairs, argsort; device buffers and host arrays), every key type, descending and bit
 * ranges. The job classes' thresholds are lowered through CLRADIX_TUNING (SMALL_N,
 * MEDIUM_N) so that small arrays reach every class, on the device's own shape and on
 * shapes with several work-items; then the device's real thresholds with a few large
 * segments; user events; offsets the kernels must not trust; rejected calls.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shapes: the device's own, a GPU-like one (64 work-items, 4-bit rank rounds) and 5-bit
   digits without a local class; each with the classes' thresholds lowered. */
typedef struct shape {
    const char *name;
    clradix_tuning tuning;
    const char *environment;  /* CLRADIX_TUNING */
} shape;

static const shape shapes[] = {
    { "own, small classes", { 0 }, "SMALL_N=64,MEDIUM_N=512" },
    { "gpu-like", { .radix_bits = 8, .work_group_size = 64, .keys_per_item = 4, .rank_bits = 4, .groups_per_unit = 2,
                    .hist_copies = 4, .fused = 1, .small_n = 256 }, "MEDIUM_N=1024" },
    { "radix5, no local class", { .radix_bits = 5, .work_group_size = 4, .keys_per_item = 16, .rank_bits = 3,
                                  .groups_per_unit = 3, .hist_copies = 2, .fused = 2, .small_n = 1 }, "MEDIUM_N=300" },
};
enum { SHAPES = sizeof shapes / sizeof shapes[0] };

static void open_shape(const shape *s)
{
    open_dev_tuned(&s->tuning, s->environment);
}

static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_U64, CLRADIX_I64,
                                          CLRADIX_F64, CLRADIX_U8,  CLRADIX_I8,  CLRADIX_U16, CLRADIX_I16,
                                          CLRADIX_F16, CLRADIX_BF16, CLRADIX_F32_NUMPY, CLRADIX_BF16_NUMPY };
/* Every call and value size on the device's own shape for the 32- and 64-bit types; on the
   others, and for narrow keys and numpy's order, the calls of keys and 4-byte values (each
   program variant compiled is time on a cold machine). */
static const sort_call calls[] = {
    { API_DEVICE, SORT_KEYS, 0 },     { API_HOST, SORT_PAIRS, 4 },  { API_DEVICE, SORT_ARGSORT, 4 },
    { API_HOST, SORT_KEYS, 0 },       { API_DEVICE, SORT_PAIRS, 16 }, { API_DEVICE, SORT_ARGSORT, 8 },
    { API_HOST, SORT_PAIRS, 8 },
};
/* The other shapes: the 32- and 64-bit types and 8-bit keys (bytes side by side in local
   memory; 16-bit keys there are in the oclgrind job). */
static const clradix_key_type other_types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_U64,
                                                CLRADIX_I64, CLRADIX_F64, CLRADIX_U8 };
enum {
    TYPES = sizeof types / sizeof types[0],
    OTHER_TYPES = sizeof other_types / sizeof other_types[0],
    CALLS = sizeof calls / sizeof calls[0],
    NARROW_CALLS = 4
};

/* A mix that reaches every class under the lowered thresholds (tiny <= 16, local <= 64 or
   256, medium <= 300 .. 1024, large above), empty and length-1 segments among them. */
static const size_t mix[] = { 0, 1, 2, 5, 16, 17, 64, 65, 200, 0, 300, 301, 1025, 3000, 7, 1, 520, 0 };
enum { MIX = sizeof mix / sizeof mix[0] };

/* Test _i: the own shape with each type, then the other shapes with each of other_types;
   every call (the other shapes, 8- and 16-bit keys and a repeat run: NARROW_CALLS, whose
   keys-only and 4-byte-value programs are compiled anyway), several distributions, both
   directions, a bit range. */
START_TEST(test_classes)
{
    const int own = _i < TYPES;
    const shape *s = &shapes[own ? 0 : 1 + (_i - TYPES) / OTHER_TYPES];
    const clradix_key_type type = own ? types[_i] : other_types[(_i - TYPES) % OTHER_TYPES];
    const unsigned width = 8 * key_bytes_of(type);
    const clradix_options options[] = { { 0 }, { 0, 0, 1 }, { 3, width - 5, 0 }, { width / 2, width, 1 } };
    static const dist dists[] = { DIST_RANDOM, DIST_TOP_DIGIT, DIST_SIXTEEN };
    open_shape(s);
    char msg[300], name[64];
    int cases = 0;
    const int all_calls = own && key_bytes_of(type) >= 4 && type <= CLRADIX_F64 && test_full_scope();
    for (int c = 0; c < (all_calls ? CALLS : NARROW_CALLS); ++c)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; ++d) {
            const clradix_options *o = &options[(c + d) % 4];
            const size_t gap_before = (c * 7 + d) % 5, gap_after = (c + d * 3) % 4;
            const int failed = segments_case(&dev, &calls[c], type, dists[d], mix, MIX, gap_before, gap_after, o,
                                             _i * 100 + c * 10 + d, NULL, msg, sizeof msg);
            ck_assert_msg(!failed, "%s, type %d, %s, %s, bits %u..%u%s: %s", s->name, type, dist_name(dists[d]),
                          sort_call_name(&calls[c], name, sizeof name), o->begin_bit, o->end_bit,
                          o->descending ? " descending" : "", msg);
            ++cases;
        }
    close_dev();
    printf("segments: %s, type %d: %d cases\n", s->name, type, cases);
}
END_TEST

/* Many tiny segments, and one segment holding everything (a flat sort through the engine). */
START_TEST(test_shapes_of_work)
{
    open_shape(&shapes[_i]);
    size_t *tiny = malloc(4000 * sizeof *tiny);
    uint64_t state = 17;
    for (int i = 0; i < 4000; ++i)
        tiny[i] = rng_next(&state) % 20;
    const size_t whole[] = { 20000 };
    char msg[300];
    for (int c = 0; c < NARROW_CALLS; ++c) {
        ck_assert_msg(!segments_case(&dev, &calls[c], CLRADIX_U32, DIST_RANDOM, tiny, 4000, 3, 3, NULL, c, NULL, msg,
                                     sizeof msg), "%s, 4000 tiny segments, call %d: %s", shapes[_i].name, c, msg);
        ck_assert_msg(!segments_case(&dev, &calls[c], CLRADIX_F64, DIST_RANDOM, whole, 1, 0, 0, NULL, c, NULL, msg,
                                     sizeof msg), "%s, one segment, call %d: %s", shapes[_i].name, c, msg);
    }
    free(tiny);
    close_dev();
}
END_TEST

/* The device's own thresholds: segments in local memory, medium, and large ones that are
   partitioned (levels), next to tiny ones; long segments. */
START_TEST(test_real_sizes)
{
    open_dev(NULL);
    const size_t lengths[] = { 3, 300001, 0, 140000, 70000, 12, 2048, 1, 65537, 9000 };
    static const sort_call big_calls[] = { { API_DEVICE, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 4 },
                                           { API_DEVICE, SORT_ARGSORT, 4 } };
    static const clradix_key_type big_types[] = { CLRADIX_U32, CLRADIX_F32, CLRADIX_U64 };
    char msg[300];
    const int c = _i;
    ck_assert_msg(!segments_case(&dev, &big_calls[c], big_types[c], DIST_RANDOM, lengths, 10, 5, 9, NULL, 40 + c, NULL, msg,
                                 sizeof msg), "own thresholds, call %d: %s", c, msg);
    /* 64-bit keys below 2^32 (the top digits never vary) and one value repeated. */
    ck_assert_msg(!segments_case(&dev, &big_calls[c], CLRADIX_U64, DIST_BOTTOM_DIGIT, lengths, 10, 0, 1, NULL, 50 + c, NULL,
                                 msg, sizeof msg), "own thresholds, low digits, call %d: %s", c, msg);
    /* Keys in lock step (IDs): medium segments' passes through global memory write them a
       line at a time. */
    ck_assert_msg(!segments_case(&dev, &big_calls[c], big_types[c], DIST_SEQUENTIAL, lengths, 10, 1, 0, NULL, 60 + c, NULL,
                                 msg, sizeof msg), "own thresholds, sequential keys, call %d: %s", c, msg);
    /* Long segments of keys of up to 32 bits: on the CPU row with two compute units, those of
       up to n / 4 keys are medium (LONG_MEDIUM_N), the longer ones partitioned. */
    static const clradix_key_type long_types[] = { CLRADIX_U32, CLRADIX_F32, CLRADIX_U16 };
    const size_t long_lengths[] = { 262144, 7, 200000, 140000, 300001, 0, 5000 };
    ck_assert_msg(!segments_case(&dev, &big_calls[c], long_types[c], DIST_RANDOM, long_lengths, 7, 2, 3, NULL, 70 + c,
                                 NULL, msg, sizeof msg), "own thresholds, long segments, call %d: %s", c, msg);
    close_dev();
}
END_TEST

/* The sort waits for a user event in its wait list, and its event follows. */
START_TEST(test_user_event)
{
    open_shape(&shapes[0]);
    cl_int err;
    cl_event gate = clCreateUserEvent(dev.context, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    char msg[300];
    const sort_call call = { API_DEVICE, SORT_PAIRS, 8 };
    ck_assert_msg(!segments_case(&dev, &call, CLRADIX_I64, DIST_RANDOM, mix, MIX, 2, 2, NULL, 9, gate, msg, sizeof msg),
                  "%s", msg);
    clReleaseEvent(gate);
    close_dev();
}
END_TEST

/* Offsets on the device are not trusted: decreasing ones and ones past n sort within
   [0, n) only, leave the buffers' bytes past n alone, and the call succeeds. */
START_TEST(test_untrusted_offsets)
{
    open_shape(&shapes[_i]);
    const size_t n = 5000;
    enum { GAP_BYTE = 0xAB };
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 3);
    const cl_uint bad[] = { 100, 4000, 50, 3000, 9000, 7000, 12, 0xFFFFFFFFu, 2 };
    const size_t count = sizeof bad / sizeof bad[0] - 1, guard = 4096;
    cl_int err;
    unsigned char *fill = malloc((n + guard) * 4);
    memset(fill, GAP_BYTE, (n + guard) * 4);
    memcpy(fill, keys, n * 4);
    cl_mem key_buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (n + guard) * 4, fill,
                                       &err);
    cl_mem value_buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (n + guard) * 4, fill,
                                         &err);
    cl_mem offsets = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof bad, (void *)bad,
                                    &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clradix_sort_segments_pairs(dev.sorter, dev.queue, CLRADIX_U32, key_buffer, value_buffer, 4, n,
                                                 offsets, count, NULL, 0, NULL, NULL), CLRADIX_SUCCESS);
    ck_assert_int_eq(clradix_argsort_segments(dev.sorter, dev.queue, CLRADIX_U32, key_buffer, value_buffer, 4, n,
                                              offsets, count, NULL, 0, NULL, NULL), CLRADIX_SUCCESS);
    unsigned char *back = malloc((n + guard) * 4);
    for (int b = 0; b < 2; ++b) {
        ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, b ? value_buffer : key_buffer, CL_TRUE, 0, (n + guard) * 4,
                                             back, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_msg(!memcmp(back + n * 4, fill + n * 4, guard * 4), "bytes past n written (buffer %d)", b);
    }
    clReleaseMemObject(key_buffer);
    clReleaseMemObject(value_buffer);
    clReleaseMemObject(offsets);
    free(back);
    free(fill);
    free(keys);
    close_dev();
}
END_TEST

/* Rejected calls change nothing; no segments succeed with an event. */
START_TEST(test_rejected)
{
    open_dev(NULL);
    uint32_t keys[8] = { 5, 3, 9, 1, 7, 2, 8, 0 }, before[8];
    uint32_t values[8] = { 0 };
    memcpy(before, keys, sizeof keys);
    const size_t decreasing[] = { 0, 5, 3 }, past[] = { 0, 4, 9 }, good[] = { 1, 4, 8 };
    ck_assert_int_eq(clradix_sort_segments_keys_host(dev.sorter, NULL, CLRADIX_U32, keys, 8, decreasing, 2, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_segments_keys_host(dev.sorter, NULL, CLRADIX_U32, keys, 8, past, 2, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_segments_keys_host(dev.sorter, NULL, CLRADIX_U32, keys, 8, NULL, 2, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_segments_pairs_host(dev.sorter, NULL, CLRADIX_U32, keys, values, 3, 8, good, 2,
                                                      NULL), CLRADIX_ERROR_UNSUPPORTED);
    ck_assert_int_eq(clradix_argsort_segments_host(dev.sorter, NULL, CLRADIX_U32, keys, values, 2, 8, good, 2, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    const clradix_options too_wide = { 0, 33, 0 };
    ck_assert_int_eq(clradix_sort_segments_keys_host(dev.sorter, NULL, CLRADIX_U32, keys, 8, good, 2, &too_wide),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_segments_keys_host(dev.sorter, NULL, CLRADIX_U32, keys, 8, NULL, 0, NULL),
                     CLRADIX_SUCCESS);
    ck_assert(!memcmp(keys, before, sizeof keys));

    cl_int err;
    cl_mem key_buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof keys, keys, &err);
    const cl_uint one_offset[] = { 0 };
    cl_mem short_offsets = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof one_offset,
                                          (void *)one_offset, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event done = NULL;
    ck_assert_int_eq(clradix_sort_segments_keys(dev.sorter, dev.queue, CLRADIX_U32, key_buffer, 8, NULL, 2, NULL, 0,
                                                NULL, &done), CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_sort_segments_keys(dev.sorter, dev.queue, CLRADIX_U32, key_buffer, 8, short_offsets, 2,
                                                NULL, 0, NULL, &done), CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_sort_segments_keys(dev.sorter, dev.queue, CLRADIX_U32, key_buffer, 9, short_offsets, 0,
                                                NULL, 0, NULL, &done), CLRADIX_ERROR_INVALID_BUFFER);  /* keys short */
    ck_assert_ptr_null(done);
    ck_assert_int_eq(clradix_sort_segments_keys(dev.sorter, dev.queue, CLRADIX_U32, key_buffer, 8, NULL, 0, NULL, 0,
                                                NULL, &done), CLRADIX_SUCCESS);
    ck_assert_ptr_nonnull(done);  /* nothing to sort: still an event */
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    uint32_t back[8];
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, key_buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert(!memcmp(back, before, sizeof back));
    clReleaseMemObject(short_offsets);
    clReleaseMemObject(key_buffer);
    close_dev();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("segments");
    TCase *tc = tcase_create("segments");
    tcase_set_timeout(tc, 600);
    const int shapes = test_full_scope() ? SHAPES : 1;  /* a repeat run: the device's own shape */
    tcase_add_loop_test(tc, test_classes, 0, TYPES + (shapes - 1) * OTHER_TYPES);
    tcase_add_loop_test(tc, test_shapes_of_work, 0, shapes);
    tcase_add_loop_test(tc, test_real_sizes, 0, 3);
    tcase_add_loop_test(tc, test_untrusted_offsets, 0, shapes);
    tcase_add_test(tc, test_rejected);
    /* POCL's basic device hangs in clSetUserEventStatus when a command waits on the event
       (pocl/pocl#1177): that test runs on other devices. */
    const char *pocl_devices = getenv("POCL_DEVICES");
    if (!(pocl_devices && !strcmp(pocl_devices, "basic")))
        tcase_add_test(tc, test_user_event);
    else
        fprintf(stderr, "test_segments: the user-event test is not run on POCL basic (its own hang)\n");
    suite_add_tcase(s, tc);
    return run_device_suite(s, "test_segments");
}
