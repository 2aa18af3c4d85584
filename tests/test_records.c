/*
 * Records sorted by several fields, and gathers, against an oracle of their own: qsort
 * over each record's field images (testutil's oracle_image, per field, descending as that
 * field's mirror) with the input position last. Records of 1 to 64 bytes, 1 to 4 fields of
 * every key type at any byte offset, mixed directions and numpy's float order, 128-bit
 * keys, through the device and host calls of sort and argsort (4- and 8-byte indices);
 * the host calls by parts under a small memory limit; gathers of every element size with
 * out-of-range indices; user events; rejected calls that change nothing.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void setup(void) { open_dev(NULL); }

static const clradix_key_type all_types[] = {
    CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_U64, CLRADIX_I64, CLRADIX_F64, CLRADIX_U8, CLRADIX_I8,
    CLRADIX_U16, CLRADIX_I16, CLRADIX_F16, CLRADIX_BF16, CLRADIX_F32_NUMPY, CLRADIX_F64_NUMPY, CLRADIX_F16_NUMPY,
    CLRADIX_BF16_NUMPY,
};
enum { TYPES = sizeof all_types / sizeof all_types[0] };

static void describe(char *buf, size_t size, const clradix_key_field *fields, unsigned num_fields)
{
    size_t used = 0;
    for (unsigned f = 0; f < num_fields && used < size; ++f)
        used += (size_t)snprintf(buf + used, size - used, "%s{type %d, offset %zu%s}", f ? ", " : "",
                                 (int)fields[f].type, fields[f].offset, fields[f].descending ? ", descending" : "");
}

/* Random field lists over record sizes 1 to 64, every type at least once as the first
   field, through every call; one composite of 32 bits or less, one of 33 to 64, one past
   64 bits among them by construction of the sizes. */
static const size_t record_sizes[] = { 1, 2, 3, 4, 5, 8, 12, 13, 16, 24, 33, 64 };
enum { RECORD_SIZES = sizeof record_sizes / sizeof record_sizes[0] };

START_TEST(test_field_lists)
{
    const records_call call = (records_call)(_i % RECORDS_CALLS);
    uint64_t state = 1000 + (uint64_t)_i;
    char msg[512], what[512];
    for (unsigned t = 0; t < TYPES; ++t) {
        const size_t record_size = record_sizes[(t + (unsigned)_i) % RECORD_SIZES];
        clradix_key_field fields[4];
        unsigned num_fields = 0;
        for (unsigned f = 0; f < 1 + rng_next(&state) % 4; ++f) {
            const clradix_key_type type = f == 0 ? all_types[t] : all_types[rng_next(&state) % TYPES];
            const size_t width = key_bytes_of(type);
            if (width > record_size)
                continue;
            fields[num_fields++] = (clradix_key_field){ type, (size_t)(rng_next(&state) % (record_size - width + 1)),
                                                        (int)(rng_next(&state) % 2) };
        }
        if (num_fields == 0)
            fields[num_fields++] = (clradix_key_field){ CLRADIX_U8, record_size - 1, 1 };
        const size_t n = t % 4 == 0 ? 3000 : 700, index_size = t % 2 ? 8 : 4;
        describe(what, sizeof what, fields, num_fields);
        ck_assert_msg(!records_case(&dev, call, record_size, n, fields, num_fields, index_size, state, msg,
                                    sizeof msg),
                      "%s, %zu records of %zu bytes, fields %s: %s", records_call_names[call], n, record_size, what, msg);
    }
}
END_TEST

/* Named cases: 128-bit keys (two u64 fields, high word first), records of a value size
   moving through the sort (4, 8, 16 bytes, one word), records that are their key (fields
   tiling them: one word, two, a field across both), the same bytes twice, NaNs in numpy's
   order both ways (and last both ways), n 0 and 1, larger n past the engine's thresholds. */
START_TEST(test_named_cases)
{
    const struct {
        const char *name;
        size_t record_size, n;
        unsigned num_fields;
        clradix_key_field fields[3];
    } cases[] = {
        { "128-bit keys", 16, 20000, 2, { { CLRADIX_U64, 8, 0 }, { CLRADIX_U64, 0, 0 } } },
        { "128-bit keys, descending", 16, 3000, 2, { { CLRADIX_U64, 8, 1 }, { CLRADIX_U64, 0, 1 } } },
        { "16-byte records, u32 key", 16, 50000, 1, { { CLRADIX_U32, 4, 0 } } },
        { "8-byte records, two i16", 8, 30000, 2, { { CLRADIX_I16, 6, 1 }, { CLRADIX_I16, 1, 0 } } },
        { "4-byte records, f32 numpy", 4, 20000, 1, { { CLRADIX_F32_NUMPY, 0, 0 } } },
        { "the same bytes twice", 12, 5000, 3, { { CLRADIX_U32, 0, 0 }, { CLRADIX_F32, 0, 1 }, { CLRADIX_U8, 11, 0 } } },
        { "numpy order both ways", 10, 5000, 2, { { CLRADIX_F64_NUMPY, 1, 1 }, { CLRADIX_F16_NUMPY, 8, 0 } } },
        { "NaNs last both ways", 11, 5000, 3,
          { { CLRADIX_F16_NAN_LAST, 0, 1 }, { CLRADIX_F32_NAN_LAST, 2, 0 }, { CLRADIX_F32_NAN_LAST, 7, 1 } } },
        { "two u32 fields", 8, 100000, 2, { { CLRADIX_U32, 0, 0 }, { CLRADIX_U32, 4, 0 } } },
        { "128-bit fields", 40, 20000, 3, { { CLRADIX_U8, 39, 0 }, { CLRADIX_I128, 3, 1 }, { CLRADIX_U128, 19, 0 } } },
        /* records read as keys (rotated, float fields spread), bytes outside the fields moving along */
        { "read as keys: u32 and a payload", 8, 100000, 1, { { CLRADIX_U32, 4, 0 } } },
        { "read as keys: i16 and u8 above a payload", 4, 100000, 2, { { CLRADIX_I16, 2, 1 }, { CLRADIX_U8, 1, 0 } } },
        { "read as keys: two f32", 8, 100000, 2, { { CLRADIX_F32, 0, 0 }, { CLRADIX_F32, 4, 1 } } },
        { "read as keys: f16 and bf16", 4, 30000, 2, { { CLRADIX_BF16, 2, 1 }, { CLRADIX_F16, 0, 0 } } },
        { "read as keys: f32 above i16", 8, 30000, 2, { { CLRADIX_F32, 2, 1 }, { CLRADIX_I16, 0, 0 } } },
        { "tiled, one 32-bit word", 4, 20000, 3, { { CLRADIX_U8, 0, 0 }, { CLRADIX_I8, 1, 1 }, { CLRADIX_F16, 2, 1 } } },
        { "tiled, a field across two words", 12, 20000, 2, { { CLRADIX_I64, 4, 0 }, { CLRADIX_F32, 0, 1 } } },
        { "no records", 7, 0, 1, { { CLRADIX_U8, 0, 0 } } },
        { "one record", 7, 1, 1, { { CLRADIX_U8, 0, 0 } } },
    };
    char msg[512];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int call = 0; call < RECORDS_CALLS; ++call)
            ck_assert_msg(!records_case(&dev, (records_call)call, cases[c].record_size, cases[c].n,
                                        cases[c].fields, cases[c].num_fields, 4, 77 + c, msg, sizeof msg),
                          "%s, %s: %s", cases[c].name, records_call_names[call], msg);
}
END_TEST

/* Composites of several words sort the most significant word first, then only runs of
   records equal in it by the next (short runs at once, long ones by a segmented sort): high
   words of 16 values (long runs), all equal, runs of exactly 16 and 17 (the short runs'
   limit) and of about 9 (both kinds) over blocks of 4096 records, random; three words with
   ties in the first two; four u32 fields; one run, of the two last records, in the wrong
   order (the only record that continues a run is the last); one run whose third word
   changes once, where a work-item of records_key_runs starts (a mutation that misses the
   change sorts by the last word alone). The low words repeat often too. Top words cut below
   bits that no record changes: a constant first field over small signed values (three
   words), and 128-bit keys of which only the low ten bits vary (the top word is mostly
   below the composite, padded). Top words of the first field's rank (few values whose bits
   vary): 16 random high words, the same with one value that the sample of records_dict
   does not see (record 1: the ranks are not used), a u16 second field below them, and the
   four u32 fields' first (3 values). */
START_TEST(test_runs_of_equal_words)
{
    enum { N = 20000 };
    const clradix_key_field u128[] = { { CLRADIX_U64, 8, 0 }, { CLRADIX_U64, 0, 0 } };
    const clradix_key_field three[] = { { CLRADIX_U64, 0, 1 }, { CLRADIX_I64, 8, 0 }, { CLRADIX_F32, 16, 0 } };
    const clradix_key_field four[] = { { CLRADIX_U32, 12, 0 }, { CLRADIX_I32, 8, 1 }, { CLRADIX_U32, 4, 0 },
                                       { CLRADIX_U32, 0, 0 } };
    const char *const names[] = { "16 high words", "one high word", "runs of 16 and 17", "runs of about 9",
                                  "random high words", "three words", "four u32 fields", "one run at the end",
                                  "a word differs once", "small values below a constant field",
                                  "ten bits vary", "16 random high words", "a high word the sample misses",
                                  "a u16 below 16 random high words" };
    const clradix_key_field narrow[] = { { CLRADIX_U64, 8, 0 }, { CLRADIX_U16, 0, 1 }, { CLRADIX_U32, 4, 0 } };
    uint64_t pool[16];
    for (unsigned k = 0; k < 16; ++k)
        pool[k] = rng_next(&(uint64_t){ 4000 + k }) * 0x9e3779b97f4a7c15u;
    char msg[512];
    for (unsigned c = 0; c < sizeof names / sizeof names[0]; ++c) {
        const int three_fields = c == 5 || c == 9 || c == 13;
        const size_t record_size = three_fields ? 24 : 16;
        uint64_t state = 900 + c;
        static size_t place[N];  /* case 2: record place[i] gets the i-th high word */
        for (size_t i = 0; i < N; ++i)
            place[i] = i;
        for (size_t i = N - 1; i > 0; --i) {
            const size_t j = (size_t)(rng_next(&state) % (i + 1)), t = place[i];
            place[i] = place[j];
            place[j] = t;
        }
        for (int call = 0; call < RECORDS_CALLS; ++call) {
            unsigned char *records = make_records(record_size, N, 31 + c);
            for (size_t i = 0; i < N; ++i) {
                const uint64_t draw = rng_next(&state);
                unsigned char *r = records + (c == 2 ? place[i] : i) * record_size;
                uint64_t high = c == 0 ? draw % 16 : c == 8 || c == 10 ? 7 : c == 3 ? draw % (N / 9) : draw;
                if (c == 1)  /* (bits of both values in its top word: ORed into another, it would disorder it) */
                    high = 0x5a5a5a5a5a5a5a5au;
                if (c == 2)  /* runs of exactly 16, then of 17 */
                    high = i < N / 2 ? i / 16 : ((uint64_t)1 << 40) + i / 17;
                if (c == 5 || c == 6)  /* few values of the first two words' fields */
                    high = draw % 3 * 0x0101010101010101u;
                if (c == 7)
                    high = (uint64_t)(i < N - 2 ? i + 1 : N) << 32;
                if (c == 9)  /* (the i64 field) */
                    high = (uint64_t)((int64_t)(draw % 1000) - 500);
                if (c >= 11)
                    high = c == 12 && i == 1 ? 12345 : pool[draw % 16];
                memcpy(r + 8, &high, 8);
                if (c == 7 && i >= N - 2)
                    memcpy(r, &(uint64_t){ N - i }, 8);
                if (c == 5)
                    memcpy(r, &(uint64_t){ draw >> 40 & 3 }, 8);
                if (c == 9)
                    memcpy(r, &(uint64_t){ 5 }, 8);
                if (c == 10)
                    memcpy(r, &(uint64_t){ draw >> 20 & 1023 }, 8);
                if (c == 8)  /* (2560: a multiple of the records per work-item on every device here) */
                    memcpy(r, &(uint64_t){ (i < 2560 ? 0 : (uint64_t)9 << 32) | i % 7 }, 8);
            }
            const int failed = records_check(&dev, (records_call)call, records, record_size, N,
                                             c == 13 ? narrow : three_fields ? three : c == 6 ? four : u128,
                                             three_fields ? 3 : c == 6 ? 4 : 2, 4,
                                             msg, sizeof msg);
            free(records);
            ck_assert_msg(!failed, "%s, %s: %s", names[c], records_call_names[call], msg);
        }
    }
}
END_TEST

/* Records of 16 bytes by one field of 32 or 64 bits at a multiple of its width, past the
   engine's medium jobs: the sort reads the field from the records where it first counts
   (keys_in_records in records.c), at every word of the record: random keys, signed ones
   of a few values (level 0's top digits do not vary: the job goes on unmoved), all equal
   (done at level 0, nothing moves), floats descending, most keys one value (split by value
   on CPU rows), u64 keys. */
START_TEST(test_one_field_read_in_place)
{
    enum { N = 300000 };
    const struct {
        const char *name;
        clradix_key_field field;
    } cases[] = {
        { "random u32 at 12", { CLRADIX_U32, 12, 0 } },
        { "i32 of a few values at 0, descending", { CLRADIX_I32, 0, 1 } },
        { "all equal u32 at 4", { CLRADIX_U32, 4, 0 } },
        { "f32 at 8, descending", { CLRADIX_F32, 8, 1 } },
        { "u32 mostly one value at 4", { CLRADIX_U32, 4, 0 } },
        { "random u64 at 8", { CLRADIX_U64, 8, 0 } },
        { "i64 at 0, descending", { CLRADIX_I64, 0, 1 } },
    };
    char msg[512];
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (int call = 0; call < RECORDS_CALLS; ++call) {
            unsigned char *records = make_records(16, N, 60 + c);
            uint64_t state = 700 + c;
            for (size_t i = 0; i < N; ++i) {
                const uint64_t draw = rng_next(&state);
                unsigned char *field = records + 16 * i + cases[c].field.offset;
                if (c == 1)
                    memcpy(field, &(int32_t){ (int32_t)(draw % 5) - 2 }, 4);
                if (c == 2)
                    memcpy(field, &(uint32_t){ 0xC0FFEEu }, 4);
                if (c == 3)
                    memcpy(field, &(float){ (float)((int64_t)(draw % 2001) - 1000) / 8.0f }, 4);
                if (c == 4)
                    memcpy(field, &(uint32_t){ draw % 10 ? 42u : (uint32_t)(draw >> 32) }, 4);
            }
            const int failed = records_check(&dev, (records_call)call, records, 16, N, &cases[c].field, 1, 4, msg,
                                             sizeof msg);
            free(records);
            ck_assert_msg(!failed, "%s, %s: %s", cases[c].name, records_call_names[call], msg);
        }
}
END_TEST

/* One call of 128-bit keys (CLRADIX_U128, CLRADIX_I128) with values of value_size bytes
   (0: keys alone; argsort: indices of that size), device (buffers of its own) or host:
   the keys (unless argsort), values or indices against the records oracle of the two words. */
static int wide_case(clradix_key_type type, int host, int argsort, size_t value_size, int descending, size_t n,
                     uint64_t seed, char *msg, size_t msg_size)
{
    unsigned char *keys = make_records(16, n, seed), *input = malloc(16 * n);
    uint64_t state = seed;
    for (size_t i = 0; i < n; ++i)  /* high words of few values in half of the cases: runs */
        if (seed % 2)
            memcpy(keys + 16 * i + 8, &(uint64_t){ rng_next(&state) % 5 - 2 }, 8);
    memcpy(input, keys, 16 * n);
    unsigned char *values = malloc(n * (value_size ? value_size : 1));
    for (size_t i = 0; i < n * value_size; ++i)
        values[i] = (unsigned char)(i * 7 + 1);
    unsigned char *in_values = malloc(n * (value_size ? value_size : 1));
    memcpy(in_values, values, n * value_size);
    const clradix_key_field two[] = { { type == CLRADIX_I128 ? CLRADIX_I64 : CLRADIX_U64, 8, descending },
                                      { CLRADIX_U64, 0, descending } };
    size_t *perm = records_oracle(input, 16, n, two, 2);
    const clradix_options options = { 0, 0, descending };
    clradix_status status;
    if (host) {
        status = argsort ? clradix_argsort_host(dev.sorter, NULL, type, keys, values, value_size, n, &options)
               : value_size ? clradix_sort_pairs_host(dev.sorter, NULL, type, keys, values, value_size, n, &options)
                            : clradix_sort_keys_host(dev.sorter, NULL, type, keys, n, &options);
    } else {
        cl_int err;
        cl_mem k = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 16 * n, keys, &err);
        cl_mem v = value_size ? clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * value_size,
                                               values, &err)
                              : NULL;
        cl_event done = NULL;
        status = argsort ? clradix_argsort(dev.sorter, dev.queue, type, k, v, value_size, n, &options, 0, NULL, &done)
               : value_size
                   ? clradix_sort_pairs(dev.sorter, dev.queue, type, k, v, value_size, n, &options, 0, NULL, &done)
                   : clradix_sort_keys(dev.sorter, dev.queue, type, k, n, &options, 0, NULL, &done);
        if (done) {
            clWaitForEvents(1, &done);
            clReleaseEvent(done);
        }
        clEnqueueReadBuffer(dev.queue, k, CL_TRUE, 0, 16 * n, keys, 0, NULL, NULL);
        if (v) {
            clEnqueueReadBuffer(dev.queue, v, CL_TRUE, 0, n * value_size, values, 0, NULL, NULL);
            clReleaseMemObject(v);
        }
        clReleaseMemObject(k);
    }
    int failed = status != CLRADIX_SUCCESS;
    if (failed)
        snprintf(msg, msg_size, "%s", clradix_status_string(status));
    for (size_t i = 0; i < n && !failed; ++i) {
        const size_t from = perm[i];
        if (argsort ? get_key(values, (unsigned)value_size, i) != from
                    : memcmp(keys + 16 * i, input + 16 * from, 16)
                          || memcmp(values + i * value_size, in_values + from * value_size, value_size)) {
            snprintf(msg, msg_size, "position %zu of %zu: not input %zu", i, n, from);
            failed = 1;
        }
    }
    if (!failed && argsort && memcmp(keys, input, 16 * n)) {
        snprintf(msg, msg_size, "argsort changed the keys");
        failed = 1;
    }
    free(keys);
    free(input);
    free(values);
    free(in_values);
    free(perm);
    return failed;
}

/* 128-bit key types through sort, pairs (4 and 16 bytes) and argsort (4- and 8-byte
   indices), device and host, both directions, high words random or of few values; the
   calls that do not take them refuse them. */
START_TEST(test_128_bit_key_types)
{
    char msg[512];
    const clradix_key_type types[] = { CLRADIX_U128, CLRADIX_I128 };
    const struct { int argsort; size_t value_size; } calls[] = { { 0, 0 }, { 0, 4 }, { 0, 16 }, { 1, 4 }, { 1, 8 } };
    for (unsigned t = 0; t < 2; ++t)
        for (int host = 0; host < 2; ++host)
            for (unsigned c = 0; c < sizeof calls / sizeof calls[0]; ++c) {
                const int descending = (int)((t + c) % 2);
                const uint64_t seed = 50 + 10 * t + 3 * (uint64_t)host + c;
                ck_assert_msg(!wide_case(types[t], host, calls[c].argsort, calls[c].value_size, descending,
                                         c == 0 ? 70000 : 9000, seed, msg, sizeof msg),
                              "type %d, %s, %s, %zu-byte values, %s: %s", (int)types[t], host ? "host" : "device",
                              calls[c].argsort ? "argsort" : "sort", calls[c].value_size,
                              descending ? "descending" : "ascending", msg);
            }
    /* Refused: a part of the key, segments, top-k, several sorters. */
    uint64_t keys[8] = { 0 };
    const clradix_options low_word = { 0, 64, 0 };
    ck_assert_int_eq(clradix_sort_keys_host(dev.sorter, NULL, CLRADIX_U128, keys, 4, &low_word),
                     CLRADIX_ERROR_UNSUPPORTED);
    const size_t offsets[] = { 0, 4 };
    ck_assert_int_eq(clradix_sort_segments_keys_host(dev.sorter, NULL, CLRADIX_U128, keys, 4, offsets, 1, NULL),
                     CLRADIX_ERROR_UNSUPPORTED);
    uint64_t best[2];
    ck_assert_int_eq(clradix_topk_host(dev.sorter, NULL, CLRADIX_I128, keys, 4, 1, best, NULL, 4, NULL),
                     CLRADIX_ERROR_UNSUPPORTED);
    clradix_sorter *const two[] = { dev.sorter, dev.sorter };
    ck_assert_int_eq(clradix_sort_keys_host_multi(two, 2, CLRADIX_U128, keys, 4, NULL), CLRADIX_ERROR_UNSUPPORTED);
}
END_TEST

/* The host calls by parts: a memory limit far below the arrays makes the pairs sorts go out
   of core. */
START_TEST(test_host_by_parts)
{
    const clradix_key_field fields[] = { { CLRADIX_I32, 2, 0 }, { CLRADIX_F64, 9, 1 } };
    const clradix_key_field as_key[] = { { CLRADIX_F32, 0, 1 }, { CLRADIX_I16, 6, 0 } };  /* read as keys */
    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, 1 << 20), CLRADIX_SUCCESS);
    char msg[512];
    for (int call = RECORDS_HOST_SORT; call <= RECORDS_HOST_ARGSORT; ++call) {
        ck_assert_msg(!records_case(&dev, (records_call)call, 20, 60000, fields, 2, 8, 5, msg, sizeof msg),
                      "%s by parts: %s", records_call_names[call], msg);
        ck_assert_msg(!records_case(&dev, (records_call)call, 8, 100000, as_key, 2, 4, 6, msg, sizeof msg),
                      "%s by parts, read as keys: %s", records_call_names[call], msg);
    }
}
END_TEST

/* Gathers of every element size from 1 to 40 and 64, both index sizes, device and host
   (the host one also on the host, past a small memory limit), indices past src_n clamped:
   the other elements right, nothing read outside src (the sanitizer and oclgrind jobs). */
START_TEST(test_gather)
{
    enum { SRC_N = 1000, N = 1500 };
    uint64_t state = 9;
    for (size_t element = 1; element <= 64; element = element == 40 ? 64 : element + 1) {
        for (size_t index_size = 4; index_size <= 8; index_size += 4) {
            unsigned char *src = make_records(element, SRC_N, element), *want = malloc(element * N);
            unsigned char *got = malloc(element * N), *indices = malloc(index_size * N);
            for (size_t i = 0; i < N; ++i) {
                const uint64_t r = rng_next(&state), from = i % 97 == 5 ? SRC_N + r % 3 : r % SRC_N;
                put_key(indices, (unsigned)index_size, i, from);
                memcpy(want + i * element, src + (from < SRC_N ? from : 0) * element, element);
            }
            for (int host = 0; host <= 2; ++host) {
                memset(got, 0xEE, element * N);
                clradix_status status;
                if (host) {
                    if (host == 2)
                        ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, 1000), CLRADIX_SUCCESS);
                    status = clradix_gather_host(dev.sorter, NULL, indices, index_size, src, SRC_N, got, element, N);
                    ck_assert_int_eq(clradix_sorter_set_memory_limit(dev.sorter, 0), CLRADIX_SUCCESS);
                } else {
                    cl_int err;
                    cl_mem i_buf = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, index_size * N,
                                                  indices, &err);
                    cl_mem s_buf = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, element * SRC_N,
                                                  src, &err);
                    cl_mem d_buf = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, element * N, NULL, &err);
                    cl_event done = NULL;
                    status = clradix_gather(dev.sorter, dev.queue, i_buf, index_size, s_buf, SRC_N, d_buf, element, N,
                                            0, NULL, &done);
                    if (status == CLRADIX_SUCCESS) {
                        ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, d_buf, CL_TRUE, 0, element * N, got, 1, &done,
                                                             NULL), CL_SUCCESS);
                        clReleaseEvent(done);
                    }
                    clReleaseMemObject(i_buf);
                    clReleaseMemObject(s_buf);
                    clReleaseMemObject(d_buf);
                }
                ck_assert_int_eq(status, CLRADIX_SUCCESS);
                for (size_t i = 0; i < N; ++i)
                    if (i % 97 != 5)
                        ck_assert_msg(!memcmp(got + i * element, want + i * element, element),
                                      "gather (%s) of %zu-byte elements, %zu-byte indices: element %zu",
                                      host == 2 ? "host, on the host" : host ? "host" : "device", element, index_size,
                                      i);
            }
            free(src);
            free(want);
            free(got);
            free(indices);
        }
    }
}
END_TEST

/* The device call only enqueues: its event stays open while a user event on its wait list
   does; the result comes once that opens. */
START_TEST(test_waits_for_the_wait_list)
{
    /* a composite made on the device first; one field that the sort reads in place (its
       first command then) */
    const clradix_key_field two_fields[] = { { CLRADIX_U16, 0, 0 }, { CLRADIX_U64, 2, 1 } };
    const clradix_key_field one_field[] = { { CLRADIX_U32, 4, 0 } };
    const size_t N = _i ? 300000 : 4000, SIZE = _i ? 16 : 12;
    const clradix_key_field *fields = _i ? one_field : two_fields;
    const unsigned num_fields = _i ? 1 : 2;
    unsigned char *records = make_records(SIZE, N, 4), *back = malloc(SIZE * N);
    size_t *perm = records_oracle(records, SIZE, N, fields, num_fields);
    cl_int err;
    cl_mem buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, SIZE * N, records, &err);
    cl_event gate = clCreateUserEvent(dev.context, &err), done = NULL;
    ck_assert_int_eq(clradix_sort_records(dev.sorter, dev.queue, buffer, SIZE, N, fields, num_fields, 1, &gate, &done),
                     CLRADIX_SUCCESS);
    ck_assert_int_eq(clFlush(dev.queue), CL_SUCCESS);
    nanosleep(&(struct timespec){ 0, 100000000 }, NULL);  /* time to run, had it not waited */
    cl_int state = CL_COMPLETE;
    ck_assert_int_eq(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL), CL_SUCCESS);
    ck_assert_int_gt(state, CL_COMPLETE);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(dev.queue, buffer, CL_TRUE, 0, SIZE * N, back, 1, &done, NULL), CL_SUCCESS);
    for (size_t i = 0; i < N; ++i)
        ck_assert(!memcmp(back + i * SIZE, records + perm[i] * SIZE, SIZE));
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(buffer);
    free(records);
    free(back);
    free(perm);
}
END_TEST

/* Rejected calls return their status and change nothing. */
START_TEST(test_arguments)
{
    enum { N = 100, SIZE = 8 };
    unsigned char *records = make_records(SIZE, N, 2), *copy = malloc(SIZE * N);
    memcpy(copy, records, SIZE * N);
    uint32_t indices[N] = { 0 }, small[N / 2];
    const clradix_key_field good[] = { { CLRADIX_U32, 4, 0 } }, past[] = { { CLRADIX_U64, 1, 0 } },
                            unknown[] = { { (clradix_key_type)99, 0, 0 } };
    clradix_key_field many[CLRADIX_MAX_FIELDS + 1];
    for (unsigned f = 0; f <= CLRADIX_MAX_FIELDS; ++f)
        many[f] = (clradix_key_field){ CLRADIX_U8, f % SIZE, 0 };
    clradix_sorter *s = dev.sorter;
    const clradix_status invalid = CLRADIX_ERROR_INVALID_ARGUMENT;
    ck_assert_int_eq(clradix_sort_records_host(NULL, NULL, records, SIZE, N, good, 1), invalid);
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, NULL, SIZE, N, good, 1), invalid);
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, records, 0, N, good, 1), invalid);
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, records, SIZE, N, NULL, 1), invalid);
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, records, SIZE, N, good, 0), invalid);
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, records, SIZE, N, many, CLRADIX_MAX_FIELDS + 1), invalid);
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, records, SIZE, N, past, 1), invalid);
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, records, SIZE, N, unknown, 1), invalid);
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, records, 3, N, good, 1), invalid);  /* u32 at 4 of 3 bytes */
    ck_assert_int_eq(clradix_sort_records_host(s, NULL, records, SIZE, SIZE_MAX / 4, good, 1), invalid);
    ck_assert_int_eq(clradix_argsort_records_host(s, NULL, records, SIZE, N, good, 1, indices, 2), invalid);
    ck_assert_int_eq(clradix_argsort_records_host(s, NULL, records, SIZE, N, good, 1, NULL, 4), invalid);
    ck_assert_int_eq(clradix_gather_host(s, NULL, indices, 4, records, N, small, 0, N), invalid);
    ck_assert_int_eq(clradix_gather_host(s, NULL, indices, 3, records, N, small, 1, N), invalid);
    ck_assert_int_eq(clradix_gather_host(s, NULL, indices, 4, records, 0, small, 1, N), invalid);
    ck_assert(!memcmp(records, copy, SIZE * N));
    for (int i = 0; i < N; ++i)
        ck_assert_uint_eq(indices[i], 0);

    cl_int err;
    cl_mem buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, SIZE * N, records, &err);
    cl_mem short_buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, SIZE * N - 1, NULL, &err);
    cl_mem index_buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, 4 * N, NULL, &err);
    cl_mem read_only = clCreateBuffer(dev.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, SIZE * N, records, &err);
    cl_mem dst = clCreateBuffer(dev.context, CL_MEM_READ_WRITE, SIZE * N, NULL, &err);
    cl_command_queue q = dev.queue;
    cl_event event = (cl_event)&err;  /* must stay untouched */
    ck_assert_int_eq(clradix_sort_records(s, q, buffer, SIZE, N, past, 1, 0, NULL, &event), invalid);
    ck_assert_int_eq(clradix_sort_records(s, q, buffer, SIZE, N, good, 0, 0, NULL, &event), invalid);
    ck_assert_int_eq(clradix_sort_records(s, q, buffer, 0, N, good, 1, 0, NULL, &event), invalid);
    ck_assert_int_eq(clradix_sort_records(s, q, buffer, SIZE, N, good, 1, 1, NULL, &event), invalid);
    ck_assert_int_eq(clradix_sort_records(s, q, buffer, SIZE, (size_t)CLRADIX_MAX_N + 1, good, 1, 0, NULL, &event),
                     invalid);
    ck_assert_int_eq(clradix_sort_records(s, q, short_buffer, SIZE, N, good, 1, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_sort_records(s, q, read_only, SIZE, N, good, 1, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_argsort_records(s, q, buffer, SIZE, N, good, 1, index_buffer, 16, 0, NULL, &event),
                     invalid);
    ck_assert_int_eq(clradix_argsort_records(s, q, buffer, SIZE, N, good, 1, buffer, 4, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* indices overlapping the records */
    ck_assert_int_eq(clradix_argsort_records(s, q, buffer, SIZE, N, good, 1, index_buffer, 8, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* 8-byte indices: too small */
    ck_assert_int_eq(clradix_gather(s, q, index_buffer, 4, buffer, N, buffer, SIZE, N, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* dst overlapping src */
    ck_assert_int_eq(clradix_gather(s, q, index_buffer, 4, buffer, N, short_buffer, SIZE, N, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);
    ck_assert_int_eq(clradix_gather(s, q, index_buffer, 4, buffer, N + 1, dst, SIZE, N, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* src smaller than src_n elements */
    ck_assert_int_eq(clradix_gather(s, q, index_buffer, 8, buffer, N, dst, SIZE, N, 0, NULL, &event),
                     CLRADIX_ERROR_INVALID_BUFFER);  /* indices smaller than n 8-byte indices */
    ck_assert_int_eq(clradix_gather(s, q, index_buffer, 4, buffer, 0, dst, SIZE, N, 0, NULL, &event), invalid);
    ck_assert_int_eq(clradix_gather(s, q, index_buffer, 4, buffer, N, dst, 0, N, 0, NULL, &event), invalid);
    ck_assert(event == (cl_event)&err);
    unsigned char *back = malloc(SIZE * N);
    ck_assert_int_eq(clEnqueueReadBuffer(q, buffer, CL_TRUE, 0, SIZE * N, back, 0, NULL, NULL), CL_SUCCESS);
    ck_assert(!memcmp(back, copy, SIZE * N));
    /* n 0: an event that follows the wait list, nothing read. */
    ck_assert_int_eq(clradix_sort_records(s, q, buffer, SIZE, 0, good, 1, 0, NULL, &event), CLRADIX_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &event), CL_SUCCESS);
    clReleaseEvent(event);
    free(back);
    clReleaseMemObject(buffer);
    clReleaseMemObject(short_buffer);
    clReleaseMemObject(index_buffer);
    clReleaseMemObject(read_only);
    clReleaseMemObject(dst);
    free(records);
    free(copy);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("records");
    TCase *tc = tcase_create("records");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_field_lists, 0, test_full_scope() ? 2 * RECORDS_CALLS : RECORDS_CALLS);
    tcase_add_test(tc, test_named_cases);
    tcase_add_test(tc, test_runs_of_equal_words);
    tcase_add_test(tc, test_one_field_read_in_place);
    tcase_add_test(tc, test_128_bit_key_types);
    tcase_add_test(tc, test_host_by_parts);
    tcase_add_test(tc, test_gather);
    tcase_add_test(tc, test_arguments);
    /* POCL's basic device hangs in clSetUserEventStatus when a command waits on the event
       (pocl/pocl#1177, see test_calls.c). */
    const char *pocl_devices = getenv("POCL_DEVICES");
    if (!pocl_devices || strcmp(pocl_devices, "basic"))
        tcase_add_loop_test(tc, test_waits_for_the_wait_list, 0, 2);
    suite_add_tcase(s, tc);
    return run_device_suite(s, "test_records");
}
