/*
 * Host-array sorts larger than the device takes at once (src/outofcore.c), forced at small
 * sizes by clradix_sorter_set_memory_limit, and past the kernels' 32-bit offsets by the
 * test build's lower in-core limit: every key type, keys, pairs and argsort, both
 * directions, bit ranges, distributions that put every key in one bucket level after
 * level; the memory limit's contract; faults along the way, out of core and on two
 * sorters, which must leave the arrays untouched or sorted; and, opt-in, 2^32 + 17 keys.
 */
#define _GNU_SOURCE  /* pthread_setattr_default_np */
#include "testing.h"
#include "testutil.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(void) { open_dev(NULL); }

static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_U64, CLRADIX_I64,
                                          CLRADIX_F64, CLRADIX_U8,  CLRADIX_I8,  CLRADIX_U16, CLRADIX_I16,
                                          CLRADIX_F16, CLRADIX_BF16, CLRADIX_F64_NUMPY, CLRADIX_F16_NUMPY };
/* Random, few values, all equal, one bucket holding every key at every level but the last
   (bottom-digit), presorted both ways; 8- and 16-bit keys and numpy's order the first
   NARROW_DISTS. */
static const dist dists[] = { DIST_RANDOM, DIST_SIXTEEN, DIST_EQUAL, DIST_BOTTOM_DIGIT, DIST_SORTED, DIST_REVERSE };
static const sort_call calls[] = { { API_HOST, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 4 },
                                   { API_HOST, SORT_PAIRS, 8 }, { API_HOST, SORT_PAIRS, 16 },
                                   { API_HOST, SORT_ARGSORT, 4 }, { API_HOST, SORT_ARGSORT, 8 } };
enum { TYPES = 14, WIDE_TYPES = 6, DISTS = 6, NARROW_DISTS = 2, CALLS = 6 };
enum { CASES = WIDE_TYPES * DISTS + (TYPES - WIDE_TYPES) * NARROW_DISTS };
enum { REPEAT_DISTS = 3 };  /* a repeat run: random, few values, all equal */

/* Test _i: a type and distribution, 2^18 keys under a 256 KiB limit (a quarter of the
   32-bit keys); the call, direction and bit range rotate. */
START_TEST(test_out_of_core)
{
    const int dists_run = test_full_scope() ? DISTS : REPEAT_DISTS;
    const int wide = _i < WIDE_TYPES * dists_run, j = wide ? _i : _i - WIDE_TYPES * dists_run;
    const clradix_key_type type = wide ? types[j / dists_run] : types[WIDE_TYPES + j / NARROW_DISTS];
    const dist d = dists[wide ? j % dists_run : j % NARROW_DISTS];
    const unsigned w = key_bytes_of(type) * 8;
    const clradix_options options[] = { { 0 }, { 0, 0, 1 }, { 3, w - 5, 0 }, { w / 2, w, 1 } };
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, 256 * 1024), CLRADIX_SUCCESS);
    char msg[256], name[64];
    for (int k = 0; k < 2; ++k) {
        const sort_call *call = &calls[(_i + k) % CALLS];
        const clradix_options *o = &options[(_i + 2 * k) % 4];
        const int failed = sort_case(&dev, call, type, d, (size_t)1 << 18, o, 900 + _i * 2 + k, msg, sizeof msg);
        ck_assert_msg(!failed, "type %d dist %s %s bits [%u, %u) %s: %s", type, dist_name(d),
                      sort_call_name(call, name, sizeof name), o->begin_bit, o->end_bit ? o->end_bit : w,
                      o->descending ? "descending" : "ascending", msg);
    }
}
END_TEST

/* More keys than one in-core sort takes (lowered from 2^32 - 1 to 2^16 here): the code
   past the kernels' 32-bit offsets, without 16 GiB of keys. Then 2^22 keys under 4 MiB. */
START_TEST(test_more_keys_than_offsets)
{
    static const struct { clradix_key_type type; sort_call call; size_t n, limit; } cases[] = {
        { CLRADIX_U32, { API_HOST, SORT_PAIRS, 4 }, ((size_t)1 << 20) + 17, 0 },
        { CLRADIX_F64, { API_HOST, SORT_ARGSORT, 8 }, ((size_t)1 << 20) + 17, 0 },
        { CLRADIX_I64, { API_HOST, SORT_KEYS, 0 }, ((size_t)1 << 20) + 17, 0 },
        { CLRADIX_U32, { API_HOST, SORT_KEYS, 0 }, (size_t)1 << 22, 4u << 20 },
    };
    char msg[256];
    clradix_testing_max_keys_in_core((size_t)1 << 16);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, cases[c].limit), CLRADIX_SUCCESS);
        const int failed = sort_case(&dev, &cases[c].call, cases[c].type, DIST_RANDOM, cases[c].n, NULL, 31 + c, msg,
                                     sizeof msg);
        ck_assert_msg(!failed, "case %zu: %s", c, msg);
    }
    clradix_testing_max_keys_in_core(0);
}
END_TEST

/* The limit's contract: device-buffer calls whose temporaries do not fit are refused with
   nothing changed; a limit too small for any bucket refuses host calls untouched; 0 lifts
   it; a NULL sorter is an invalid argument. */
START_TEST(test_memory_limit)
{
    ck_assert_int_eq(clradix_sorter_set_memory_limit(NULL, 1), CLRADIX_ERROR_INVALID_ARGUMENT);
    const size_t n = 300000;  /* past the one-launch size: temporaries of about n keys */
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 5), *copy = malloc(n * 4);
    memcpy(copy, keys, n * 4);
    cl_int err;
    cl_mem buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, keys, &err);
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, n), CLRADIX_SUCCESS);  /* a quarter of the keys */
    cl_event event = (cl_event)0x1;
    ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_ERROR_OUT_OF_RESOURCES);
    ck_assert_ptr_eq(event, (cl_event)0x1);
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, 1), CLRADIX_SUCCESS);
    ck_assert_int_eq(clradix_sort_keys_host(dev.sorter, NULL, CLRADIX_U32, keys, n, NULL),
                     CLRADIX_ERROR_OUT_OF_RESOURCES);
    ck_assert_mem_eq(keys, copy, n * 4);
    ck_assert_int_eq(clFinish(dev.queue), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, buffer, CL_TRUE, 0, n * 4, keys, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_mem_eq(keys, copy, n * 4);  /* the refused device call changed nothing */
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, 0), CLRADIX_SUCCESS);
    ck_assert_int_eq(clradix_sort_keys(dev.sorter, dev.queue, CLRADIX_U32, buffer, n, NULL, 0, NULL, &event),
                     CLRADIX_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &event), CL_SUCCESS);
    clReleaseEvent(event);
    clReleaseMemObject(buffer);
    free(keys);
    free(copy);
}
END_TEST

/* An input of keys (and values: none when value_size is 0), the arrays a call sorts, and
   the oracle's order. */
typedef struct data {
    clradix_key_type type;
    size_t n, value_size;
    void *in, *in_values, *keys, *values;
    size_t *perm;
} data;

static data data_make(clradix_key_type type, dist d, size_t n, size_t value_size, uint64_t seed)
{
    data x = { type, n, value_size, make_keys(type, d, n, seed), value_size ? make_values(value_size, n) : NULL,
               malloc(n * key_bytes_of(type)), value_size ? malloc(n * value_size) : NULL, NULL };
    x.perm = oracle_order(type, x.in, n, NULL);
    return x;
}

/* The arrays back to the input. */
static void data_reset(const data *x)
{
    memcpy(x->keys, x->in, x->n * key_bytes_of(x->type));
    if (x->value_size)
        memcpy(x->values, x->in_values, x->n * x->value_size);
}

static int data_untouched(const data *x)
{
    return !memcmp(x->keys, x->in, x->n * key_bytes_of(x->type))
        && (!x->value_size || !memcmp(x->values, x->in_values, x->n * x->value_size));
}

/* 0 when the arrays hold the stable sort of the input, else 1 with msg filled. */
static int data_unsorted(const data *x, char *msg, size_t msg_size)
{
    return check_sorted(x->type, x->in, x->keys, x->in_values, x->values, x->value_size, x->n, x->perm, msg,
                        msg_size);
}

static void data_free(data *x)
{
    free(x->in);
    free(x->in_values);
    free(x->keys);
    free(x->values);
    free(x->perm);
}

/* Every counted call of a sort by parts fails in turn, out of core on one sorter (two
   buckets, each sorted in core) and shared by two sorters of one device: an error, and
   the arrays untouched; or success, and sorted. */
START_TEST(test_faults_by_parts)
{
    const size_t n = 3000;
    data x = data_make(CLRADIX_U32, DIST_TWO, n, 4, 8);
    clradix_sorter *second;
    ck_assert_int_eq(clradix_sorter_create(dev.context, dev.device, &second), CLRADIX_SUCCESS);
    clradix_sorter *const both[2] = { dev.sorter, second };
    for (int i = 0; i < 2; ++i)  /* 24 KB in core: by parts on both (a device that took it all would sort it alone) */
        ck_assert_int_eq(clradix_sorter_set_memory_limit(both[i], 16 * 1024), CLRADIX_SUCCESS);
    char msg[256];
    for (int multi = 0; multi < 2; ++multi) {
        unsigned long calls = 0;
        unsigned errors = 0;
        for (unsigned long k = 0; k == 0 || k <= calls; ++k) {
            data_reset(&x);
            clradix_testing_fail_at(k);
            const clradix_status status = multi
                ? clradix_sort_pairs_host_multi(both, 2, CLRADIX_U32, x.keys, x.values, 4, n, NULL)
                : clradix_sort_pairs_host(dev.sorter, NULL, CLRADIX_U32, x.keys, x.values, 4, n, NULL);
            if (k == 0)
                calls = clradix_testing_calls();
            clradix_testing_fail_at(0);
            const int untouched = data_untouched(&x), sorted = !data_unsorted(&x, msg, sizeof msg);
            ck_assert_msg(status == CLRADIX_SUCCESS ? sorted : untouched, "%s fault %lu of %lu: %s, arrays %s",
                          multi ? "multi" : "out of core", k, calls, clradix_status_string(status),
                          untouched ? "untouched" : sorted ? "sorted" : "BROKEN");
            errors += status != CLRADIX_SUCCESS;
        }
        printf("%s: %lu faults, %u errors reported, the arrays untouched by each\n",
               multi ? "two sorters" : "out of core", calls, errors);
        ck_assert_uint_gt(calls, 10);
        ck_assert_uint_gt(errors, 0);
    }
    clradix_sorter_release(second);
    data_free(&x);
}
END_TEST

/* Everything the library has on the device at once (its buffers, counted by the test
   build: workers' in-core sorts, the temporaries its pool keeps) stays within the sorter's
   memory limit: host sorts by parts of random and skewed keys, keys and pairs, on one
   sorter and shared by the same sorter twice (four workers). */
START_TEST(test_limit_holds_at_once)
{
    static const struct { clradix_key_type type; dist d; size_t value_size; } cases[] = {
        { CLRADIX_U32, DIST_RANDOM, 0 },      { CLRADIX_U32, DIST_RANDOM, 4 }, { CLRADIX_U64, DIST_LOW_ENTROPY, 0 },
        { CLRADIX_F32, DIST_SIXTEEN, 8 },     { CLRADIX_U32, DIST_TWO, 4 },
    };
    const size_t n = (size_t)1 << 18;
    clradix_sorter *const twice[2] = { dev.sorter, dev.sorter };
    char msg[256];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int share = 0; share < 2; ++share)
            for (size_t fraction = 4; fraction <= 16; fraction *= 4) {
                const clradix_key_type type = cases[c].type;
                const size_t vs = cases[c].value_size, limit = n * (key_bytes_of(type) + vs) / fraction;
                data x = data_make(type, cases[c].d, n, vs, 70 + c);
                data_reset(&x);
                ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, limit), CLRADIX_SUCCESS);
                size_t now, peak;
                clradix_testing_device_bytes(&now, &peak, 1);
                const clradix_status status =
                    share ? (vs ? clradix_sort_pairs_host_multi(twice, 2, type, x.keys, x.values, vs, n, NULL)
                                : clradix_sort_keys_host_multi(twice, 2, type, x.keys, n, NULL))
                          : (vs ? clradix_sort_pairs_host(dev.sorter, NULL, type, x.keys, x.values, vs, n, NULL)
                                : clradix_sort_keys_host(dev.sorter, NULL, type, x.keys, n, NULL));
                ck_assert_int_eq(status, CLRADIX_SUCCESS);
                clradix_testing_device_bytes(&now, &peak, 0);
                ck_assert_msg(peak <= limit, "case %zu %s, limit 1/%zu of the data: %zu bytes on the device at once, "
                              "limit %zu", c, share ? "shared" : "alone", fraction, peak, limit);
                ck_assert_msg(!data_unsorted(&x, msg, sizeof msg), "case %zu: %s", c, msg);
                data_free(&x);
            }
}
END_TEST

/* Skewed keys with values (90 % of them one value, the rest random: the bucket of that
   value partitioned again and again beside the others' runs) under limits a little above
   and below the data: the most on the device at once stays within the limit. */
START_TEST(test_limit_holds_under_skew)
{
    const size_t n = (size_t)1 << 20;
    data x = data_make(CLRADIX_U32, DIST_RANDOM, n, 4, 14);
    uint32_t *in = x.in;
    for (size_t i = 0; i < n; ++i)
        if (in[i] % 10 != 0)
            in[i] = 0x12345678u;
    free(x.perm);
    x.perm = oracle_order(CLRADIX_U32, x.in, n, NULL);
    static const size_t limits[] = { 13000000, 8000000, 4000000 };
    char msg[256];
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; ++l) {
        data_reset(&x);
        ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, limits[l]), CLRADIX_SUCCESS);
        size_t now, peak;
        clradix_testing_device_bytes(&now, &peak, 1);
        ck_assert_int_eq(clradix_sort_pairs_host(dev.sorter, NULL, CLRADIX_U32, x.keys, x.values, 4, n, NULL),
                         CLRADIX_SUCCESS);
        clradix_testing_device_bytes(&now, &peak, 0);
        printf("skewed keys under %zu bytes: %zu at most\n", limits[l], peak);
        ck_assert_msg(peak <= limits[l], "limit %zu: %zu bytes on the device at once", limits[l], peak);
        ck_assert_msg(!data_unsorted(&x, msg, sizeof msg), "limit %zu: %s", limits[l], msg);
    }
    data_free(&x);
}
END_TEST

/* A host sort whose in-core attempt cannot allocate one of its buffers (the device had
   less memory than it said), all of which come before its first command, sorts by parts
   instead: on a device that works in the host's memory (buffers over the arrays) and on
   one with memory of its own (copies); with the device's own row past its one-launch size
   (temporaries of the engine) and by LSD passes (the pass's). */
START_TEST(test_in_core_falls_back_by_parts)
{
    const size_t n = 70000;
    data x = data_make(CLRADIX_U32, DIST_RANDOM, n, 4, 9);
    char msg[256];
    for (int discrete = 0; discrete < 2; ++discrete)
        for (int lsd = 0; lsd < 2; ++lsd) {
            unsigned long buffers = 0;  /* what the in-core sort makes: counted by the attempt without a fault */
            for (unsigned long k = 0; k == 0 || k <= buffers; ++k) {
                const clradix_testing_traits traits = { .discrete = discrete };
                clradix_testing_set_traits(&traits);
                if (lsd)
                    setenv("CLRADIX_TUNING", "STRATEGY=1", 1);
                test_device t;
                ck_assert_int_eq(test_device_open(&t, NULL), CLRADIX_SUCCESS);
                unsetenv("CLRADIX_TUNING");
                clradix_testing_set_traits(NULL);
                data_reset(&x);
                clradix_testing_count_only("clCreateBuffer");
                clradix_testing_fail_at(k);
                const clradix_status status =
                    clradix_sort_pairs_host(t.sorter, NULL, CLRADIX_U32, x.keys, x.values, 4, n, NULL);
                const unsigned long made = clradix_testing_calls();
                clradix_testing_fail_at(0);
                clradix_testing_count_only(NULL);
                if (k == 0)
                    buffers = made;
                ck_assert_msg(status == CLRADIX_SUCCESS, "discrete %d, lsd %d, buffer %lu of %lu failing: %s",
                              discrete, lsd, k, buffers, clradix_status_string(status));
                if (k > 0)
                    ck_assert_uint_gt(made, buffers);  /* the failed one, then the sort by parts' */
                ck_assert_msg(!data_unsorted(&x, msg, sizeof msg), "discrete %d, lsd %d, buffer %lu: %s", discrete,
                              lsd, k, msg);
                test_device_close(&t);
            }
            ck_assert_uint_ge(buffers, 3);  /* keys, values, temporaries */
        }
    data_free(&x);
}
END_TEST

/* Segmented host sorts whose one large segment goes by parts (a quarter of its keys fit the
   device), next to empty segments before, after and around it: keys, pairs and argsort as
   the oracle, nothing outside the segments written. */
START_TEST(test_empty_segments_by_parts)
{
    const size_t n = (size_t)1 << 17;
    static const size_t counts[] = { 2, 2, 3, 5, 4 };
    const size_t lengths[][5] = { { 0, n }, { n, 0 }, { 0, n, 0 }, { 0, 0, n, 0, 0 }, { 7, 0, n - 7, 0 } };
    static const sort_call calls[] = { { API_HOST, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 4 },
                                       { API_HOST, SORT_ARGSORT, 4 } };
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, n), CLRADIX_SUCCESS);
    char msg[256], name[64];
    for (size_t p = 0; p < sizeof counts / sizeof counts[0]; ++p)
        for (int c = 0; c < 3; ++c) {
            const int failed = segments_case(&dev, &calls[c], CLRADIX_U32, DIST_RANDOM, lengths[p], counts[p], 0, 0,
                                             NULL, 40 + p, NULL, msg, sizeof msg);
            ck_assert_msg(!failed, "lengths %zu, %s: %s", p, sort_call_name(&calls[c], name, sizeof name), msg);
        }
}
END_TEST

/* A sort by parts of x under dev's limit, on a thread of its own. */
static void *sort_by_parts_thread(void *arg)
{
    const data *x = arg;
    return (void *)(intptr_t)clradix_sort_pairs_host(dev.sorter, NULL, x->type, x->keys, x->values, x->value_size,
                                                     x->n, NULL);
}

/* A sort by parts whose threads have stacks of 128 KiB (musl's default for threads, or a
   small `ulimit -s`): the caller's, the workers' and the partition's (the process's
   default, which the library's threads get). 64-bit keys with 16-byte values whose every
   key falls in one bucket level after level: partitions within partitions. (Its programs
   and POCL's threads are made first, with the stacks they like.) */
START_TEST(test_small_thread_stacks)
{
    const size_t n = (size_t)1 << 16, small = 128 << 10;
    data x = data_make(CLRADIX_U64, DIST_BOTTOM_DIGIT, n, 16, 13);
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, n * 24 / 8), CLRADIX_SUCCESS);
    char msg[256];
    pthread_attr_t attr;
    ck_assert_int_eq(pthread_getattr_default_np(&attr), 0);
    for (int stacks = 0; stacks < 2; ++stacks) {  /* the usual ones, then the small ones */
        data_reset(&x);
        ck_assert_int_eq(pthread_attr_setstacksize(&attr, stacks ? small : 8 << 20), 0);
        ck_assert_int_eq(pthread_setattr_default_np(&attr), 0);
        pthread_t id;
        void *status;
        ck_assert_int_eq(pthread_create(&id, &attr, sort_by_parts_thread, &x), 0);
        ck_assert_int_eq(pthread_join(id, &status), 0);
        ck_assert_int_eq((clradix_status)(intptr_t)status, CLRADIX_SUCCESS);
        ck_assert_msg(!data_unsorted(&x, msg, sizeof msg), "stacks of %zu bytes: %s", stacks ? small : 8 << 20, msg);
    }
    pthread_attr_destroy(&attr);
    data_free(&x);
}
END_TEST

/* Two top-k host calls at once on one sorter: rows x length u32 keys, k per row. */
typedef struct topk_thread {
    const uint32_t *keys;
    size_t rows, length, k;
    uint32_t *out_keys, *out_indices;
    clradix_status status;
} topk_thread;

static void *topk_rows_thread(void *arg)
{
    topk_thread *t = arg;
    t->status = clradix_topk_rows_host(dev.sorter, NULL, CLRADIX_U32, t->keys, t->rows, t->length, t->k, t->out_keys,
                                       t->out_indices, 4, NULL);
    return NULL;
}

/* 0 when out holds the first k keys and positions of each row's stable sort. */
static int topk_wrong(const uint32_t *keys, size_t rows, size_t length, size_t k, const uint32_t *out_keys,
                      const uint32_t *out_indices)
{
    int wrong = 0;
    for (size_t row = 0; row < rows && !wrong; ++row) {
        size_t *perm = oracle_order(CLRADIX_U32, keys + row * length, length, NULL);
        for (size_t j = 0; j < k && !wrong; ++j)
            wrong = out_indices[row * k + j] != perm[j] || out_keys[row * k + j] != keys[row * length + perm[j]];
        free(perm);
    }
    return wrong;
}

/* Top-k host calls keep within the sorter's memory limit (device buffers counted by the
   test build), everything a call holds at once included (the keys and outputs, the
   select's or the full sort's temporaries, the sort inside): flat by a full argsort
   (TOPK_SORT=4, k = n) under a limit it fits only in part (refused, outputs untouched, or
   within it), and by rows from two threads under a limit that holds one call and not
   two (the second waits). */
START_TEST(test_topk_within_limit)
{
    const size_t n = (size_t)1 << 20;
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, n, 12);
    uint32_t *out[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            out[i][j] = malloc(n * sizeof(uint32_t));
    size_t now, peak;

    close_dev();
    setenv("CLRADIX_TUNING", "TOPK_SORT=4", 1);
    open_dev(NULL);
    unsetenv("CLRADIX_TUNING");
    const size_t limit = 24u << 20;
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, limit), CLRADIX_SUCCESS);
    memset(out[0][0], 0xAB, n * sizeof(uint32_t));
    clradix_testing_device_bytes(&now, &peak, 1);
    clradix_status status = clradix_topk_host(dev.sorter, NULL, CLRADIX_U32, keys, n, n, out[0][0], out[0][1], 4, NULL);
    clradix_testing_device_bytes(&now, &peak, 0);
    ck_assert_msg(peak <= limit, "flat top-k: %zu bytes on the device at once, limit %zu", peak, limit);
    if (status == CLRADIX_SUCCESS) {
        ck_assert(!topk_wrong(keys, 1, n, n, out[0][0], out[0][1]));
    } else {
        ck_assert_int_eq(status, CLRADIX_ERROR_OUT_OF_RESOURCES);
        for (size_t i = 0; i < n; ++i)
            ck_assert_uint_eq(out[0][0][i], 0xABABABABu);
    }
    printf("top-k of %zu keys, k = n, under %zu bytes: %s, %zu bytes at most\n", n, limit,
           clradix_status_string(status), peak);

    /* Rows: what one call holds, then two calls under one and a half of it. */
    const size_t rows = 1024, length = n / rows, k = 512;
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, 0), CLRADIX_SUCCESS);
    clradix_testing_device_bytes(&now, &peak, 1);
    ck_assert_int_eq(clradix_topk_rows_host(dev.sorter, NULL, CLRADIX_U32, keys, rows, length, k, out[0][0], out[0][1],
                                            4, NULL),
                     CLRADIX_SUCCESS);
    clradix_testing_device_bytes(&now, &peak, 0);
    const size_t one = peak, shared = one + one / 2;
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, shared), CLRADIX_SUCCESS);
    clradix_testing_device_bytes(&now, &peak, 1);
    topk_thread t[2];
    pthread_t ids[2];
    for (int i = 0; i < 2; ++i) {
        t[i] = (topk_thread){ keys, rows, length, k, out[i][0], out[i][1], CLRADIX_ERROR_OPENCL };
        ck_assert_int_eq(pthread_create(&ids[i], NULL, topk_rows_thread, &t[i]), 0);
    }
    for (int i = 0; i < 2; ++i)
        pthread_join(ids[i], NULL);
    clradix_testing_device_bytes(&now, &peak, 0);
    for (int i = 0; i < 2; ++i) {
        ck_assert_msg(t[i].status == CLRADIX_SUCCESS, "thread %d: %s", i, clradix_status_string(t[i].status));
        ck_assert(!topk_wrong(keys, rows, length, k, out[i][0], out[i][1]));
    }
    ck_assert_msg(peak <= shared, "two top-k by rows: %zu bytes on the device at once, limit %zu (one: %zu)", peak,
                  shared, one);
    printf("two top-k by rows at once: %zu bytes at most, limit %zu, one alone %zu\n", peak, shared, one);
    free(keys);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            free(out[i][j]);
}
END_TEST

/* Opt-in (CLRADIX_TEST_HUGE=1, about 40 GiB of memory): 2^32 + 17 u32 keys, past the
   kernels' 32-bit offsets for real; checked in order and as the same multiset. */
START_TEST(test_huge)
{
    const size_t n = ((size_t)1 << 32) + 17;
    uint32_t *keys = malloc(n * sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    uint64_t state = 3, sum_in = 0, sum_out = 0, mix_in = 0, mix_out = 0;
    for (size_t i = 0; i < n; ++i) {
        keys[i] = (uint32_t)rng_next(&state);
        sum_in += keys[i];
        mix_in ^= keys[i] * 0x9E3779B97F4A7C15ull;
    }
    ck_assert_int_eq(clradix_sort_keys_host(dev.sorter, NULL, CLRADIX_U32, keys, n, NULL), CLRADIX_SUCCESS);
    for (size_t i = 0; i < n; ++i) {
        ck_assert(i == 0 || keys[i - 1] <= keys[i]);
        sum_out += keys[i];
        mix_out ^= keys[i] * 0x9E3779B97F4A7C15ull;
    }
    ck_assert(sum_in == sum_out && mix_in == mix_out);
    free(keys);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("outofcore");
    TCase *tc = tcase_create("outofcore");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_out_of_core, 0,
                        test_full_scope() ? CASES : WIDE_TYPES * REPEAT_DISTS + (TYPES - WIDE_TYPES) * NARROW_DISTS);
    tcase_add_test(tc, test_more_keys_than_offsets);
    tcase_add_test(tc, test_memory_limit);
    tcase_add_test(tc, test_faults_by_parts);
    tcase_add_test(tc, test_limit_holds_at_once);
    tcase_add_test(tc, test_limit_holds_under_skew);
    tcase_add_test(tc, test_in_core_falls_back_by_parts);
    tcase_add_test(tc, test_empty_segments_by_parts);
    tcase_add_test(tc, test_topk_within_limit);
    tcase_add_test(tc, test_small_thread_stacks);
    suite_add_tcase(s, tc);
    const char *huge = getenv("CLRADIX_TEST_HUGE");
    if (huge && !strcmp(huge, "1")) {
        TCase *big = tcase_create("huge");
        tcase_add_checked_fixture(big, setup, close_dev);
        tcase_set_timeout(big, 7200);
        tcase_add_test(big, test_huge);
        suite_add_tcase(s, big);
    } else {
        fprintf(stderr, "test_outofcore: the sort of 2^32 + 17 keys is opt-in (CLRADIX_TEST_HUGE=1, ~40 GiB)\n");
    }
    return run_device_suite(s, "test_outofcore");
}
