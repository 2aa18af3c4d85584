/*
 * Top-k: the first k keys of the stable sort and their positions, against the oracle's
 * stable order, through the device and host calls, flat (radix select) and by rows; the
 * argument checks, k == 0, and the bytes past the outputs.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void setup(void) { open_dev(NULL); }

/* Flat top-k by radix select: every key type (the first 3 in the reduced scope), k from 1 to n (1, 2, 17,
   1000, n / 3 + 1, n - 1 and n in turn), both directions, bit ranges, distributions with
   many ties (ties by position), special floats (random bits), both calls; and 2^20
   random keys once. */
START_TEST(test_select)
{
    static const clradix_key_type types[] = { CLRADIX_U32,  CLRADIX_I64,       CLRADIX_F32_NUMPY, CLRADIX_U8,
                                              CLRADIX_F16,  CLRADIX_BF16_NUMPY, CLRADIX_F64,      CLRADIX_I16,
                                              CLRADIX_I32,  CLRADIX_F32,       CLRADIX_U64,       CLRADIX_I8,
                                              CLRADIX_U16,  CLRADIX_BF16,      CLRADIX_F64_NAN_LAST, CLRADIX_F16_NUMPY };
    const clradix_key_type type = types[_i];
    const unsigned w = key_bytes_of(type) * 8;
    static const dist dists[] = { DIST_RANDOM, DIST_SIXTEEN, DIST_EQUAL, DIST_TOP_DIGIT };
    const clradix_options options[] = { { 0 }, { 0, 0, 1 }, { 2, w - 3, 0 }, { w / 2, w, 1 } };
    static const size_t sizes[] = { 1, 1000, 70001, 1u << 20 };
    char msg[256];
    for (size_t z = 0; z < 4; ++z)
        for (size_t d = 0; d < (z < 3 ? 4u : 1u); ++d) {
            const size_t n = sizes[z], ks[] = { 1, 2, 17, 1000, n / 3 + 1, n - 1, n };
            for (size_t j = 0; j < (z < 3 ? 3u : 1u); ++j) {
                const size_t c = z * 12 + d * 3 + j, k = z < 3 ? ks[(d * 3 + j + z) % 7] : 1000;
                const clradix_options *o = &options[c % 4];
                const int host = (int)(c % 2), index_size = c % 3 == 0 ? 8 : 4, no_keys = c % 5 == 4;
                if (k == 0 || k > n)
                    continue;  /* n - 1 of one key */
                const int failed = topk_case(&dev, type, dists[d], 1, n, k, host, c % 7 == 6 ? 0 : (size_t)index_size,
                                             no_keys && c % 7 != 6, o, 40 + c, msg, sizeof msg);
                ck_assert_msg(!failed, "type %d %s n=%zu k=%zu %s bits [%u, %u)%s: %s", type, dist_name(dists[d]),
                              n, k, host ? "host" : "device", o->begin_bit, o->end_bit ? o->end_bit : w,
                              o->descending ? " descending" : "", msg);
            }
        }
}
END_TEST

/* Rows: many short rows and a few long ones (past the CPU row's MEDIUM_N too), k from 1
   to the row's length. */
START_TEST(test_rows)
{
    static const struct { clradix_key_type type; size_t rows, length, k; } cases[] = {
        { CLRADIX_F32_NUMPY, 300, 17, 5 },   { CLRADIX_U32, 64, 1000, 1 },     { CLRADIX_I64, 3, 70001, 100 },
        { CLRADIX_U16, 1000, 64, 64 },       { CLRADIX_F64_NUMPY, 7, 3000, 2999 }, { CLRADIX_U8, 2, 5, 3 },
        { CLRADIX_F32, 2, 140000, 40 },  /* rows longer than MEDIUM_N: the prefix of a segmented argsort */
    };
    char msg[256];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int host = 0; host < 2; ++host) {
            const clradix_options options = { 0, 0, (int)((c + host) % 2) };
            const int failed = topk_case(&dev, cases[c].type, c % 2 ? DIST_SIXTEEN : DIST_RANDOM, cases[c].rows,
                                         cases[c].length, cases[c].k, host, host ? 8 : 4, 0, &options, 7 + c, msg,
                                         sizeof msg);
            ck_assert_msg(!failed, "case %zu %s: %s", c, host ? "host" : "device", msg);
        }
}
END_TEST

/* Data as applications have it and adversaries of the select's sample, flat and by rows,
   both directions (numpy's order with NaNs too): floats in [0, 1) and normal, integers below
   2^20, all keys equal but a few (the k-th key's value across the bracket and past it), and
   a sample that misleads (the fallback by the top digit). Test _i: one key type. */
START_TEST(test_real_data)
{
    static const clradix_key_type types[] = { CLRADIX_F32, CLRADIX_U32, CLRADIX_F64_NUMPY, CLRADIX_I64,
                                              CLRADIX_F16, CLRADIX_F32_NUMPY };
    static const dist dists[] = { DIST_UNIT, DIST_NORMAL, DIST_UNIT_NAN, DIST_ALL_BUT_FEW, DIST_SAMPLED_LOW };
    static const size_t ks[] = { 1, 1024, 7000 };
    const clradix_key_type type = types[_i];
    char msg[256];
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; ++d)
        for (size_t j = 0; j < 3; ++j) {
            const size_t c = d * 3 + j, k = ks[j];
            const clradix_options options = { 0, 0, (int)(c % 2) };
            int failed = topk_case(&dev, type, dists[d], 1, 30000, k, (int)(c % 3 == 1), c % 2 ? 8 : 4, 0, &options,
                                   60 + c, msg, sizeof msg);
            ck_assert_msg(!failed, "type %d %s n=30000 k=%zu%s: %s", type, dist_name(dists[d]), k,
                          options.descending ? " descending" : "", msg);
            failed = topk_case(&dev, type, dists[d], 5, 6000, k / 8 + 1, (int)(c % 3 == 2), 4, 0, &options, 80 + c,
                               msg, sizeof msg);
            ck_assert_msg(!failed, "type %d %s 5 rows of 6000, k=%zu%s: %s", type, dist_name(dists[d]), k / 8 + 1,
                          options.descending ? " descending" : "", msg);
        }
}
END_TEST

/* Rejected calls change nothing; k == 0 succeeds, writes nothing and gives an event. */
START_TEST(test_arguments)
{
    cl_int err;
    uint32_t keys[100];
    for (int i = 0; i < 100; ++i)
        keys[i] = (uint32_t)(i * 7919 % 100);
    cl_mem in = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof keys, keys, &err);
    cl_mem out = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 40 * 8, NULL, &err);
    cl_mem small = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 4 * 9, NULL, &err);
    cl_mem idx = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 40 * 8, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clradix_sorter *s = dev.sorter;
    cl_command_queue q = dev.queue;
    cl_event e = (cl_event)(intptr_t)1;
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 101, out, idx, 4, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 10, NULL, NULL, 4, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 10, out, idx, 2, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_topk(s, q, (clradix_key_type)99, in, 100, 10, out, idx, 4, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    const clradix_options past = { 0, 33, 0 };
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 10, out, idx, 4, &past, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 10, small, idx, 4, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 10, out, small, 8, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 10, in, idx, 4, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* the output overlaps the keys */
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 10, out, out, 4, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* the outputs overlap */
    ck_assert_int_eq(clradix_topk_rows(s, q, CLRADIX_U32, in, 10, 10, 11, out, idx, 4, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_topk_rows(s, q, CLRADIX_U32, in, 20, 10, 2, out, idx, 4, NULL, 0, NULL, &e),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* 200 keys in a buffer of 100 */
    ck_assert_int_eq(clradix_topk_host(s, NULL, CLRADIX_U32, keys, 100, 10, NULL, NULL, 4, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(clradix_topk_host(NULL, NULL, CLRADIX_U32, keys, 100, 10, keys, NULL, 4, NULL),
                     CLRADIX_ERROR_INVALID_ARGUMENT);
    ck_assert(e == (cl_event)(intptr_t)1);  /* untouched on failure */

    /* k == 0: success, an event, nothing written. */
    uint32_t sentinel[4] = { 1, 2, 3, 4 };
    ck_assert_int_eq(clEnqueueWriteBuffer(q, out, CL_TRUE, 0, sizeof sentinel, sentinel, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clradix_topk(s, q, CLRADIX_U32, in, 100, 0, out, idx, 4, NULL, 0, NULL, &e), CLRADIX_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &e), CL_SUCCESS);
    clReleaseEvent(e);
    ck_assert_int_eq(clradix_topk_rows(s, q, CLRADIX_U32, in, 10, 10, 0, out, NULL, 4, NULL, 0, NULL, &e),
                     CLRADIX_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &e), CL_SUCCESS);
    clReleaseEvent(e);
    uint32_t back[4];
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_mem_eq(back, sentinel, sizeof back);
    ck_assert_int_eq(clradix_topk_host(s, NULL, CLRADIX_U32, keys, 100, 0, back, NULL, 4, NULL), CLRADIX_SUCCESS);
    ck_assert_mem_eq(back, sentinel, sizeof back);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(small);
    clReleaseMemObject(idx);
}
END_TEST

/* Checks clradix_topk_host of keys with sorter against the oracle's first k. */
static void check_host_topk(clradix_sorter *sorter, clradix_key_type type, const void *keys, size_t n, size_t k,
                            const clradix_options *options, const char *what)
{
    const size_t kb = key_bytes_of(type);
    unsigned char *out = malloc(k * kb);
    uint32_t *indices = malloc(k * sizeof *indices);
    ck_assert_int_eq(clradix_topk_host(sorter, NULL, type, keys, n, k, out, indices, 4, options), CLRADIX_SUCCESS);
    size_t *perm = oracle_order(type, keys, n, options);
    for (size_t i = 0; i < k; ++i) {
        ck_assert_msg(indices[i] == perm[i], "%s, k=%zu: index %zu is %u, not %zu", what, k, i, indices[i], perm[i]);
        ck_assert_msg(!memcmp(out + i * kb, (const unsigned char *)keys + perm[i] * kb, kb), "%s: key %zu", what, i);
    }
    free(perm);
    free(out);
    free(indices);
}

/* numpy's float order where the 8-key tests read the keys too: every NaN above +inf and
   equal, -0.0 equal to +0.0, in runs that fill whole 8-key blocks, both directions. */
START_TEST(test_numpy_edges)
{
    static const uint32_t f32[] = { 0x80000000u, 0x00000000u, 0xFFC00001u, 0x7FC00000u,
                                    0xFF800000u, 0x7F800000u, 0x3F800000u, 0xBF800000u };
    static const uint16_t f16[] = { 0x8000u, 0x0000u, 0xFE01u, 0x7E00u, 0xFC00u, 0x7C00u, 0x3C00u, 0xBC00u };
    enum { N = 10000 };
    uint32_t *keys32 = malloc(N * sizeof *keys32);
    uint16_t *keys16 = malloc(N * sizeof *keys16);
    for (size_t i = 0; i < N; ++i) {
        const size_t e = i < N / 2 ? i / 8 % 8 : i * 3 % 8;  /* runs of 8 of one value, then mixed */
        keys32[i] = f32[e];
        keys16[i] = f16[e];
    }
    static const size_t ks[] = { 1, 100, 1300, 5000, N - 1 };
    for (int descending = 0; descending < 2; ++descending) {
        const clradix_options o = { 0, 0, descending };
        for (size_t j = 0; j < sizeof ks / sizeof ks[0]; ++j) {
            check_host_topk(dev.sorter, CLRADIX_F32_NUMPY, keys32, N, ks[j], &o, descending ? "f32 down" : "f32 up");
            check_host_topk(dev.sorter, CLRADIX_F16_NUMPY, keys16, N, ks[j], &o, descending ? "f16 down" : "f16 up");
        }
    }
    free(keys32);
    free(keys16);
}
END_TEST

/* The select's two ways to its candidates, and the full sort's prefix: a sample of keys
   that misleads (the sampled positions hold the smallest keys, so the range it gives
   holds too few), with one work-item per group and with 64, and a sorter whose tuning
   sends a large k to a full argsort. */
START_TEST(test_paths)
{
    enum { N = 100000, SAMPLES = 4096 };
    uint32_t *keys = malloc(N * sizeof *keys);
    for (size_t i = 0; i < N; ++i)
        keys[i] = 0x80000000u + (uint32_t)(i * 2654435761u % 7);
    for (size_t j = 0; j < SAMPLES; ++j)
        keys[j * N / SAMPLES] = (uint32_t)(j % 3);  /* what topk_sample reads */
    check_host_topk(dev.sorter, CLRADIX_U32, keys, N, 5000, NULL, "sample misleads");
    check_host_topk(dev.sorter, CLRADIX_U32, keys, N, 100, NULL, "sample right");
    const clradix_tuning gpu_like = { .radix_bits = 8, .work_group_size = 64, .keys_per_item = 4, .rank_bits = 4,
                                      .groups_per_unit = 3 };
    clradix_sorter *groups;  /* work-groups of 64 work-items: the kernels' paths for GPUs */
    ck_assert_int_eq(clradix_sorter_create_tuned(dev.context, dev.device, &gpu_like, &groups), CLRADIX_SUCCESS);
    check_host_topk(groups, CLRADIX_U32, keys, N, 5000, NULL, "sample misleads, work-groups of 64");
    check_host_topk(groups, CLRADIX_U32, keys, N, 100, NULL, "sample right, work-groups of 64");
    clradix_sorter_release(groups);

    const char *own = getenv("CLRADIX_TUNING");
    ck_assert_msg(!own || !*own, "the test sets CLRADIX_TUNING itself");
    setenv("CLRADIX_TUNING", "TOPK_SORT=4", 1);
    clradix_sorter *by_sort;
    const clradix_status status = clradix_sorter_create(dev.context, dev.device, &by_sort);
    unsetenv("CLRADIX_TUNING");
    ck_assert_int_eq(status, CLRADIX_SUCCESS);
    check_host_topk(by_sort, CLRADIX_U32, keys, N, N / 3, NULL, "full sort's prefix");
    clradix_sorter_release(by_sort);
    free(keys);
}
END_TEST

/* The device call only enqueues: its event stays open while a user event on its wait
   list does, and the result comes once that opens. */
START_TEST(test_waits_for_the_wait_list)
{
    enum { N = 5000, K = 50 };
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, N, 3), out[K];
    cl_int err;
    cl_mem in = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * 4, keys, &err);
    cl_mem out_buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, sizeof out, NULL, &err);
    cl_event gate = clCreateUserEvent(dev.context, &err), done = NULL;
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clradix_topk(dev.sorter, dev.queue, CLRADIX_U32, in, N, K, out_buffer, NULL, 4, NULL, 1, &gate,
                                  &done), CLRADIX_SUCCESS);
    ck_assert_int_eq(clFlush(dev.queue), CL_SUCCESS);
    nanosleep(&(struct timespec){ 0, 100000000 }, NULL);  /* time to run, had it not waited */
    cl_int state = CL_COMPLETE;
    ck_assert_int_eq(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL), CL_SUCCESS);
    ck_assert_int_gt(state, CL_COMPLETE);  /* queued or submitted: not run */
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, out_buffer, CL_TRUE, 0, sizeof out, out, 1, &done, NULL),
                     CL_SUCCESS);
    size_t *perm = oracle_order(CLRADIX_U32, keys, N, NULL);
    for (int i = 0; i < K; ++i)
        ck_assert_uint_eq(out[i], keys[perm[i]]);
    free(perm);
    free(keys);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(in);
    clReleaseMemObject(out_buffer);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topk");
    TCase *tc = tcase_create("topk");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_select, 0, test_full_scope() ? 16 : 3);
    tcase_add_test(tc, test_rows);
    tcase_add_loop_test(tc, test_real_data, 0, test_full_scope() ? 6 : 1);
    tcase_add_test(tc, test_paths);
    tcase_add_test(tc, test_numpy_edges);
    tcase_add_test(tc, test_arguments);
    /* POCL's basic device hangs in clSetUserEventStatus when a command waits on the event
       (pocl/pocl#1177, see test_calls.c): the user-event test runs on the others. */
    const char *pocl_devices = getenv("POCL_DEVICES");
    if (!pocl_devices || strcmp(pocl_devices, "basic"))
        tcase_add_test(tc, test_waits_for_the_wait_list);
    else
        fprintf(stderr, "test_topk: the user-event test not run on POCL basic (its own deadlock)\n");
    suite_add_tcase(s, tc);
    return run_device_suite(s, "test_topk");
}
