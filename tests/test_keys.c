/*
 * Key types and orderings: edge values of every type compared bit for bit with orders
 * written out by hand, descending sorts with their stability, bit windows, and values of
 * every width.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(void) { open_dev(NULL); }

static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_U64, CLRADIX_I64,
                                          CLRADIX_F64, CLRADIX_U8,  CLRADIX_I8,  CLRADIX_U16, CLRADIX_I16,
                                          CLRADIX_F16, CLRADIX_BF16 };
enum { TYPE_COUNT = sizeof types / sizeof types[0] };

/* Edge values of each type as bit patterns, in ascending order. */
static const uint64_t u32_edges[] = { 0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF };
static const uint64_t i32_edges[] = {
    0x80000000 /* INT_MIN */, 0x80000001, 0xFFFFFFFE /* -2 */, 0xFFFFFFFF /* -1 */, 0, 1, 0x7FFFFFFE,
    0x7FFFFFFF /* INT_MAX */,
};
static const uint64_t f32_edges[] = {
    0xFFFFFFFF /* -NaN, largest payload */, 0xFFC00000 /* -quiet NaN */, 0xFF800001 /* -signalling NaN */,
    0xFF800000 /* -inf */, 0xFF7FFFFF /* -FLT_MAX */, 0xBF800000 /* -1 */, 0x80800000 /* -FLT_MIN */,
    0x807FFFFF /* largest negative denormal */, 0x80000001 /* smallest negative denormal */, 0x80000000 /* -0.0 */,
    0x00000000 /* +0.0 */, 0x00000001, 0x007FFFFF /* denormals */, 0x00800000 /* FLT_MIN */, 0x3F800000 /* 1 */,
    0x7F7FFFFF /* FLT_MAX */, 0x7F800000 /* +inf */, 0x7F800001 /* +signalling NaN */, 0x7FC00000 /* +quiet NaN */,
    0x7FFFFFFF /* +NaN, largest payload */,
};
static const uint64_t u64_edges[] = {
    0, 1, 5, 0xFFFFFFFF, 0x100000000, 0x100000005, 0x200000005 /* differ only above bit 32 */,
    0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFF00000000, 0xFFFFFFFFFFFFFFFE, 0xFFFFFFFFFFFFFFFF,
};
static const uint64_t i64_edges[] = {
    0x8000000000000000 /* INT64_MIN */, 0x8000000000000001, 0xFFFFFFFF00000000 /* -2^32 */,
    0xFFFFFFFF80000000 /* INT_MIN */, 0xFFFFFFFFFFFFFFFF /* -1 */, 0, 1, 0x7FFFFFFF /* INT_MAX */, 0xFFFFFFFF,
    0x100000000, 0x7FFFFFFFFFFFFFFF /* INT64_MAX */,
};
static const uint64_t f64_edges[] = {
    0xFFFFFFFFFFFFFFFF /* -NaN, largest payload */, 0xFFF8000000000000 /* -quiet NaN */,
    0xFFF0000000000001 /* -signalling NaN */, 0xFFF0000000000000 /* -inf */, 0xFFEFFFFFFFFFFFFF /* -DBL_MAX */,
    0xBFF0000000000000 /* -1 */, 0x8010000000000000 /* -DBL_MIN */, 0x800FFFFFFFFFFFFF, 0x8000000000000001,
    0x8000000000000000 /* -0.0 */, 0 /* +0.0 */, 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000 /* DBL_MIN */,
    0x3FF0000000000000 /* 1 */, 0x7FEFFFFFFFFFFFFF /* DBL_MAX */, 0x7FF0000000000000 /* +inf */,
    0x7FF0000000000001 /* +signalling NaN */, 0x7FF8000000000000 /* +quiet NaN */,
    0x7FFFFFFFFFFFFFFF /* +NaN, largest payload */,
};

static const uint64_t u8_edges[] = { 0, 1, 0x7F, 0x80, 0x81, 0xFE, 0xFF };
static const uint64_t i8_edges[] = { 0x80 /* -128 */, 0x81, 0xFE, 0xFF /* -1 */, 0, 1, 0x7E, 0x7F /* 127 */ };
static const uint64_t u16_edges[] = { 0, 1, 0xFF, 0x100, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF };
static const uint64_t i16_edges[] = { 0x8000 /* -32768 */, 0x8001, 0xFF00 /* -256 */, 0xFFFF /* -1 */, 0, 1,
                                      0xFF, 0x100, 0x7FFF /* 32767 */ };
static const uint64_t f16_edges[] = {
    0xFFFF /* -NaN, largest payload */, 0xFE00 /* -quiet NaN */, 0xFC01 /* -signalling NaN */, 0xFC00 /* -inf */,
    0xFBFF /* -65504 */, 0xBC00 /* -1 */, 0x8400 /* -smallest normal */, 0x83FF /* largest negative denormal */,
    0x8001 /* smallest negative denormal */, 0x8000 /* -0.0 */, 0x0000 /* +0.0 */, 0x0001, 0x03FF /* denormals */,
    0x0400 /* smallest normal */, 0x3C00 /* 1 */, 0x7BFF /* 65504 */, 0x7C00 /* +inf */,
    0x7C01 /* +signalling NaN */, 0x7E00 /* +quiet NaN */, 0x7FFF /* +NaN, largest payload */,
};
static const uint64_t bf16_edges[] = {
    0xFFFF /* -NaN, largest payload */, 0xFFC0 /* -quiet NaN */, 0xFF81 /* -signalling NaN */, 0xFF80 /* -inf */,
    0xFF7F /* -largest finite */, 0xBF80 /* -1 */, 0x8080 /* -smallest normal */, 0x807F /* largest negative denormal */,
    0x8001 /* smallest negative denormal */, 0x8000 /* -0.0 */, 0x0000 /* +0.0 */, 0x0001, 0x007F /* denormals */,
    0x0080 /* smallest normal */, 0x3F80 /* 1 */, 0x7F7F /* largest finite */, 0x7F80 /* +inf */,
    0x7F81 /* +signalling NaN */, 0x7FC0 /* +quiet NaN */, 0x7FFF /* +NaN, largest payload */,
};

#define EDGES(array) { array, sizeof array / sizeof array[0] }
static const struct { const uint64_t *values; size_t count; } edges[TYPE_COUNT] = {
    EDGES(u32_edges), EDGES(i32_edges), EDGES(f32_edges), EDGES(u64_edges), EDGES(i64_edges), EDGES(f64_edges),
    EDGES(u8_edges),  EDGES(i8_edges),  EDGES(u16_edges), EDGES(i16_edges), EDGES(f16_edges), EDGES(bf16_edges),
};

/* A call's result against the oracle's perm: argsort's 4-byte indices (the keys left as
   they were), else the keys and values (value_size bytes, 0 for keys alone). 0, or 1 with
   msg filled. */
static int check_result(const sort_call *call, clradix_key_type type, const void *in_keys, const void *out_keys,
                        const void *in_values, const void *out_values, size_t value_size, size_t n,
                        const size_t *perm, char *msg, size_t msg_size)
{
    if (call->kind != SORT_ARGSORT)
        return check_sorted(type, in_keys, out_keys, in_values, out_values, value_size, n, perm, msg, msg_size);
    int failed = memcmp(out_keys, in_keys, n * key_bytes_of(type)) != 0;
    for (size_t i = 0; i < n && !failed; ++i)
        failed = ((const uint32_t *)out_values)[i] != perm[i];
    snprintf(msg, msg_size, "argsort differs from the oracle");
    return failed;
}

enum { COPIES = 3 };  /* each edge value appears this often, so stability shows */

/* One type's edge values, shuffled, sorted both ways through several calls. */
START_TEST(test_edge_values)
{
    const clradix_key_type type = types[_i];
    const unsigned bytes = key_bytes_of(type);
    const size_t count = edges[_i].count, n = count * COPIES;
    void *input = malloc(n * bytes), *keys = malloc(n * bytes);
    uint32_t *values = malloc(n * 4);
    uint64_t state = 99;
    for (size_t i = 0; i < n; ++i)
        put_key(input, bytes, i, edges[_i].values[i % count]);
    for (size_t i = n - 1; i > 0; --i) {  /* Fisher-Yates */
        const size_t j = rng_next(&state) % (i + 1);
        const uint64_t t = get_key(input, bytes, i);
        put_key(input, bytes, i, get_key(input, bytes, j));
        put_key(input, bytes, j, t);
    }

    for (int descending = 0; descending < 2; ++descending) {
        const clradix_options options = { 0, 0, descending };
        static const sort_call calls[] = { { API_DEVICE, SORT_KEYS, 0 }, { API_HOST, SORT_KEYS, 0 },
                                           { API_DEVICE, SORT_PAIRS, 4 }, { API_HOST, SORT_PAIRS, 4 } };
        for (size_t c = 0; c < sizeof calls / sizeof calls[0]; ++c) {
            memcpy(keys, input, n * bytes);
            for (size_t i = 0; i < n; ++i)
                values[i] = (uint32_t)i;
            ck_assert_int_eq(run_sort(&dev, &calls[c], type, keys, values, n, &options), CLRADIX_SUCCESS);
            for (size_t i = 0; i < n; ++i) {
                const size_t rank = descending ? count - 1 - i / COPIES : i / COPIES;
                ck_assert_msg(get_key(keys, bytes, i) == edges[_i].values[rank],
                              "type %d %s call %zu: key %zu is 0x%llx, want 0x%llx", type,
                              descending ? "descending" : "ascending", c, i, (unsigned long long)get_key(keys, bytes, i),
                              (unsigned long long)edges[_i].values[rank]);
                if (calls[c].kind == SORT_PAIRS && i % COPIES)  /* equal keys keep their input order */
                    ck_assert_uint_gt(values[i], values[i - 1]);
                if (calls[c].kind == SORT_PAIRS)
                    ck_assert(get_key(input, bytes, values[i]) == get_key(keys, bytes, i));
            }
        }
        /* Argsort gives the same order as indices. */
        const sort_call argsort = { API_DEVICE, SORT_ARGSORT, 4 };
        memcpy(keys, input, n * bytes);
        ck_assert_int_eq(run_sort(&dev, &argsort, type, keys, values, n, &options), CLRADIX_SUCCESS);
        ck_assert_mem_eq(keys, input, n * bytes);
        for (size_t i = 0; i < n; ++i) {
            const size_t rank = descending ? count - 1 - i / COPIES : i / COPIES;
            ck_assert(get_key(input, bytes, values[i]) == edges[_i].values[rank]);
            if (i % COPIES)
                ck_assert_uint_gt(values[i], values[i - 1]);
        }
    }
    free(input);
    free(keys);
    free(values);
}
END_TEST

/* 8- and 16-bit keys: every bit pattern COPIES times, shuffled, sorted both ways by a pair
   sort of each API and by argsort, against the oracle. */
START_TEST(test_every_pattern)
{
    const clradix_key_type type = types[6 + _i];  /* U8 .. BF16 */
    const unsigned bytes = key_bytes_of(type);
    const size_t patterns = (size_t)1 << (8 * bytes), n = patterns * COPIES;
    void *input = malloc(n * bytes), *keys = malloc(n * bytes);
    void *values = make_values(4, n), *out_values = malloc(n * 4);
    uint64_t state = 7;
    for (size_t i = 0; i < n; ++i)
        put_key(input, bytes, i, i % patterns);
    for (size_t i = n - 1; i > 0; --i) {  /* Fisher-Yates */
        const size_t j = rng_next(&state) % (i + 1);
        const uint64_t t = get_key(input, bytes, i);
        put_key(input, bytes, i, get_key(input, bytes, j));
        put_key(input, bytes, j, t);
    }
    static const sort_call calls[] = { { API_DEVICE, SORT_PAIRS, 4 }, { API_HOST, SORT_PAIRS, 4 },
                                       { API_HOST, SORT_ARGSORT, 4 } };
    char msg[256], name[64];
    for (int descending = 0; descending < 2; ++descending) {
        const clradix_options options = { 0, 0, descending };
        size_t *perm = oracle_order(type, input, n, &options);
        for (size_t c = 0; c < sizeof calls / sizeof calls[0]; ++c) {
            memcpy(keys, input, n * bytes);
            memcpy(out_values, values, n * 4);
            ck_assert_int_eq(run_sort(&dev, &calls[c], type, keys, out_values, n, &options), CLRADIX_SUCCESS);
            const int failed = check_result(&calls[c], type, input, keys, values, out_values, 4, n, perm, msg,
                                            sizeof msg);
            ck_assert_msg(!failed, "type %d %s %s: %s", type, descending ? "descending" : "ascending",
                          sort_call_name(&calls[c], name, sizeof name), msg);
        }
        free(perm);
    }
    free(input);
    free(keys);
    free(values);
    free(out_values);
}
END_TEST

/* Descending pairs on distributions with many equal keys: the order and its stability. */
START_TEST(test_descending)
{
    const clradix_key_type type = types[_i];
    static const dist dists[] = { DIST_EQUAL, DIST_TWO, DIST_SIXTEEN, DIST_LOW_ENTROPY, DIST_RANDOM, DIST_SORTED };
    static const sort_call calls[] = { { API_DEVICE, SORT_PAIRS, 4 }, { API_HOST, SORT_PAIRS, 8 },
                                       { API_DEVICE, SORT_ARGSORT, 8 }, { API_HOST, SORT_KEYS, 0 } };
    const clradix_options options = { 0, 0, 1 };
    char msg[256], name[64];
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; ++d)
        for (size_t c = 0; c < sizeof calls / sizeof calls[0]; ++c) {
            const size_t n = 9000 + 1001 * c;
            const int failed = sort_case(&dev, &calls[c], type, dists[d], n, &options, 77 + d * 5 + c, msg, sizeof msg);
            ck_assert_msg(!failed, "type %d dist %s %s: %s", type, dist_name(dists[d]),
                          sort_call_name(&calls[c], name, sizeof name), msg);
        }
}
END_TEST

/* Bit windows from {0, w/3, 3w/4, w}^2: valid ones sort by those bits, others are rejected. */
START_TEST(test_bit_windows)
{
    const clradix_key_type type = types[_i];
    const unsigned w = key_bytes_of(type) * 8, marks[] = { 0, w / 3, 3 * w / 4, w };
    static const sort_call calls[] = { { API_DEVICE, SORT_PAIRS, 4 }, { API_HOST, SORT_KEYS, 0 },
                                       { API_DEVICE, SORT_ARGSORT, 4 }, { API_HOST, SORT_PAIRS, 16 } };
    const size_t n = 3001;
    char msg[256], name[64];
    int tried = 0;
    for (int b = 0; b < 4; ++b)
        for (int e = 0; e < 4; ++e) {
            const clradix_options options = { marks[b], marks[e], (b + e) % 2 };
            const sort_call *call = &calls[(b * 4 + e) % 4];
            if (marks[b] > marks[e] || marks[e] == 0) {
                /* end_bit 0 means the whole width: (0, 0) is every bit, (w, 0) an empty range. */
                if (marks[e] == 0)
                    continue;
                void *keys = make_keys(type, DIST_RANDOM, n, 3), *copy = malloc(n * 8);
                memcpy(copy, keys, n * key_bytes_of(type));
                uint32_t *values = calloc(n, 16);
                ck_assert_int_eq(run_sort(&dev, call, type, keys, values, n, &options), CLRADIX_ERROR_INVALID_ARGUMENT);
                ck_assert_mem_eq(keys, copy, n * key_bytes_of(type));
                free(keys);
                free(copy);
                free(values);
                continue;
            }
            static const dist dists[] = { DIST_RANDOM, DIST_LOW_ENTROPY };
            for (int d = 0; d < 2; ++d) {
                const int failed = sort_case(&dev, call, type, dists[d], n, &options, 500 + b * 4 + e, msg, sizeof msg);
                ck_assert_msg(!failed, "type %d bits [%u, %u) %s %s: %s", type, marks[b], marks[e],
                              options.descending ? "descending" : "ascending", sort_call_name(call, name, sizeof name),
                              msg);
                ++tried;
            }
        }
    ck_assert_int_eq(tried, 2 * 9);
    /* (w, 0) means (w, w): nothing to sort, order unchanged. */
    const clradix_options all_past = { w, 0, 0 };
    const int failed = sort_case(&dev, &calls[0], type, DIST_RANDOM, n, &all_past, 9, msg, sizeof msg);
    ck_assert_msg(!failed, "type %d bits [%u, 0): %s", type, w, msg);
}
END_TEST

/* The float types (indices in types[]) and the same floats in numpy's order, then with NaNs
   last in both directions, and calls for those with 4-byte values and indices only (every
   variant is compiled apart). */
static const int floats[] = { 2, 5, 10, 11 };  /* F32, F64, F16, BF16 */
static const clradix_key_type numpy_floats[] = { CLRADIX_F32_NUMPY,    CLRADIX_F64_NUMPY,    CLRADIX_F16_NUMPY,
                                                 CLRADIX_BF16_NUMPY,   CLRADIX_F32_NAN_LAST, CLRADIX_F64_NAN_LAST,
                                                 CLRADIX_F16_NAN_LAST, CLRADIX_BF16_NAN_LAST };
static const sort_call numpy_calls[] = { { API_DEVICE, SORT_PAIRS, 4 }, { API_HOST, SORT_PAIRS, 4 },
                                         { API_DEVICE, SORT_ARGSORT, 4 }, { API_HOST, SORT_ARGSORT, 4 } };

/* numpy's order on each float type's edge values (three NaNs at each end of the list,
   -0.0 and +0.0 at 9 and 10), written out by hand: every NaN after everything else and
   equal to every other NaN (descending: first, or for the _NAN_LAST types last again),
   -0.0 equal to +0.0, so both keep their input order. */
START_TEST(test_numpy_edges)
{
    const clradix_key_type type = numpy_floats[_i];
    const int nan_last = _i >= 4;
    const uint64_t *edge = edges[floats[_i % 4]].values;
    const unsigned bytes = key_bytes_of(type);
    const size_t count = edges[floats[_i % 4]].count, n = count * COPIES;
    ck_assert_uint_eq(count, 20);
    size_t rank_of_edge[20];
    for (size_t j = 0; j < count; ++j)
        rank_of_edge[j] = j < 3 || j >= 17 ? 100 : j - 3 - (j >= 10);  /* NaNs last; -0.0 ranks as +0.0 */
    void *input = malloc(n * bytes), *keys = malloc(n * bytes);
    uint32_t *values = malloc(n * 4);
    unsigned char *seen = malloc(n);
    uint64_t state = 41;
    for (size_t i = 0; i < n; ++i)
        put_key(input, bytes, i, edge[i % count]);
    for (size_t i = n - 1; i > 0; --i) {  /* Fisher-Yates */
        const size_t j = rng_next(&state) % (i + 1);
        const uint64_t t = get_key(input, bytes, i);
        put_key(input, bytes, i, get_key(input, bytes, j));
        put_key(input, bytes, j, t);
    }
    for (int descending = 0; descending < 2; ++descending)
        for (size_t c = 0; c < sizeof numpy_calls / sizeof numpy_calls[0]; ++c) {
            const clradix_options options = { 0, 0, descending };
            memcpy(keys, input, n * bytes);
            for (size_t i = 0; i < n; ++i)
                values[i] = (uint32_t)i;
            ck_assert_int_eq(run_sort(&dev, &numpy_calls[c], type, keys, values, n, &options), CLRADIX_SUCCESS);
            if (numpy_calls[c].kind == SORT_ARGSORT)
                ck_assert_mem_eq(keys, input, n * bytes);
            memset(seen, 0, n);
            size_t last_rank = 0;
            for (size_t i = 0; i < n; ++i) {
                ck_assert_uint_lt(values[i], n);
                ck_assert(!seen[values[i]]);
                seen[values[i]] = 1;
                const uint64_t key = get_key(input, bytes, values[i]);
                if (numpy_calls[c].kind == SORT_PAIRS)  /* moved bit for bit with its value */
                    ck_assert(get_key(keys, bytes, i) == key);
                size_t j = 0;
                while (edge[j] != key)
                    ++j;
                const size_t rank = !descending ? rank_of_edge[j] : rank_of_edge[j] == 100 && nan_last ? 200
                                                                                                   : 100 - rank_of_edge[j];
                ck_assert_msg(i == 0 || rank >= last_rank, "type %d %s call %zu: key %zu (0x%llx) out of order", type,
                              descending ? "descending" : "ascending", c, i, (unsigned long long)key);
                if (i > 0 && rank == last_rank)  /* equal keys keep their input order */
                    ck_assert_uint_gt(values[i], values[i - 1]);
                last_rank = rank;
            }
        }
    free(input);
    free(keys);
    free(values);
    free(seen);
}
END_TEST

/* Floats where half the keys are edge values (NaNs of both signs and several payloads,
   -0.0 and +0.0, infinities, denormals), under bit windows and in both directions at
   once, in totalOrder and in numpy's order (half the descending cases with NaNs last):
   keys and values against the oracle, through the one-launch and the multi-pass paths. */
START_TEST(test_float_windows)
{
    const int t = floats[_i % 4];
    const clradix_key_type type = _i < 4 ? types[t] : numpy_floats[_i % 4];
    const unsigned bytes = key_bytes_of(type), w = bytes * 8, marks[] = { 0, w / 3, 3 * w / 4, w };
    static const sort_call total_calls[] = { { API_DEVICE, SORT_PAIRS, 4 }, { API_HOST, SORT_PAIRS, 8 },
                                             { API_DEVICE, SORT_ARGSORT, 4 }, { API_HOST, SORT_KEYS, 0 } };
    const sort_call *calls = _i < 4 ? total_calls : numpy_calls;
    static const size_t sizes[] = { 3001, 70001 };
    char msg[256], name[64];
    int sorts = 0;
    for (int z = 0; z < 2; ++z) {
        const size_t n = sizes[z];
        void *keys = make_keys(type, DIST_RANDOM, n, 71 + z), *values = make_values(8, n), *out = malloc(n * bytes);
        uint64_t state = 5;
        for (size_t i = 0; i < n; i += 2)
            put_key(keys, bytes, i, edges[t].values[rng_next(&state) % edges[t].count]);
        for (int b = 0; b < 4; ++b)
            for (int e = b + 1; e < 4; ++e)
                for (int descending = 0; descending < 2; ++descending) {
                    const clradix_options options = { marks[b], marks[e], descending };
                    const sort_call *call = &calls[(b + e + descending + z) % 4];
                    const clradix_key_type case_type = _i >= 4 && descending && (b + e + z) % 2 ? numpy_floats[_i] : type;
                    const size_t vs = call->kind == SORT_KEYS ? 0 : call->value_size;
                    void *sorted_values = malloc(n * 8);
                    memcpy(out, keys, n * bytes);
                    memcpy(sorted_values, values, n * 8);
                    ck_assert_int_eq(run_sort(&dev, call, case_type, out, sorted_values, n, &options), CLRADIX_SUCCESS);
                    size_t *perm = oracle_order(case_type, keys, n, &options);
                    const int failed = check_result(call, case_type, keys, out, values, sorted_values, vs, n, perm, msg,
                                                    sizeof msg);
                    ck_assert_msg(!failed, "type %d n=%zu bits [%u, %u) %s %s: %s", case_type, n, marks[b], marks[e],
                                  descending ? "descending" : "ascending", sort_call_name(call, name, sizeof name),
                                  msg);
                    free(perm);
                    free(sorted_values);
                    ++sorts;
                }
        free(keys);
        free(values);
        free(out);
    }
    ck_assert_int_eq(sorts, 2 * 6 * 2);
}
END_TEST

/* Values of 4, 8 and 16 bytes keep every byte, through both APIs and every key width. */
START_TEST(test_value_widths)
{
    static const size_t widths[] = { 4, 8, 16 };
    char msg[256];
    for (size_t v = 0; v < 3; ++v)
        for (int api = 0; api < 2; ++api)
            for (int wide = 0; wide < 4; ++wide) {  /* keys of every width */
                static const clradix_key_type width_types[] = { CLRADIX_I32, CLRADIX_F64, CLRADIX_U8, CLRADIX_F16 };
                const sort_call call = { api ? API_HOST : API_DEVICE, SORT_PAIRS, widths[v] };
                const clradix_key_type type = width_types[wide];
                const int failed = sort_case(&dev, &call, type, DIST_SIXTEEN, 70001, NULL, v * 8 + api * 4 + wide, msg,
                                             sizeof msg);
                ck_assert_msg(!failed, "value size %zu type %d api %d: %s", widths[v], type, api, msg);
            }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("keys");
    TCase *tc = tcase_create("keys");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_edge_values, 0, TYPE_COUNT);
    tcase_add_loop_test(tc, test_every_pattern, 0, test_full_scope() ? 6 : 2);  /* a repeat run: 8-bit keys */
    tcase_add_loop_test(tc, test_descending, 0, TYPE_COUNT);
    tcase_add_loop_test(tc, test_bit_windows, 0, TYPE_COUNT);
    tcase_add_loop_test(tc, test_numpy_edges, 0, 8);
    tcase_add_loop_test(tc, test_float_windows, 0, 8);
    tcase_add_test(tc, test_value_widths);
    suite_add_tcase(s, tc);
    return run_device_suite(s, "test_keys");
}
