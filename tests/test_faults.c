/*
 * With the test build of the library (testing.h): every fallible call a sort makes fails
 * in turn, and the call must report it and leave the caller's data untouched, fully
 * sorted, or (after work was enqueued) a permutation of the input with every key still
 * paired with its value; and the sorter must go on sorting. Then small device limits
 * (oclgrind's 32 KiB of local memory, 128 work-items) must still give correct sorts.
 * Leaks on these paths are left to the sanitizer job, which runs this suite too.
 */
#include "testing.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum outcome { UNTOUCHED, SORTED, PERMUTED, BROKEN, OUTCOMES } outcome;
static const char *const outcome_names[OUTCOMES] = { "untouched", "sorted", "permuted", "BROKEN" };

typedef struct scenario {
    const char *name;
    api_flavour api;
    sort_kind kind;
    clradix_key_type type;
    size_t value_size, n;
    int lsd;  /* LSD passes in the shape of test_sort's radix5 row; else the device's own row */
} scenario;

/* Each path with few enough keys for quick iterations: on the device's own row (a CPU's)
   the engine (partition first, n past its one-launch limit of 2^16) and the one-launch
   kernel; LSD passes over many tiles and groups in 5-bit digits. Their kernel variants
   are those the main suite compiles (test_sort), so that a cold run compiles nothing more. */
static const scenario scenarios[] = {
    { "engine keys", API_DEVICE, SORT_KEYS, CLRADIX_U32, 0, 70000, 0 },
    { "lsd pairs", API_DEVICE, SORT_PAIRS, CLRADIX_I32, 4, 5000, 1 },
    { "engine argsort", API_DEVICE, SORT_ARGSORT, CLRADIX_F32, 4, 70000, 0 },
    { "lsd host pairs", API_HOST, SORT_PAIRS, CLRADIX_U32, 4, 5000, 1 },
    { "engine host keys", API_HOST, SORT_KEYS, CLRADIX_F64, 0, 70000, 0 },
    { "one launch", API_DEVICE, SORT_PAIRS, CLRADIX_U32, 4, 1000, 0 },
};
enum { SCENARIOS = sizeof scenarios / sizeof scenarios[0] };

static void open_scenario(const scenario *s)
{
    static const clradix_tuning radix5 = { .radix_bits = 5, .work_group_size = 4, .keys_per_item = 16,
                                           .rank_bits = 3, .hist_copies = 2, .fused = 2, .groups_per_unit = 3,
                                           .small_n = 1 };
    if (!s->lsd) {
        open_dev(NULL);
        return;
    }
    setenv("CLRADIX_TUNING", "STRATEGY=1", 1);
    open_dev(&radix5);
    unsetenv("CLRADIX_TUNING");
}

static size_t index_at(const void *values, size_t size, size_t i)
{
    return size == 4 ? ((const uint32_t *)values)[i] : (size_t)((const uint64_t *)values)[i];
}

/* What the call left: values hold each key's input index (pairs), argsort's output the
   indices; keys and in_keys are the data after and before. */
static outcome judge(const scenario *s, const void *in_keys, const void *keys, const void *values,
                     const void *in_values, const size_t *perm)
{
    const unsigned bytes = key_bytes_of(s->type);
    const size_t n = s->n, key_size = n * bytes;
    if (s->kind == SORT_ARGSORT) {
        if (memcmp(in_keys, keys, key_size))
            return BROKEN;  /* argsort never writes the keys */
        if (!memcmp(values, in_values, n * s->value_size))
            return UNTOUCHED;
    } else if (!memcmp(in_keys, keys, key_size) && (!values || !memcmp(in_values, values, n * s->value_size))) {
        return UNTOUCHED;
    }
    int sorted = 1;
    for (size_t i = 0; i < n; ++i)
        sorted &= s->kind == SORT_ARGSORT ? index_at(values, s->value_size, i) == perm[i]
                                          : get_key(keys, bytes, i) == get_key(in_keys, bytes, perm[i]);
    if (sorted && s->kind == SORT_PAIRS)
        for (size_t i = 0; i < n; ++i)
            sorted &= index_at(values, s->value_size, i) == perm[i];
    if (sorted)
        return SORTED;
    if (s->kind == SORT_KEYS) {  /* a permutation: the same keys, sorted */
        size_t *order = oracle_order(s->type, keys, n, NULL);
        int same = 1;
        for (size_t i = 0; i < n && same; ++i)
            same = get_key(keys, bytes, order[i]) == get_key(in_keys, bytes, perm[i]);
        free(order);
        return same ? PERMUTED : BROKEN;
    }
    /* Pairs and argsort: every index once, each key still with its index. */
    unsigned char *seen = calloc(n, 1);
    outcome o = PERMUTED;
    for (size_t i = 0; i < n && o == PERMUTED; ++i) {
        const size_t from = index_at(values, s->value_size, i);
        if (from >= n || seen[from] || (s->kind == SORT_PAIRS && get_key(keys, bytes, i) != get_key(in_keys, bytes, from)))
            o = BROKEN;
        else
            seen[from] = 1;
    }
    free(seen);
    return o;
}

/* Values holding their own index, as 4 or 8 bytes. */
static void *index_values(size_t size, size_t n)
{
    void *v = malloc(n * size);
    for (size_t i = 0; i < n; ++i) {
        if (size == 4)
            ((uint32_t *)v)[i] = (uint32_t)i;
        else
            ((uint64_t *)v)[i] = i;
    }
    return v;
}

/* Runs scenario s with the N-th counted call failing (0: none); returns the status,
   judges what it left in *left, and counts the calls it made in *calls (if not NULL). */
static clradix_status run_faulty(const scenario *s, unsigned long fail_at, outcome *left, unsigned long *calls)
{
    const size_t key_size = s->n * key_bytes_of(s->type);
    void *in_keys = make_keys(s->type, DIST_RANDOM, s->n, 11), *keys = malloc(key_size);
    void *in_values = s->value_size ? index_values(s->value_size, s->n) : NULL;
    void *values = s->value_size ? malloc(s->n * s->value_size) : NULL;
    if (s->kind == SORT_ARGSORT)  /* argsort output starts as something else than indices */
        memset(in_values, 0xEE, s->n * s->value_size);
    memcpy(keys, in_keys, key_size);
    if (values)
        memcpy(values, in_values, s->n * s->value_size);

    const sort_call call = { s->api, s->kind, s->value_size };
    clradix_testing_fail_at(fail_at);
    const clradix_status status = run_sort(&dev, &call, s->type, keys, values, s->n, NULL);
    if (calls)
        *calls = clradix_testing_calls();
    clradix_testing_fail_at(0);
    clFinish(dev.queue);

    size_t *perm = oracle_order(s->type, in_keys, s->n, NULL);
    *left = judge(s, in_keys, keys, values, in_values, perm);
    free(perm);
    free(in_keys);
    free(keys);
    free(in_values);
    free(values);
    return status;
}

/* Every fallible call of a scenario's sort fails in turn. Each attempt is the first sort
   of a new sorter, so that it allocates the temporaries and loads its programs. */
START_TEST(test_sort_faults)
{
    const scenario *s = &scenarios[_i];

    /* A clean run must sort, and counts the calls. */
    outcome left;
    unsigned long calls = 0;
    open_scenario(s);
    ck_assert_int_eq(run_faulty(s, 0, &left, &calls), CLRADIX_SUCCESS);
    ck_assert_int_eq(left, SORTED);
    ck_assert_uint_gt(calls, 0);
    close_dev();

    unsigned counts[OUTCOMES] = { 0 }, errors = 0;
    for (unsigned long n = 1; n <= calls; ++n) {
        open_scenario(s);
        const clradix_status status = run_faulty(s, n, &left, NULL);
        ck_assert_msg(left != BROKEN, "%s: fault %lu of %lu left the data broken", s->name, n, calls);
        ck_assert_msg(status != CLRADIX_SUCCESS || left == SORTED, "%s: fault %lu: success without a sorted result",
                      s->name, n);
        errors += status != CLRADIX_SUCCESS;
        ++counts[left];
        /* The sorter still sorts. */
        ck_assert_int_eq(run_faulty(s, 0, &left, NULL), CLRADIX_SUCCESS);
        ck_assert_msg(left == SORTED, "%s: the sorter does not sort after fault %lu", s->name, n);
        close_dev();
    }
    printf("faults: %s: %lu faults, %u errors reported; data %s %u, %s %u, %s %u\n", s->name, calls, errors,
           outcome_names[UNTOUCHED], counts[UNTOUCHED], outcome_names[SORTED], counts[SORTED],
           outcome_names[PERMUTED], counts[PERMUTED]);
}
END_TEST

/* Top-k: the keys are only read; each output must be untouched or right after a fault. */
typedef struct topk_scenario {
    const char *name;
    int host;
    size_t rows, length, k;
} topk_scenario;
/* The select's calls through the host form, which enqueues the device form's commands
   (rows go through the segmented argsort, whose calls the sort scenarios fail already). */
static const topk_scenario topk_scenarios[] = {
    { "topk select, host", 1, 1, 2000, 30 },
};
enum { TOPK_SCENARIOS = sizeof topk_scenarios / sizeof topk_scenarios[0] };

/* What a top-k left in an output: untouched (still `fill`), right, or broken. */
static outcome judge_output(const unsigned char *out, size_t bytes, unsigned char fill, const unsigned char *right)
{
    size_t untouched = 0;
    while (untouched < bytes && out[untouched] == fill)
        ++untouched;
    return untouched == bytes ? UNTOUCHED : !memcmp(out, right, bytes) ? SORTED : BROKEN;
}

/* Runs a top-k of U32 keys with the N-th counted call failing (0: none); the outcome of
   each output in left[0] (keys) and left[1] (4-byte indices). */
static clradix_status run_topk_faulty(const topk_scenario *t, unsigned long fail_at, outcome left[2],
                                      unsigned long *calls)
{
    const size_t n = t->rows * t->length, outputs = t->rows * t->k;
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_SIXTEEN, n, 21);
    uint32_t *out[2] = { malloc(outputs * 4), malloc(outputs * 4) }, *right[2] = { malloc(outputs * 4),
                                                                                     malloc(outputs * 4) };
    for (size_t row = 0; row < t->rows; ++row) {
        size_t *perm = oracle_order(CLRADIX_U32, keys + row * t->length, t->length, NULL);
        for (size_t j = 0; j < t->k; ++j) {
            right[0][row * t->k + j] = keys[row * t->length + perm[j]];
            right[1][row * t->k + j] = (uint32_t)perm[j];
        }
        free(perm);
    }
    memset(out[0], 0xAB, outputs * 4);
    memset(out[1], 0xCD, outputs * 4);
    clradix_status status;
    unsigned long made;
    if (t->host) {
        clradix_testing_fail_at(fail_at);
        status = clradix_topk_rows_host(dev.sorter, NULL, CLRADIX_U32, keys, t->rows, t->length, t->k, out[0], out[1],
                                        4, NULL);
        made = clradix_testing_calls();
        clradix_testing_fail_at(0);
    } else {
        cl_int err;
        cl_mem in = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, keys, &err);
        cl_mem o0 = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, outputs * 4, out[0], &err);
        cl_mem o1 = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, outputs * 4, out[1], &err);
        clradix_testing_fail_at(fail_at);
        status = clradix_topk_rows(dev.sorter, dev.queue, CLRADIX_U32, in, t->rows, t->length, t->k, o0, o1, 4, NULL,
                                   0, NULL, NULL);
        made = clradix_testing_calls();
        clradix_testing_fail_at(0);
        ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, o0, CL_TRUE, 0, outputs * 4, out[0], 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, o1, CL_TRUE, 0, outputs * 4, out[1], 0, NULL, NULL),
                         CL_SUCCESS);
        clReleaseMemObject(in);
        clReleaseMemObject(o0);
        clReleaseMemObject(o1);
    }
    if (calls)
        *calls = made;
    clFinish(dev.queue);
    left[0] = judge_output((const unsigned char *)out[0], outputs * 4, 0xAB, (const unsigned char *)right[0]);
    left[1] = judge_output((const unsigned char *)out[1], outputs * 4, 0xCD, (const unsigned char *)right[1]);
    free(keys);
    for (int i = 0; i < 2; ++i) {
        free(out[i]);
        free(right[i]);
    }
    return status;
}

/* Every fallible call of a top-k fails in turn, each in a new sorter; the sorter then
   still selects. */
START_TEST(test_topk_faults)
{
    const topk_scenario *t = &topk_scenarios[_i];
    outcome left[2];
    unsigned long calls = 0;
    open_dev(NULL);
    ck_assert_int_eq(run_topk_faulty(t, 0, left, &calls), CLRADIX_SUCCESS);
    ck_assert(left[0] == SORTED && left[1] == SORTED);
    ck_assert_uint_gt(calls, 0);
    close_dev();
    unsigned errors = 0;
    for (unsigned long f = 1; f <= calls; ++f) {
        open_dev(NULL);
        const clradix_status status = run_topk_faulty(t, f, left, NULL);
        ck_assert_msg(left[0] != BROKEN && left[1] != BROKEN, "%s: fault %lu of %lu broke an output", t->name, f,
                      calls);
        ck_assert_msg(status != CLRADIX_SUCCESS || (left[0] == SORTED && left[1] == SORTED),
                      "%s: fault %lu: success without the result", t->name, f);
        ck_assert_msg(!t->host || status == CLRADIX_SUCCESS || (left[0] == UNTOUCHED && left[1] == UNTOUCHED),
                      "%s: fault %lu: %s with outputs %s and %s", t->name, f, clradix_status_string(status),
                      outcome_names[left[0]], outcome_names[left[1]]);  /* host: written only on success */
        errors += status != CLRADIX_SUCCESS;
        ck_assert_int_eq(run_topk_faulty(t, 0, left, NULL), CLRADIX_SUCCESS);
        ck_assert_msg(left[0] == SORTED && left[1] == SORTED, "%s: no result after fault %lu", t->name, f);
        close_dev();
    }
    printf("faults: %s: %lu faults, %u errors reported\n", t->name, calls, errors);
}
END_TEST

/* Records: a device sort by a gather over two words (the top word's sort with the
   positions, the runs' sorts, then the gather and the copy back), host sorts of one word
   and of two in core on the device, and one on the host (the device's memory limited below
   what the call needs in core). The device calls may leave the records untouched, sorted,
   or permuted after work was enqueued; the host path untouched or sorted. */
typedef struct records_scenario {
    const char *name;
    records_call call;
    clradix_key_field fields[2];
    size_t memory_limit;  /* of the sorter; 0: none */
    int untouched_on_error;
} records_scenario;
static const records_scenario records_scenarios[] = {
    { "records, device sort", RECORDS_DEVICE_SORT, { { CLRADIX_U64, 5, 0 }, { CLRADIX_I32, 1, 1 } }, 0, 0 },
    { "records, host sort of one word", RECORDS_HOST_SORT, { { CLRADIX_U32, 5, 0 }, { CLRADIX_I16, 1, 1 } }, 0, 0 },
    { "records, host sort of two words", RECORDS_HOST_SORT, { { CLRADIX_U64, 5, 0 }, { CLRADIX_I32, 1, 1 } }, 0, 0 },
    { "records, host sort on the host", RECORDS_HOST_SORT, { { CLRADIX_U32, 5, 0 }, { CLRADIX_I16, 1, 1 } },
      96 << 10, 1 },
};
enum { RECORDS_SCENARIOS = sizeof records_scenarios / sizeof records_scenarios[0], RECORD_SIZE = 13 };

static int compare_record_bytes(const void *a, const void *b) { return memcmp(a, b, RECORD_SIZE); }

/* What a call left in count records: untouched, the right result, a permutation of the
   input, or broken. */
static outcome judge_records(const unsigned char *left, const unsigned char *input, const unsigned char *right,
                             size_t count)
{
    const size_t bytes = count * RECORD_SIZE;
    if (!memcmp(left, input, bytes))
        return UNTOUCHED;
    if (!memcmp(left, right, bytes))
        return SORTED;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    memcpy(a, left, bytes);
    memcpy(b, right, bytes);
    qsort(a, count, RECORD_SIZE, compare_record_bytes);
    qsort(b, count, RECORD_SIZE, compare_record_bytes);
    const int same = !memcmp(a, b, bytes);
    free(a);
    free(b);
    return same ? PERMUTED : BROKEN;
}

static clradix_status run_records_faulty(const records_scenario *r, unsigned long fail_at, outcome *left,
                                         unsigned long *calls)
{
    enum { N = 5000 };
    unsigned char *records = make_records(RECORD_SIZE, N, 31), *input = malloc(RECORD_SIZE * N);
    unsigned char *right = malloc(RECORD_SIZE * N);
    memcpy(input, records, RECORD_SIZE * N);
    size_t *perm = records_oracle(records, RECORD_SIZE, N, r->fields, 2);
    for (size_t i = 0; i < N; ++i)
        memcpy(right + i * RECORD_SIZE, input + perm[i] * RECORD_SIZE, RECORD_SIZE);
    if (r->memory_limit)
        ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, r->memory_limit), CLRADIX_SUCCESS);
    clradix_testing_fail_at(fail_at);
    clradix_status status;
    unsigned long made;
    if (r->call == RECORDS_HOST_SORT) {
        status = clradix_sort_records_host(dev.sorter, NULL, records, RECORD_SIZE, N, r->fields, 2);
        made = clradix_testing_calls();
    } else {
        cl_int err;
        cl_mem buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, RECORD_SIZE * N, records,
                                       &err);
        status = clradix_sort_records(dev.sorter, dev.queue, buffer, RECORD_SIZE, N, r->fields, 2, 0, NULL, NULL);
        made = clradix_testing_calls();
        clradix_testing_fail_at(0);
        clFinish(dev.queue);
        ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, buffer, CL_TRUE, 0, RECORD_SIZE * N, records, 0, NULL, NULL),
                         CL_SUCCESS);
        clReleaseMemObject(buffer);
    }
    if (calls)
        *calls = made;
    clradix_testing_fail_at(0);
    *left = judge_records(records, input, right, N);
    free(records);
    free(input);
    free(right);
    free(perm);
    return status;
}

START_TEST(test_records_faults)
{
    const records_scenario *r = &records_scenarios[_i];
    outcome left;
    unsigned long calls = 0;
    open_dev(NULL);
    ck_assert_int_eq(run_records_faulty(r, 0, &left, &calls), CLRADIX_SUCCESS);
    ck_assert_int_eq(left, SORTED);
    ck_assert_uint_gt(calls, 0);
    close_dev();
    unsigned errors = 0;
    for (unsigned long f = 1; f <= calls; ++f) {
        open_dev(NULL);
        const clradix_status status = run_records_faulty(r, f, &left, NULL);
        ck_assert_msg(left != BROKEN, "%s: fault %lu of %lu left the data broken", r->name, f, calls);
        ck_assert_msg(status != CLRADIX_SUCCESS || left == SORTED, "%s: fault %lu: success without the result",
                      r->name, f);
        ck_assert_msg(!r->untouched_on_error || status == CLRADIX_SUCCESS || left == UNTOUCHED,
                      "%s: fault %lu: %s with the records %s", r->name, f, clradix_status_string(status),
                      outcome_names[left]);
        errors += status != CLRADIX_SUCCESS;
        ck_assert_int_eq(run_records_faulty(r, 0, &left, NULL), CLRADIX_SUCCESS);
        ck_assert_msg(left == SORTED, "%s: no result after fault %lu", r->name, f);
        close_dev();
    }
    printf("faults: %s: %lu faults, %u errors reported\n", r->name, calls, errors);
}
END_TEST

/* Pairs of 128-bit keys (an argsort, copies, one gather of both): what a fault leaves is
   untouched, sorted, or a permutation in which every key keeps its value. Keys and values
   side by side in 20-byte elements for the judge. */
enum { WIDE_N = 3000, WIDE_ELEMENT = 20 };

static int compare_wide(const void *a, const void *b) { return memcmp(a, b, WIDE_ELEMENT); }

static outcome judge_wide(const unsigned char *keys, const uint32_t *values, const unsigned char *in_keys,
                          const uint32_t *in_values, const size_t *perm)
{
    unsigned char *left = malloc(WIDE_N * WIDE_ELEMENT), *input = malloc(WIDE_N * WIDE_ELEMENT);
    int untouched = 1, sorted = 1;
    for (size_t i = 0; i < WIDE_N; ++i) {
        memcpy(left + i * WIDE_ELEMENT, keys + 16 * i, 16);
        memcpy(left + i * WIDE_ELEMENT + 16, values + i, 4);
        memcpy(input + i * WIDE_ELEMENT, in_keys + 16 * i, 16);
        memcpy(input + i * WIDE_ELEMENT + 16, in_values + i, 4);
        untouched &= !memcmp(left + i * WIDE_ELEMENT, input + i * WIDE_ELEMENT, WIDE_ELEMENT);
        sorted &= !memcmp(keys + 16 * i, in_keys + 16 * perm[i], 16) && values[i] == in_values[perm[i]];
    }
    qsort(left, WIDE_N, WIDE_ELEMENT, compare_wide);
    qsort(input, WIDE_N, WIDE_ELEMENT, compare_wide);
    const int same = !memcmp(left, input, WIDE_N * WIDE_ELEMENT);
    free(left);
    free(input);
    return untouched ? UNTOUCHED : sorted ? SORTED : same ? PERMUTED : BROKEN;
}

static clradix_status run_wide_faulty(unsigned long fail_at, outcome *left, unsigned long *calls)
{
    unsigned char *keys = make_records(16, WIDE_N, 77), *in_keys = malloc(16 * WIDE_N);
    uint32_t values[WIDE_N], in_values[WIDE_N];
    for (uint32_t i = 0; i < WIDE_N; ++i)
        values[i] = in_values[i] = i;
    memcpy(in_keys, keys, 16 * WIDE_N);
    const clradix_key_field two[] = { { CLRADIX_U64, 8, 0 }, { CLRADIX_U64, 0, 0 } };
    size_t *perm = records_oracle(keys, 16, WIDE_N, two, 2);
    cl_int err;
    cl_mem k = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 16 * WIDE_N, keys, &err);
    cl_mem v = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * WIDE_N, values, &err);
    clradix_testing_fail_at(fail_at);
    const clradix_status status = clradix_sort_pairs(dev.sorter, dev.queue, CLRADIX_U128, k, v, 4, WIDE_N, NULL, 0,
                                                     NULL, NULL);
    if (calls)
        *calls = clradix_testing_calls();
    clradix_testing_fail_at(0);
    clFinish(dev.queue);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, k, CL_TRUE, 0, 16 * WIDE_N, keys, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, v, CL_TRUE, 0, 4 * WIDE_N, values, 0, NULL, NULL), CL_SUCCESS);
    clReleaseMemObject(k);
    clReleaseMemObject(v);
    *left = judge_wide(keys, values, in_keys, in_values, perm);
    free(keys);
    free(in_keys);
    free(perm);
    return status;
}

START_TEST(test_wide_pairs_faults)
{
    outcome left;
    unsigned long calls = 0;
    open_dev(NULL);
    ck_assert_int_eq(run_wide_faulty(0, &left, &calls), CLRADIX_SUCCESS);
    ck_assert_int_eq(left, SORTED);
    close_dev();
    unsigned errors = 0;
    for (unsigned long f = 1; f <= calls; ++f) {
        open_dev(NULL);
        const clradix_status status = run_wide_faulty(f, &left, NULL);
        ck_assert_msg(left != BROKEN, "u128 pairs: fault %lu of %lu parted keys and values", f, calls);
        ck_assert_msg(status != CLRADIX_SUCCESS || left == SORTED, "u128 pairs: fault %lu: success without the result",
                      f);
        errors += status != CLRADIX_SUCCESS;
        close_dev();
    }
    printf("faults: u128 pairs: %lu faults, %u errors reported\n", calls, errors);
}
END_TEST

static void empty_folder(const char *dir)
{
    char command[300];
    snprintf(command, sizeof command, "rm -f %s/*", dir);
    ck_assert_int_eq(system(command), 0);
}

/* Sorter creation: every fallible call fails in turn, building from source without the
   cache, building and storing into an empty cache, and loading from a full one. */
START_TEST(test_create_faults)
{
    static const char *const ways[] = { "no cache", "empty cache", "full cache" };
    char dir[] = "/tmp/clradix-faults-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("CLRADIX_CACHE_DIR", dir, 1);
    for (int way = 0; way < 3; ++way) {
        setenv("CLRADIX_CACHE", way == 0 ? "0" : "1", 1);  /* 1: also on POCL, which is off by default */
        clradix_sorter *sorter = NULL;
        empty_folder(dir);
        if (way == 2) {  /* fill the cache */
            ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_SUCCESS);
            clradix_sorter_release(sorter);
        }
        if (way == 1)
            empty_folder(dir);
        clradix_testing_fail_at(0);
        ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_SUCCESS);
        const unsigned long calls = clradix_testing_calls();
        clradix_sorter_release(sorter);
        unsigned errors = 0;
        for (unsigned long n = 1; n <= calls; ++n) {
            if (way == 1)
                empty_folder(dir);
            clradix_sorter *s = (clradix_sorter *)0x1;
            clradix_testing_fail_at(n);
            const clradix_status status = clradix_sorter_create(NULL, NULL, &s);
            clradix_testing_fail_at(0);
            if (status == CLRADIX_SUCCESS) {  /* a fault it got round (a cache entry, an optional query) */
                uint32_t keys[4] = { 3, 1, 2, 0 };
                ck_assert_int_eq(clradix_sort_keys_host(s, NULL, CLRADIX_U32, keys, 4, NULL), CLRADIX_SUCCESS);
                ck_assert(keys[0] == 0 && keys[1] == 1 && keys[2] == 2 && keys[3] == 3);
                clradix_sorter_release(s);
            } else {
                ck_assert_ptr_eq(s, (clradix_sorter *)0x1);
                ck_assert_int_ne(status, CLRADIX_ERROR_BUILD_FAILED);  /* not a compile error */
                ++errors;
            }
        }
        printf("faults: sorter creation (%s): %lu faults, %u errors reported\n", ways[way], calls, errors);
        ck_assert_uint_gt(errors, 0);
    }
    /* The cache is sound after all that. */
    clradix_sorter *sorter;
    ck_assert_int_eq(clradix_sorter_create(NULL, NULL, &sorter), CLRADIX_SUCCESS);
    clradix_sorter_release(sorter);
    unsetenv("CLRADIX_CACHE");
    empty_folder(dir);
    ck_assert_int_eq(rmdir(dir), 0);
    unsetenv("CLRADIX_CACHE_DIR");
}
END_TEST

/* oclgrind's limits: the device's own row and a GPU row are fitted to them and sort right. */
START_TEST(test_small_limits)
{
    clradix_testing_limits(32768, 128, 0, 0);
    clradix_tuning rows[2] = { { 0 } };
    ck_assert_int_eq(clradix_tuning_row(1, &rows[1], NULL), CLRADIX_SUCCESS);  /* NVIDIA's */
    for (int r = 0; r < 2; ++r) {
        open_dev(&rows[r]);
        clradix_tuning used;
        ck_assert_int_eq(clradix_sorter_tuning(dev.sorter, &used), CLRADIX_SUCCESS);
        ck_assert_uint_le(used.work_group_size, 128);
        static const sort_call calls[] = { { API_DEVICE, SORT_KEYS, 0 }, { API_DEVICE, SORT_PAIRS, 16 },
                                           { API_HOST, SORT_ARGSORT, 8 }, { API_HOST, SORT_PAIRS, 8 } };
        static const size_t sizes[] = { 100, 5000, 300000 };
        char msg[256], name[64];
        for (int c = 0; c < 4; ++c)
            for (int z = 0; z < 3; ++z) {
                const clradix_key_type type = (clradix_key_type)((c + z) % 6);
                const int failed = sort_case(&dev, &calls[c], type, DIST_LOW_ENTROPY, sizes[z], NULL, 40 + c * 3 + z,
                                             msg, sizeof msg);
                ck_assert_msg(!failed, "row %d %s n=%zu type %d: %s", r, sort_call_name(&calls[c], name, sizeof name),
                              sizes[z], type, msg);
            }
        close_dev();
    }
    clradix_testing_limits(0, 0, 0, 0);
}
END_TEST

/* Temporaries beyond the largest allocation or the device's memory: a device-buffer call
   is refused with nothing changed; a host-array call sorts out of core. */
START_TEST(test_memory_limits)
{
    const size_t n = 300000;  /* 1.2 MB of u32 keys: a 1 MB temporary is too small */
    for (int limit = 0; limit < 2; ++limit) {
        if (limit == 0)
            clradix_testing_limits(0, 0, 1 << 20, 0);
        else
            clradix_testing_limits(0, 0, 0, 1 << 20);  /* the temporaries need at least 1.2 MB */
        open_dev(NULL);
        static const sort_call calls[] = { { API_DEVICE, SORT_KEYS, 0 }, { API_HOST, SORT_PAIRS, 4 } };
        for (int c = 0; c < 2; ++c) {
            outcome left;
            const scenario s = { "memory", calls[c].api, calls[c].kind, CLRADIX_U32, calls[c].value_size, n, 0 };
            const int host = calls[c].api == API_HOST;
            ck_assert_int_eq(run_faulty(&s, 0, &left, NULL), host ? CLRADIX_SUCCESS : CLRADIX_ERROR_OUT_OF_RESOURCES);
            ck_assert_int_eq(left, host ? SORTED : UNTOUCHED);
        }
        close_dev();
    }
    clradix_testing_limits(0, 0, 0, 0);
}
END_TEST

int main(void)
{
    /* Three cases, which ctest runs side by side (CK_RUN_CASE): the sorts' faults, the record
       sorts' faults, and the rest. */
    Suite *s = suite_create("faults");
    TCase *sorts = tcase_create("sorts");
    tcase_set_timeout(sorts, 600);
    tcase_add_loop_test(sorts, test_sort_faults, 0, SCENARIOS);
    suite_add_tcase(s, sorts);
    TCase *others = tcase_create("others");
    tcase_set_timeout(others, 600);
    tcase_add_loop_test(others, test_topk_faults, 0, TOPK_SCENARIOS);
    tcase_add_test(others, test_create_faults);
    tcase_add_test(others, test_small_limits);
    tcase_add_test(others, test_memory_limits);
    suite_add_tcase(s, others);
    TCase *records = tcase_create("records");
    tcase_set_timeout(records, 600);
    tcase_add_loop_test(records, test_records_faults, 0, RECORDS_SCENARIOS);
    tcase_add_test(records, test_wide_pairs_faults);
    suite_add_tcase(s, records);
    return run_device_suite(s, "test_faults");
}
