/*
 * Defects found in review, each checked through the test build of the library
 * (src/testing.h), which can hold builds, narrow size_t, and change what the device
 * reports: a build must not stall sorts of other variants; a build log stays valid until
 * the sorter is released; sizes that overflow are rejected; devices with more than three
 * work-item dimensions, another byte order, the embedded profile or memory of their own
 * (host arrays through copies); a program cache entry whose kernels cannot be made; and
 * calls that fill a clradix_tuning never write past the struct of version 1.0.
 */
#include "testing.h"
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static void setup(void) { open_dev(NULL); }

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct sorting_thread {
    pthread_t id;
    sort_call call;
    clradix_key_type type;
    size_t n;
    int sorts, failures;
    atomic_int done;
    char msg[256];
} sorting_thread;

static void *sort_in_thread(void *arg)
{
    sorting_thread *t = arg;
    test_device own = dev;  /* the shared sorter, a queue of its own */
    own.queue = clCreateCommandQueue(dev.context, dev.device, 0, NULL);
    for (int i = 0; i < t->sorts && !t->failures; ++i)
        t->failures += sort_case(&own, &t->call, t->type, DIST_RANDOM, t->n, NULL, 300 + i, t->msg, sizeof t->msg);
    clReleaseCommandQueue(own.queue);
    atomic_store(&t->done, 1);
    return NULL;
}

static void start(sorting_thread *t, sort_call call, clradix_key_type type, size_t n, int sorts)
{
    t->call = call;
    t->type = type;
    t->n = n;
    t->sorts = sorts;
    t->failures = 0;
    atomic_store(&t->done, 0);
    ck_assert_int_eq(pthread_create(&t->id, NULL, sort_in_thread, t), 0);
}

/* Waits up to seconds for t to finish; 1 if it did. */
static int finishes_within(sorting_thread *t, double seconds)
{
    const double until = now() + seconds;
    while (!atomic_load(&t->done) && now() < until)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    return atomic_load(&t->done);
}

/* While one thread's first sort of a new variant compiles, other threads sort with the
   variants already built; a third thread that needs the same new variant waits for that
   one build and then sorts. */
START_TEST(test_build_does_not_stall_sorts)
{
    const sort_call pairs16 = { API_HOST, SORT_PAIRS, 16 }, keys = { API_HOST, SORT_KEYS, 0 };
    sorting_thread builder, waiter, sorter;
    clradix_testing_hold_builds(1);
    start(&builder, pairs16, CLRADIX_U64, 5000, 1);
    const double until = now() + 30;
    while (clradix_testing_builds_waiting() == 0 && now() < until)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    ck_assert_uint_eq(clradix_testing_builds_waiting(), 1);  /* the build has started, and is held */
    start(&waiter, pairs16, CLRADIX_I64, 3000, 1);
    start(&sorter, keys, CLRADIX_U32, 100000, 5);  /* the variant built at creation */
    const int sorted_meanwhile = finishes_within(&sorter, 60);
    const unsigned builds_held = clradix_testing_builds_waiting();
    clradix_testing_hold_builds(0);
    pthread_join(sorter.id, NULL);
    pthread_join(builder.id, NULL);
    pthread_join(waiter.id, NULL);
    ck_assert_msg(sorted_meanwhile, "sorts of a built variant waited for another variant's build");
    ck_assert_uint_eq(builds_held, 1);  /* the waiting thread did not start a build of its own */
    ck_assert_msg(!sorter.failures && !builder.failures && !waiter.failures, "%s%s%s", sorter.msg, builder.msg,
                  waiter.msg);
}
END_TEST

/* A failed build's log stays valid while later builds fail and log. */
START_TEST(test_build_log_stays_valid)
{
    char dir[] = "/tmp/clradix-broken-XXXXXX";
    make_broken_kernel_dir(dir);
    setenv("CLRADIX_KERNEL_DIR", dir, 1);
    setenv("CLRADIX_CACHE", "0", 1);
    uint64_t keys[4] = { 4, 3, 2, 1 };
    uint32_t values[4] = { 0 };
    ck_assert_int_eq(clradix_sort_keys_host(dev.sorter, NULL, CLRADIX_U64, keys, 4, NULL), CLRADIX_ERROR_BUILD_FAILED);
    const char *first = clradix_build_log(dev.sorter);
    ck_assert_ptr_nonnull(strstr(first, "error"));
    char *copy = strdup(first);
    ck_assert_int_eq(clradix_sort_pairs_host(dev.sorter, NULL, CLRADIX_U64, keys, values, 4, 4, NULL),
                     CLRADIX_ERROR_BUILD_FAILED);
    ck_assert_str_eq(first, copy);  /* still there (AddressSanitizer sees a freed log) */
    ck_assert_ptr_ne(clradix_build_log(dev.sorter), first);  /* the newer build's log */
    free(copy);
    unsetenv("CLRADIX_KERNEL_DIR");
    unsetenv("CLRADIX_CACHE");
    remove_folder(dir);
}
END_TEST

/* Temporaries larger than the keys, whose sizes pass what a 32-bit size_t holds before the
   keys' do (the test build narrows size_t to 256 KiB here, so that small arrays reach
   it): the engine's job lists (about 64 bytes per key with medium jobs of 256 keys), the
   top-k select's positions (4 bytes per 1-byte key). Refused as too large for the host,
   never allocated short; sorted once size_t is wide again. */
START_TEST(test_temporaries_that_wrap)
{
    const size_t n = 10000, n8 = 100000;
    close_dev();
    setenv("CLRADIX_TUNING", "STRATEGY=2,SMALL_N=64,MEDIUM_N=256", 1);
    open_dev(NULL);
    unsetenv("CLRADIX_TUNING");
    cl_int err;
    uint8_t *host = make_keys(CLRADIX_U8, DIST_RANDOM, 4 * n, 5);
    cl_mem keys = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * n, host, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint8_t *host8 = make_keys(CLRADIX_U8, DIST_RANDOM, n8, 6);
    cl_mem keys8 = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n8, host8, &err);
    cl_mem out = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 16, NULL, &err);
    for (int narrow = 1; narrow >= 0; --narrow) {
        clradix_testing_size_max(narrow ? 256 << 10 : 0);
        const clradix_status want = narrow ? CLRADIX_ERROR_OUT_OF_RESOURCES : CLRADIX_SUCCESS;
        ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, keys, n, NULL, 0, NULL, NULL), want);
        ck_assert_int_eq(clradix_topk(dev.sorter, dev.queue, CLRADIX_U8, keys8, n8, 16, out, NULL, 0, NULL, 0, NULL,
                                      NULL),
                         want);
        ck_assert_int_eq(clFinish(dev.queue), CL_SUCCESS);
    }
    uint32_t sorted[10000];
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, keys, CL_TRUE, 0, sizeof sorted, sorted, 0, NULL, NULL),
                     CL_SUCCESS);
    for (size_t i = 1; i < n; ++i)
        ck_assert_uint_le(sorted[i - 1], sorted[i]);
    clReleaseMemObject(keys);
    clReleaseMemObject(keys8);
    clReleaseMemObject(out);
    free(host);
    free(host8);
}
END_TEST

/* With a 32-bit size_t, n * 4 for n = 2^30 + 1 is 4: every call must see the overflow. */
START_TEST(test_sizes_that_wrap)
{
    const size_t n = ((size_t)1 << 30) + 1, n16 = ((size_t)1 << 28) + 1;
    cl_int err;
    cl_mem keys = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 64, NULL, &err),
           values = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    uint32_t host[16] = { 0 }, host_values[64] = { 0 };
    cl_event event = (cl_event)0x1;
    for (int narrow = 1; narrow >= 0; --narrow) {
        clradix_testing_size_max(narrow ? 0xFFFFFFFFu : 0);
        /* Narrowed: the overflow; not narrowed: buffers far too small. */
        const clradix_status device_status = narrow ? CLRADIX_ERROR_INVALID_ARGUMENT : CLRADIX_ERROR_INVALID_BUFFER;
        ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, keys, n, NULL, 0, NULL, &event),
                         device_status);
        ck_assert_int_eq(clradix_sort_pairs(dev.sorter, dev.queue, CLRADIX_U32, keys, values, 16, n16, NULL, 0, NULL,
                                            &event),
                         device_status);
        ck_assert_int_eq(clradix_argsort(dev.sorter, dev.queue, CLRADIX_U64, keys, values, 8, n / 2, NULL, 0, NULL,
                                         &event),
                         device_status);
        ck_assert_ptr_eq(event, (cl_event)0x1);
        if (narrow) {  /* host arrays: rejected before anything reads them */
            ck_assert_int_eq(clradix_sort_keys_host(dev.sorter, NULL, CLRADIX_U32, host, n, NULL),
                             CLRADIX_ERROR_INVALID_ARGUMENT);
            ck_assert_int_eq(clradix_sort_pairs_host(dev.sorter, NULL, CLRADIX_U32, host, host_values, 16, n16, NULL),
                             CLRADIX_ERROR_INVALID_ARGUMENT);
            ck_assert_int_eq(clradix_argsort_host(dev.sorter, NULL, CLRADIX_U64, host, host_values, 8, n / 2, NULL),
                             CLRADIX_ERROR_INVALID_ARGUMENT);
        }
    }
    clReleaseMemObject(keys);
    clReleaseMemObject(values);
}
END_TEST

/* Sorts on a device that reports what traits say: 32-bit keys, and 64-bit keys when want64. */
static void sorts_with_traits(const clradix_testing_traits *traits, clradix_status want64)
{
    clradix_testing_set_traits(traits);
    open_dev(NULL);
    char msg[256];
    const sort_call calls[] = { { API_HOST, SORT_KEYS, 0 }, { API_DEVICE, SORT_ARGSORT, 8 } };
    for (int c = 0; c < 2; ++c) {
        ck_assert_msg(!sort_case(&dev, &calls[c], CLRADIX_U32, DIST_RANDOM, 70001, NULL, 5, msg, sizeof msg), "%s",
                      msg);
        if (want64 == CLRADIX_SUCCESS)
            ck_assert_msg(!sort_case(&dev, &calls[c], CLRADIX_F64, DIST_RANDOM, 3001, NULL, 6, msg, sizeof msg), "%s",
                          msg);
        else
            ck_assert_int_eq(run_sort(&dev, &calls[c], CLRADIX_F64, (double[4]){ 0 }, (uint64_t[4]){ 0 }, 4, NULL),
                             want64);
    }
    close_dev();
    clradix_testing_set_traits(NULL);
}

START_TEST(test_more_work_item_dimensions)
{
    const clradix_testing_traits four = { .work_item_dimensions = 4 };
    sorts_with_traits(&four, CLRADIX_SUCCESS);
}
END_TEST

/* The embedded profile: 64-bit keys only with cles_khr_int64 (which the kernels enable). */
START_TEST(test_embedded_profile)
{
    const clradix_testing_traits without = { .embedded = 1 }, with = { .embedded = 2 };
    sorts_with_traits(&without, CLRADIX_ERROR_UNSUPPORTED);
    sorts_with_traits(&with, CLRADIX_SUCCESS);
}
END_TEST

/* A device that does not work in the host's memory (GPUs): host arrays go through copies,
   values staged until the keys are read (POCL's CPU device sorts them in place). */
START_TEST(test_discrete_device)
{
    const clradix_testing_traits discrete = { .discrete = 1 };
    clradix_testing_set_traits(&discrete);
    open_dev(NULL);
    char msg[256];
    const sort_call calls[] = { { API_HOST, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 8 }, { API_HOST, SORT_ARGSORT, 4 } };
    for (int c = 0; c < 3; ++c)
        ck_assert_msg(!sort_case(&dev, &calls[c], c == 1 ? CLRADIX_I64 : CLRADIX_F32, DIST_RANDOM, 150001, NULL, 7 + c,
                                 msg, sizeof msg), "call %d: %s", c, msg);
    close_dev();
    clradix_testing_set_traits(NULL);
}
END_TEST

/* A device of the other byte order: host arrays are refused untouched, device buffers sort. */
START_TEST(test_other_byte_order)
{
    const clradix_testing_traits big = { .big_endian = 1 };
    clradix_testing_set_traits(&big);
    open_dev(NULL);
    uint32_t keys[3] = { 3, 1, 2 }, indices[3] = { 7, 7, 7 };
    ck_assert_int_eq(clradix_sort_keys_host(dev.sorter, NULL, CLRADIX_U32, keys, 3, NULL), CLRADIX_ERROR_UNSUPPORTED);
    ck_assert_int_eq(clradix_argsort_host(dev.sorter, NULL, CLRADIX_U32, keys, indices, 4, 3, NULL),
                     CLRADIX_ERROR_UNSUPPORTED);
    ck_assert(keys[0] == 3 && keys[1] == 1 && keys[2] == 2 && indices[0] == 7);
    const sort_call device_pairs = { API_DEVICE, SORT_PAIRS, 8 };
    char msg[256];
    ck_assert_msg(!sort_case(&dev, &device_pairs, CLRADIX_I32, DIST_RANDOM, 5000, NULL, 8, msg, sizeof msg), "%s", msg);
    close_dev();
    clradix_testing_set_traits(NULL);
}
END_TEST

/* A full program cache whose kernels cannot be made: the sorter compiles instead. */
START_TEST(test_cache_entry_without_kernels)
{
    char dir[] = "/tmp/clradix-cache-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("CLRADIX_CACHE_DIR", dir, 1);
    setenv("CLRADIX_CACHE", "1", 1);  /* also on POCL, where it is off by default */
    clradix_sorter *sorter;
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_SUCCESS);  /* fills the cache */
    clradix_sorter_release(sorter);
    clradix_testing_count_only("clCreateKernel");
    clradix_testing_fail_at(0);
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_SUCCESS);
    const unsigned long kernels = clradix_testing_calls();
    clradix_sorter_release(sorter);
    ck_assert_uint_ge(kernels, 8);
    for (unsigned long k = 1; k <= kernels; ++k) {
        clradix_testing_fail_at(k);
        const clradix_status status = clradix_sorter_create(NULL, NULL, &sorter);
        clradix_testing_fail_at(0);
        ck_assert_msg(status == CLRADIX_SUCCESS, "kernel %lu of a cached program failed: %s", k,
                      clradix_status_string(status));
        uint32_t keys[4] = { 3, 0, 2, 1 };
        ck_assert_int_eq(clradix_sort_keys_host(sorter, NULL, CLRADIX_U32, keys, 4, NULL), CLRADIX_SUCCESS);
        ck_assert(keys[0] == 0 && keys[1] == 1 && keys[2] == 2 && keys[3] == 3);
        clradix_sorter_release(sorter);
    }
    clradix_testing_count_only(NULL);
    unsetenv("CLRADIX_CACHE_DIR");
    unsetenv("CLRADIX_CACHE");
    remove_folder(dir);
}
END_TEST

/* A program built against version 1.0's header has a clradix_tuning of eight unsigned
   fields: nothing may be written past them. */
START_TEST(test_tuning_struct_of_version_1_0)
{
    struct {
        unsigned fields[8];
        unsigned char guard[64];
    } old;
    memset(&old, 0xA5, sizeof old);
    ck_assert_int_eq(clradix_sorter_tuning(dev.sorter, (clradix_tuning *)&old), CLRADIX_SUCCESS);
    for (size_t i = 0; i < sizeof old.guard; ++i)
        ck_assert_uint_eq(old.guard[i], 0xA5);
    clradix_tuning used;
    clradix_sorter_tuning(dev.sorter, &used);
    ck_assert_uint_eq(old.fields[0], used.radix_bits);
    ck_assert_uint_eq(old.fields[7], used.small_n);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hardening");
    TCase *tc = tcase_create("hardening");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_build_does_not_stall_sorts);
    tcase_add_test(tc, test_build_log_stays_valid);
    tcase_add_test(tc, test_sizes_that_wrap);
    tcase_add_test(tc, test_temporaries_that_wrap);
    tcase_add_test(tc, test_tuning_struct_of_version_1_0);
    suite_add_tcase(s, tc);

    TCase *device = tcase_create("device traits");  /* each opens its own sorter */
    tcase_set_timeout(device, 300);
    tcase_add_test(device, test_more_work_item_dimensions);
    tcase_add_test(device, test_embedded_profile);
    tcase_add_test(device, test_other_byte_order);
    tcase_add_test(device, test_discrete_device);
    tcase_add_test(device, test_cache_entry_without_kernels);
    suite_add_tcase(s, device);
    return run_device_suite(s, "test_hardening");
}
