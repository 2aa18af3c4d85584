/*
 * The kernels at the edges of their 32-bit indices, with as many keys as a call takes:
 * opt-in (CLRADIX_TEST_EDGES=1), since it needs a device that allocates 4 GiB at once
 * and about 10 GiB in all (a GPU, or Intel's CPU runtime: tests/intel-run.sh). U8 keys,
 * n = 2^32 - 1 (CLRADIX_MAX_N):
 * - a segmented sort of one segment: the engine's single partition level leaves every
 *   bucket a copy job, one of them ending at 2^32 - 1, where a loop stepping by its
 *   work-group would wrap;
 * - a top-k with 8-byte indices: the select's loops over all n keys;
 * - a top-k of 2^31 + 2^20 outputs, whose indices past 2^31 a 32-bit offset would write
 *   over the first ones.
 * The top-k needs a positions buffer of every key (16 GiB at once; and 16 GiB of indices
 * for the second): where the device allocates less, those tests are left out and the
 * run reports a skip (77) once the others pass (Intel's CPU runtime allocates 11.8 GiB:
 * only the segmented sort runs there, in about a minute).
 * Each checked in full: keys in order with the same count of every value; the top-k
 * against the counts of the input (its k smallest keys are the first k of their values'
 * positions, in order).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t n = 0xFFFFFFFFu;  /* CLRADIX_MAX_N */
static int parts_skipped;  /* tests that this device's limits left out (the run is then a skip) */

static void setup(void) { open_dev(NULL); }

/* n random bytes, the count of each value in counts. */
static uint8_t *random_bytes(size_t count, uint64_t seed, size_t counts[256])
{
    uint8_t *keys = malloc(count);
    ck_assert_ptr_nonnull(keys);
    memset(counts, 0, 256 * sizeof counts[0]);
    uint64_t state = seed;
    for (size_t i = 0; i < count; ++i) {
        keys[i] = (uint8_t)(rng_next(&state) >> 56);
        ++counts[keys[i]];
    }
    return keys;
}

static cl_mem buffer_of(void *host, size_t bytes)
{
    cl_int err;
    cl_mem b = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes, host, &err);
    ck_assert_msg(err == CL_SUCCESS, "a buffer of %zu bytes: OpenCL error %d", bytes, err);
    return b;
}

START_TEST(test_one_segment_of_max_keys)
{
    size_t counts[256];
    uint8_t *keys = random_bytes(n, 1, counts);
    cl_mem keys_buffer = buffer_of(keys, n);
    const cl_uint offsets[2] = { 0, (cl_uint)n };
    cl_mem offsets_buffer = buffer_of((void *)offsets, sizeof offsets);
    ck_assert_int_eq(clradix_sort_segments_keys(dev.sorter, dev.queue, CLRADIX_U8, keys_buffer, n, offsets_buffer, 1,
                                                NULL, 0, NULL, NULL),
                     CLRADIX_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, keys_buffer, CL_TRUE, 0, n, keys, 0, NULL, NULL), CL_SUCCESS);
    /* (one assertion at the end: Check marks every assertion it passes, a system call each) */
    size_t at = 0, wrong = n;
    for (unsigned v = 0; v < 256 && wrong == n; ++v)
        for (size_t c = 0; c < counts[v]; ++c, ++at)
            if (keys[at] != v) {
                wrong = at;
                break;
            }
    ck_assert_msg(wrong == n, "key %zu is out of order", wrong);
    clReleaseMemObject(keys_buffer);
    clReleaseMemObject(offsets_buffer);
    free(keys);
}
END_TEST

/* The first k of the stable sort of keys (count of each value in counts) against out, in
   one pass: the outputs of value v start where those of smaller values end, in input order. */
static void check_topk(const uint8_t *keys, const size_t counts[256], size_t k, const uint8_t *out_keys,
                       const uint64_t *out_indices)
{
    size_t start[256], need[256], seen[256] = { 0 }, before = 0;
    for (unsigned v = 0; v < 256; ++v) {
        start[v] = before;
        need[v] = before >= k ? 0 : counts[v] < k - before ? counts[v] : k - before;
        before += need[v];
    }
    ck_assert_uint_eq(before, k);
    size_t wrong = k;  /* (one assertion at the end, as above) */
    for (size_t i = 0; i < n && wrong == k; ++i) {
        const unsigned v = keys[i];
        if (seen[v] == need[v])
            continue;
        const size_t at = start[v] + seen[v]++;
        if (out_keys[at] != v || out_indices[at] != i)
            wrong = at;
    }
    ck_assert_msg(wrong == k, "output %zu is not the key at its position in the input", wrong);
}

/* Test _i: k of 1000, then 2^31 + 2^20; each where the device allocates the select's
   positions of every key (16 GiB) and the indices at once. */
START_TEST(test_topk_of_max_keys)
{
    const size_t k = _i == 0 ? 1000 : ((size_t)1 << 31) + ((size_t)1 << 20);
    cl_ulong max_alloc = 0;
    ck_assert_int_eq(clGetDeviceInfo(dev.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL),
                     CL_SUCCESS);
    if (k * 8 > max_alloc || n * sizeof(cl_uint) > max_alloc) {
        printf("edges: top-k of %zu outputs skipped: the device allocates at most %llu bytes at once\n", k,
               (unsigned long long)max_alloc);
        ++parts_skipped;
        return;
    }
    size_t counts[256];
    uint8_t *keys = random_bytes(n, 2, counts);
    cl_mem keys_buffer = buffer_of(keys, n), out_keys = buffer_of(NULL, k), out_indices = buffer_of(NULL, k * 8);
    ck_assert_int_eq(clradix_topk(dev.sorter, dev.queue, CLRADIX_U8, keys_buffer, n, k, out_keys, out_indices, 8, NULL,
                                  0, NULL, NULL),
                     CLRADIX_SUCCESS);
    uint8_t *got_keys = malloc(k);
    uint64_t *got_indices = malloc(k * 8);
    ck_assert(got_keys && got_indices);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, out_keys, CL_TRUE, 0, k, got_keys, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, out_indices, CL_TRUE, 0, k * 8, got_indices, 0, NULL, NULL),
                     CL_SUCCESS);
    check_topk(keys, counts, k, got_keys, got_indices);
    printf("edges: top %zu of %zu u8 keys with 8-byte indices checked\n", k, n);
    clReleaseMemObject(keys_buffer);
    clReleaseMemObject(out_keys);
    clReleaseMemObject(out_indices);
    free(keys);
    free(got_keys);
    free(got_indices);
}
END_TEST

int main(void)
{
    const char *wanted = getenv("CLRADIX_TEST_EDGES");
    if (!wanted || strcmp(wanted, "1")) {
        printf("skipped: the kernels at 2^32 - 1 keys are opt-in (CLRADIX_TEST_EDGES=1; a device that allocates "
               "4 GiB at once, about 10 GiB in all)\n");
        return 77;
    }
    Suite *s = suite_create("edges");
    TCase *tc = tcase_create("edges");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 3600);
    tcase_add_test(tc, test_one_segment_of_max_keys);
    tcase_add_loop_test(tc, test_topk_of_max_keys, 0, 2);
    suite_add_tcase(s, tc);
    setenv("CK_FORK", "no", 1);  /* so that parts_skipped counts the tests' skips */
    const int status = run_device_suite(s, "test_edges");
    if (status == EXIT_SUCCESS && parts_skipped) {
        printf("skipped: %d of the tests did not fit this device (the rest passed)\n", parts_skipped);
        return 77;
    }
    return status;
}
