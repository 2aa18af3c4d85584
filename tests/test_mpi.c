/*
 * clradix_mpi under mpirun (any number of ranks), every rank on its own POCL sorter, with
 * the test build (a lowered message limit, fault injection). Each case checks on every
 * rank: the output is sorted and exactly n_out long, it follows the neighbours' keys, the
 * multiset of (key, value) over all ranks is the input's, and equal keys come out with
 * rising (source rank, index); rank 0 gathers everything and compares it bit for bit with
 * a single-process sort of the inputs concatenated in rank order and with the qsort
 * oracle. Error cases: every rank returns the same error and no rank hangs (ctest's
 * timeout turns a hang into a failure).
 */
#include "clradix_mpi.h"
#include "mpi_testing.h"
#include "testing.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, ranks;
static clradix_sorter *sorter;
static int failures;
static const char *current_case;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d, %s: ", rank, current_case);                          \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)

/* Where the outputs go: the even split, everything to rank 0, or nothing to rank 0. */
typedef enum out_policy { OUT_BALANCED, OUT_ALL_TO_0, OUT_NONE_TO_0 } out_policy;

enum { ONLY_LAST = 1 << 20 };

typedef struct mpi_case {
    const char *name;
    clradix_key_type type;
    size_t value_size;  /* 0: keys alone */
    dist d;             /* from testutil, or the special keys below when special is set */
    int special;        /* 1: float edge values and 64-bit extremes; 2: 90 % one value */
    size_t n_rank0, n_step;  /* this rank's count: n_rank0 + n_step * rank (n_step may wrap to give 0) */
    int only_rank;      /* >= 0: only that rank has keys (n_rank0 of them); ONLY_LAST: the last rank */
    clradix_options options;
    out_policy out;
} mpi_case;

static size_t count_on(const mpi_case *c, int r)
{
    if (c->only_rank >= 0)
        return r == (c->only_rank == ONLY_LAST ? ranks - 1 : c->only_rank) ? c->n_rank0 : 0;
    return c->n_rank0 + c->n_step * (size_t)r;
}

/* Edge keys: signed zeros, NaNs of both signs and payloads, infinities, denormals, the
   extremes of the integers, mixed with random ones. */
static void *special_keys(clradix_key_type type, size_t n, uint64_t seed)
{
    static const uint32_t edges32[] = { 0x00000000u, 0x80000000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                                        0xFF800123u, 0x7F800000u, 0xFF800000u, 0x00000001u, 0x80000001u,
                                        0x7FFFFFFFu, 0xFFFFFFFFu, 0x3F800000u };
    static const uint64_t edges64[] = { 0, 0x8000000000000000ull, 0x7FF8000000000000ull, 0xFFF8000000000000ull,
                                        0x7FF0000000000001ull, 0xFFF0000000000123ull, 0x7FF0000000000000ull,
                                        0xFFF0000000000000ull, 1, 0x8000000000000001ull, 0x7FFFFFFFFFFFFFFFull,
                                        0xFFFFFFFFFFFFFFFFull, 0x3FF0000000000000ull };
    static const uint64_t edges16[] = { 0x0000, 0x8000, 0x7E00, 0xFE00, 0x7C01, 0xFC23, 0x7C00,  /* binary16 */
                                        0xFC00, 0x0001, 0x8001, 0x7FFF, 0xFFFF, 0x3C00 };
    static const uint64_t edges8[] = { 0x00, 0x80, 0x7F, 0xFF, 0x01, 0x81 };
    const unsigned bytes = key_bytes_of(type);
    const uint64_t *edges = bytes == 1 ? edges8 : bytes == 2 ? edges16 : NULL;
    const size_t count = bytes == 1 ? sizeof edges8 / 8 : sizeof edges16 / 8;
    void *keys = make_keys(type, DIST_RANDOM, n, seed);
    uint64_t state = seed ^ 0x5eed;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t r = rng_next(&state);
        if (r % 3 == 0)
            continue;
        if (edges)
            put_key(keys, bytes, i, edges[(r >> 8) % count]);
        else if (bytes == 4)
            ((uint32_t *)keys)[i] = edges32[(r >> 8) % (sizeof edges32 / sizeof edges32[0])];
        else
            ((uint64_t *)keys)[i] = edges64[(r >> 8) % (sizeof edges64 / sizeof edges64[0])];
    }
    return keys;
}

static void *case_keys(const mpi_case *c, size_t n, uint64_t seed)
{
    if (c->special == 1)
        return special_keys(c->type, n, seed);
    void *keys = make_keys(c->type, c->d, n, seed);
    if (c->special == 2) {  /* 90 % of the keys one value */
        uint64_t state = seed;
        const unsigned bytes = key_bytes_of(c->type);
        for (size_t i = 0; i < n; ++i)
            if (rng_next(&state) % 10 != 0)
                memset((char *)keys + i * bytes, 0x42, bytes);
    }
    return keys;
}

/* Values carry their source: the first 8 bytes (4: the low ones) hold rank << 32 | index. */
static uint64_t value_source(const void *values, size_t value_size, size_t i)
{
    if (value_size == 4) {
        const uint32_t v = ((const uint32_t *)values)[i];
        return (uint64_t)(v >> 20) << 32 | (v & 0xFFFFF);
    }
    uint64_t v;
    memcpy(&v, (const char *)values + i * value_size, 8);
    return v;
}

static void *case_values(size_t value_size, size_t n)
{
    char *values = calloc(n ? n : 1, value_size ? value_size : 1);
    for (size_t i = 0; i < n && value_size; ++i) {
        const uint64_t source = (uint64_t)rank << 32 | i;
        if (value_size == 4) {
            const uint32_t v = (uint32_t)rank << 20 | (uint32_t)i;
            memcpy(values + 4 * i, &v, 4);
        } else
            memcpy(values + value_size * i, &source, 8);
        if (value_size == 16) {
            const uint64_t mix = source * 0x9E3779B97F4A7C15ull;
            memcpy(values + 16 * i + 8, &mix, 8);
        }
    }
    return values;
}

/* A hash of one element's bytes; sums of it over the ranks compare multisets. */
static uint64_t element_hash(const void *key, unsigned key_bytes, const void *value, size_t value_size)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned i = 0; i < key_bytes; ++i)
        h = (h ^ ((const unsigned char *)key)[i]) * 0x100000001b3ull;
    for (size_t i = 0; i < value_size; ++i)
        h = (h ^ ((const unsigned char *)value)[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

static uint64_t multiset_sum(const void *keys, unsigned key_bytes, const void *values, size_t value_size, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += element_hash((const char *)keys + i * key_bytes, key_bytes,
                            values ? (const char *)values + i * value_size : NULL, value_size);
    return sum;
}

static size_t out_count(const mpi_case *c, size_t n_in)
{
    size_t total = 0, balanced = 0;
    for (int r = 0; r < ranks; ++r)
        total += count_on(c, r);
    CHECK(clradix_mpi_balanced_count(MPI_COMM_WORLD, n_in, &balanced) == CLRADIX_SUCCESS, "balanced count");
    CHECK(balanced == total / (size_t)ranks + ((size_t)rank < total % (size_t)ranks), "balanced count %zu", balanced);
    switch (c->out) {
    case OUT_ALL_TO_0: return rank == 0 ? total : 0;
    case OUT_NONE_TO_0:
        if (ranks == 1)
            return total;
        return rank == 0 ? 0 : total / (size_t)(ranks - 1) + ((size_t)(rank - 1) < total % (size_t)(ranks - 1));
    case OUT_BALANCED: break;
    }
    return balanced;
}

/* Gathers every rank's array (count elements of size bytes) in rank order on rank 0. */
static void *gather(const void *data, size_t count, size_t size, size_t *total)
{
    int *counts = calloc((size_t)ranks, sizeof *counts), *offsets = calloc((size_t)ranks, sizeof *offsets);
    const int mine = (int)(count * size);
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t bytes = 0;
    for (int r = 0; r < ranks; ++r) {
        offsets[r] = (int)bytes;
        bytes += (size_t)counts[r];
    }
    char *all = rank == 0 ? malloc(bytes ? bytes : 1) : NULL;
    MPI_Gatherv(data, mine, MPI_BYTE, all, counts, offsets, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(counts);
    free(offsets);
    *total = size ? bytes / size : 0;
    return all;
}

/* Rank 0: the gathered output against a single-process clradix sort of the gathered
   input, bit for bit, and against the qsort oracle. */
static void compare_on_rank0(const mpi_case *c, const void *keys_in, const void *values_in, size_t n_in,
                             const void *keys_out, const void *values_out, size_t n_out)
{
    const unsigned kb = key_bytes_of(c->type);
    size_t total, total_out;
    char *all_in = gather(keys_in, n_in, kb, &total), *all_out = gather(keys_out, n_out, kb, &total_out);
    char *all_values_in = NULL, *all_values_out = NULL;
    if (c->value_size) {
        size_t ignored;
        all_values_in = gather(values_in, n_in, c->value_size, &ignored);
        all_values_out = gather(values_out, n_out, c->value_size, &ignored);
    }
    if (rank == 0) {
        CHECK(total == total_out, "gathered %zu keys out of %zu", total_out, total);
        char *keys = malloc(total * kb + 1), *values = malloc(total * c->value_size + 1);
        memcpy(keys, all_in, total * kb);
        if (c->value_size)
            memcpy(values, all_values_in, total * c->value_size);
        const clradix_status s = c->value_size
            ? clradix_sort_pairs_host(sorter, NULL, c->type, keys, values, c->value_size, total, &c->options)
            : clradix_sort_keys_host(sorter, NULL, c->type, keys, total, &c->options);
        CHECK(s == CLRADIX_SUCCESS, "single-process sort: %s", clradix_status_string(s));
        CHECK(memcmp(keys, all_out, total * kb) == 0, "keys differ from a single-process sort");
        CHECK(!c->value_size || memcmp(values, all_values_out, total * c->value_size) == 0,
              "values differ from a single-process sort");
        size_t *perm = oracle_order(c->type, all_in, total, &c->options);
        char msg[256];
        CHECK(check_sorted(c->type, all_in, all_out, all_values_in, all_values_out, c->value_size, total, perm, msg,
                           sizeof msg) == 0, "oracle: %s", msg);
        free(perm);
        free(keys);
        free(values);
    }
    free(all_in);
    free(all_out);
    free(all_values_in);
    free(all_values_out);
}

/* The checks every rank makes of its own output. */
static void check_locally(const mpi_case *c, const void *keys_out, const void *values_out, size_t n_out)
{
    for (size_t i = 1; i < n_out; ++i) {
        const uint64_t a = oracle_image(c->type, keys_out, i - 1, &c->options),
                       b = oracle_image(c->type, keys_out, i, &c->options);
        if (a > b) {
            CHECK(0, "keys %zu and %zu out of order", i - 1, i);
            break;
        }
        if (a == b && c->value_size &&
            value_source(values_out, c->value_size, i - 1) >= value_source(values_out, c->value_size, i)) {
            CHECK(0, "equal keys %zu and %zu not in (rank, index) order", i - 1, i);
            break;
        }
    }
    /* Every rank's first and last image: mine must follow the last non-empty rank before. */
    uint64_t mine[3] = { n_out > 0, 0, 0 };
    if (n_out) {
        mine[1] = oracle_image(c->type, keys_out, 0, &c->options);
        mine[2] = oracle_image(c->type, keys_out, n_out - 1, &c->options);
    }
    uint64_t *all = malloc(3 * sizeof *all * (size_t)ranks);
    MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
    for (int r = rank - 1; n_out && r >= 0; --r)
        if (all[3 * r]) {
            CHECK(all[3 * r + 2] <= mine[1], "first key below rank %d's last", r);
            break;
        }
    free(all);
}

static void run_case(const mpi_case *c)
{
    current_case = c->name;
    const unsigned kb = key_bytes_of(c->type);
    const size_t n_in = count_on(c, rank), n_out = out_count(c, n_in);
    void *keys_in = case_keys(c, n_in, 1000003u * (uint64_t)(rank + 1) + (uint64_t)c->type);
    void *values_in = case_values(c->value_size, n_in);
    /* Outputs with a guard of 64 bytes past n_out, which must stay as it was. */
    unsigned char *keys_out = malloc(n_out * kb + 64), *values_out = malloc(n_out * c->value_size + 64);
    memset(keys_out, 0xA5, n_out * kb + 64);
    memset(values_out, 0xA5, n_out * c->value_size + 64);

    const clradix_status s = c->value_size
        ? clradix_mpi_sort_pairs(sorter, MPI_COMM_WORLD, c->type, keys_in, values_in, c->value_size, n_in, keys_out,
                                 values_out, n_out, &c->options)
        : clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, c->type, keys_in, n_in, keys_out, n_out, &c->options);
    CHECK(s == CLRADIX_SUCCESS, "%s", clradix_status_string(s));
    int guard_ok = 1;
    for (int i = 0; i < 64; ++i)
        guard_ok &= keys_out[n_out * kb + i] == 0xA5 && values_out[n_out * c->value_size + i] == 0xA5;
    CHECK(guard_ok, "written past n_out");

    check_locally(c, keys_out, values_out, n_out);
    uint64_t sums[2] = { multiset_sum(keys_in, kb, c->value_size ? values_in : NULL, c->value_size, n_in),
                         multiset_sum(keys_out, kb, c->value_size ? values_out : NULL, c->value_size, n_out) },
             total[2];
    MPI_Allreduce(sums, total, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total[0] == total[1], "the outputs are not the inputs' multiset");
    compare_on_rank0(c, keys_in, values_in, n_in, keys_out, values_out, n_out);
    free(keys_in);
    free(values_in);
    free(keys_out);
    free(values_out);
}

static void sort_cases(void)
{
    static const size_t value_sizes[] = { 4, 8, 16 };
    static const clradix_key_type types[] = { CLRADIX_U32, CLRADIX_I32, CLRADIX_F32, CLRADIX_U64,
                                              CLRADIX_I64, CLRADIX_F64, CLRADIX_U8,  CLRADIX_I8,
                                              CLRADIX_U16, CLRADIX_I16, CLRADIX_F16, CLRADIX_BF16 };
    enum { TYPES = sizeof types / sizeof types[0] };
    char names[TYPES][40];
    for (int t = 0; t < TYPES; ++t) {  /* every type, keys and pairs, sizes that differ per rank */
        snprintf(names[t], sizeof names[t], "random %d, pairs %zu", t, value_sizes[t % 3]);
        const mpi_case pairs = { names[t], types[t], value_sizes[t % 3], DIST_RANDOM, 0, 3001, 997, -1, { 0 }, 0 };
        run_case(&pairs);
        mpi_case keys = pairs;
        keys.value_size = 0;
        keys.n_rank0 = 20000;
        run_case(&keys);
    }
    const mpi_case cases[] = {
        { "all keys equal", CLRADIX_U32, 8, DIST_EQUAL, 0, 1500, 100, -1, { 0 }, OUT_BALANCED },
        { "every key on the last rank", CLRADIX_U64, 4, DIST_SIXTEEN, 0, 5000, 0, ONLY_LAST, { 0 }, OUT_BALANCED },
        { "fewer keys than ranks", CLRADIX_I32, 4, DIST_RANDOM, 0, 2, 0, 0, { 0 }, OUT_BALANCED },
        { "90 % one value", CLRADIX_F32, 16, DIST_RANDOM, 2, 4000, 0, -1, { 0 }, OUT_BALANCED },
        { "descending", CLRADIX_I64, 8, DIST_SIXTEEN, 0, 2500, 300, -1, { .descending = 1 }, OUT_BALANCED },
        { "bits 8..40 of u64", CLRADIX_U64, 8, DIST_RANDOM, 0, 2000, 0, -1, { 8, 40, 0 }, OUT_BALANCED },
        { "bits 4..12 of u32, keys", CLRADIX_U32, 0, DIST_RANDOM, 0, 3000, 0, -1, { 4, 12, 0 }, OUT_BALANCED },
        { "bits 28..32 descending", CLRADIX_I32, 4, DIST_RANDOM, 0, 3000, 0, -1, { 28, 32, 1 }, OUT_BALANCED },
        { "empty bit range", CLRADIX_U32, 4, DIST_RANDOM, 0, 1000, 0, -1, { 5, 5, 0 }, OUT_BALANCED },
        { "empty range at bit 64, merged", CLRADIX_U64, 8, DIST_RANDOM, 0, 1000, 0, -1, { 64, 0, 0 }, OUT_ALL_TO_0 },
        { "f32 edge values", CLRADIX_F32, 4, DIST_RANDOM, 1, 3000, 11, -1, { 0 }, OUT_BALANCED },
        { "f64 edge values, descending", CLRADIX_F64, 8, DIST_RANDOM, 1, 3000, 0, -1, { .descending = 1 },
          OUT_BALANCED },
        { "u64 and i64 extremes", CLRADIX_I64, 0, DIST_RANDOM, 1, 3000, 0, -1, { 0 }, OUT_BALANCED },
        { "f16 edge values, descending", CLRADIX_F16, 4, DIST_RANDOM, 1, 3000, 7, -1, { .descending = 1 },
          OUT_BALANCED },
        { "bf16 edge values, bits 3..13", CLRADIX_BF16, 8, DIST_RANDOM, 1, 2500, 0, -1, { 3, 13, 0 }, OUT_BALANCED },
        { "i8 extremes", CLRADIX_I8, 0, DIST_RANDOM, 1, 4000, 0, -1, { 0 }, OUT_BALANCED },
        { "f32 edge values, numpy order", CLRADIX_F32_NUMPY, 4, DIST_RANDOM, 1, 3000, 11, -1, { 0 }, OUT_BALANCED },
        { "f16 edge values, numpy order, descending", CLRADIX_F16_NUMPY, 0, DIST_RANDOM, 1, 3000, 7, -1,
          { .descending = 1 }, OUT_BALANCED },
        { "everything to rank 0", CLRADIX_U32, 8, DIST_RANDOM, 0, 2000, 500, -1, { 0 }, OUT_ALL_TO_0 },
        { "nothing to rank 0", CLRADIX_F64, 4, DIST_LOW_ENTROPY, 0, 2000, 500, -1, { 0 }, OUT_NONE_TO_0 },
        { "no keys anywhere", CLRADIX_U32, 4, DIST_RANDOM, 0, 0, 0, -1, { 0 }, OUT_BALANCED },
        { "several tiles per rank", CLRADIX_U32, 4, DIST_RANDOM, 0, 70001, 0, -1, { 0 }, OUT_BALANCED },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        run_case(&cases[i]);

    /* Counts past the message limit (lowered from INT_MAX): point-to-point pieces. */
    clradix_mpi_testing_message_limit(700);
    const mpi_case big[] = {
        { "pieces of 700, pairs", CLRADIX_U64, 16, DIST_RANDOM, 0, 3001, 1000, -1, { 0 }, OUT_BALANCED },
        { "pieces of 700, all to rank 0", CLRADIX_F32, 0, DIST_SIXTEEN, 0, 2500, 0, -1, { 0 }, OUT_ALL_TO_0 },
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; ++i)
        run_case(&big[i]);
    clradix_mpi_testing_message_limit(0);

    /* A selection budget of 5 counts per round: digits of 1 or 2 bits, groups sharing a
       prefix, and (at 8 ranks) more groups than the budget. */
    clradix_mpi_testing_counts_per_round(5);
    const mpi_case narrow[] = {
        { "narrow digits, u64 pairs", CLRADIX_U64, 8, DIST_RANDOM, 0, 3001, 997, -1, { 0 }, 0 },
        { "narrow digits, 90 % one value", CLRADIX_F32, 4, DIST_RANDOM, 2, 2000, 0, -1, { 0 }, OUT_BALANCED },
        { "narrow digits, bits 3..40 descending", CLRADIX_I64, 0, DIST_SIXTEEN, 0, 2000, 0, -1, { 3, 40, 1 },
          OUT_BALANCED },
    };
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; ++i)
        run_case(&narrow[i]);
    clradix_mpi_testing_counts_per_round(0);
}

/* Every rank returns want (any error when want is -1, the same on every rank), and the
   input and output are untouched. */
static void expect_error(const char *name, clradix_status got, int want, const void *in, const void *in_copy,
                         const void *out, size_t bytes)
{
    current_case = name;
    CHECK(want < 0 ? got != CLRADIX_SUCCESS : got == (clradix_status)want, "returned %s",
          clradix_status_string(got));
    int all[2] = { (int)got, -(int)got }, agreed[2];
    MPI_Allreduce(all, agreed, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(agreed[0] == -agreed[1], "the ranks returned different statuses");
    CHECK(!in || memcmp(in, in_copy, bytes) == 0, "input changed");
    const unsigned char *o = out;
    for (size_t i = 0; o && i < bytes; ++i)
        if (o[i] != 0xA5) {
            CHECK(0, "output written");
            break;
        }
}

static void error_cases(void)
{
    enum { N = 4000 };
    uint32_t *keys = make_keys(CLRADIX_U32, DIST_RANDOM, N, (uint64_t)rank + 7), copy[N], out[N], values[N];
    memcpy(copy, keys, sizeof copy);
    const int last = ranks - 1;
    clradix_status s;
#define RESET() memset(out, 0xA5, sizeof out)

    RESET();
    s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, out, rank == 0 ? N + 1 : N, NULL);
    expect_error("totals that differ", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);

    RESET();
    s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, rank == last ? NULL : keys, N, out, N, NULL);
    expect_error("NULL keys on the last rank", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);

    RESET();
    s = clradix_mpi_sort_pairs(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, rank == last ? NULL : values, 4, N, out,
                               values, N, NULL);
    expect_error("NULL values on the last rank", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);

    RESET();
    s = clradix_mpi_sort_keys(rank == last ? NULL : sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, out, N, NULL);
    expect_error("NULL sorter on the last rank", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);

    if (ranks > 1) {  /* calls that differ between ranks */
        RESET();
        const clradix_options descending = { .descending = rank == last };
        s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, out, N, &descending);
        expect_error("options that differ", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);

        RESET();
        s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, rank == last ? CLRADIX_F32 : CLRADIX_U32, keys, N, out, N,
                                  NULL);
        expect_error("key types that differ", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);
    }

    RESET();
    const clradix_options bad_range = { .begin_bit = 3, .end_bit = 40 };
    s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, out, N, rank == last ? &bad_range : NULL);
    expect_error("a bad bit range on the last rank", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);

    RESET();
    s = clradix_mpi_sort_pairs(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, values, rank == last ? 0 : 4, N, out,
                               values, N, NULL);
    expect_error("value size 0 on the last rank", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);

    RESET();
    s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, keys + 1, N, NULL);
    expect_error("overlapping input and output", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, NULL, 0);

    RESET();
    s = clradix_mpi_sort_keys(sorter, MPI_COMM_NULL, CLRADIX_U32, keys, N, out, N, NULL);
    expect_error("MPI_COMM_NULL", s, CLRADIX_ERROR_INVALID_ARGUMENT, keys, copy, out, sizeof out);

    size_t balanced = 12345;
    s = clradix_mpi_balanced_count(MPI_COMM_WORLD, N, rank == last ? NULL : &balanced);
    expect_error("balanced count into NULL", s, CLRADIX_ERROR_INVALID_ARGUMENT, NULL, NULL, NULL, 0);
    CHECK(balanced == 12345, "balanced count written on error");

    /* The last rank's device fails in its local sort: every rank returns its status. */
    RESET();
    clradix_testing_count_only("clEnqueueNDRangeKernel");
    clradix_testing_fail_at(rank == last ? 1 : 0);
    s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, out, N, NULL);
    clradix_testing_fail_at(0);
    expect_error("a kernel failing in the last rank's local sort", s, -1, keys, copy, out, sizeof out);

    /* ... and in its final sort on the device, after the exchange: the input is still
       untouched. The first launch after as many as the local sort makes fails. */
    if (ranks > 1) {
        memcpy(out, keys, sizeof out);
        clradix_testing_fail_at(0);
        CHECK(clradix_sort_keys_host(sorter, NULL, CLRADIX_U32, out, N, NULL) == CLRADIX_SUCCESS, "dry run");
        const unsigned long local_launches = clradix_testing_calls();
        RESET();
        clradix_mpi_testing_final_sort(2);
        clradix_testing_fail_at(rank == last ? local_launches + 1 : 0);
        s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, out, N, NULL);
        clradix_testing_fail_at(0);
        clradix_mpi_testing_final_sort(0);
        expect_error("a kernel failing in the last rank's final sort", s, -1, keys, copy, NULL, 0);
    }

    /* An allocation failing on the last rank before anything is exchanged (the call's
       host copies and tables): every rank returns OUT_OF_RESOURCES, nothing written. */
    clradix_testing_count_only("malloc");
    for (unsigned long k = 1; k <= 3; ++k) {
        RESET();
        clradix_testing_fail_at(rank == last ? k : 0);
        s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, out, N, NULL);
        clradix_testing_fail_at(0);
        expect_error("an allocation failing on the last rank", s, CLRADIX_ERROR_OUT_OF_RESOURCES, keys, copy, out,
                     sizeof out);
    }
    clradix_testing_count_only(NULL);

    /* MPI failing in the select (nothing written yet) and in the exchange of pairs (the
       input untouched), as MPI reports it on every rank: CLRADIX_ERROR_MPI everywhere, and
       the next call sorts. */
    for (uint32_t i = 0; i < N; ++i)
        values[i] = i;
    uint32_t values_out[N];
    RESET();
    clradix_mpi_testing_fail_phase(CLRADIX_MPI_PHASE_SELECT);
    s = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, N, out, N, NULL);
    clradix_mpi_testing_fail_phase(0);
    expect_error("MPI failing in the select", s, CLRADIX_ERROR_MPI, keys, copy, out, sizeof out);
    clradix_mpi_testing_fail_phase(CLRADIX_MPI_PHASE_EXCHANGE);
    s = clradix_mpi_sort_pairs(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, values, 4, N, out, values_out, N, NULL);
    clradix_mpi_testing_fail_phase(0);
    expect_error("MPI failing in the exchange", s, CLRADIX_ERROR_MPI, keys, copy, NULL, 0);
    for (uint32_t i = 0; i < N; ++i)
        CHECK(values[i] == i, "values input changed at %u", i);
    current_case = "a sort after MPI failures";
    s = clradix_mpi_sort_pairs(sorter, MPI_COMM_WORLD, CLRADIX_U32, keys, values, 4, N, out, values_out, N, NULL);
    CHECK(s == CLRADIX_SUCCESS, "%s", clradix_status_string(s));
    for (size_t i = 1; s == CLRADIX_SUCCESS && i < N; ++i)
        if (out[i - 1] > out[i]) {
            CHECK(0, "not sorted");
            break;
        }

    /* On a communicator of the even ranks and one of the odd ones; the caller's error
       handler stays as it was. */
    current_case = "split communicator";
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Errhandler before, after;
    MPI_Comm_get_errhandler(half, &before);
    int half_size;
    MPI_Comm_size(half, &half_size);
    s = clradix_mpi_sort_keys(sorter, half, CLRADIX_U32, keys, N, keys, N, NULL);
    CHECK(s == CLRADIX_SUCCESS, "%s", clradix_status_string(s));
    for (size_t i = 1; i < N; ++i)
        if (keys[i - 1] > keys[i]) {
            CHECK(0, "in place on half the ranks: not sorted");
            break;
        }
    MPI_Comm_get_errhandler(half, &after);
    CHECK(before == after, "the communicator's error handler changed");
    MPI_Errhandler_free(&before);
    MPI_Errhandler_free(&after);
    MPI_Comm_free(&half);
    free(keys);
#undef RESET
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    const clradix_status created = clradix_sorter_create(NULL, NULL, &sorter);
    int no_device = created == CLRADIX_ERROR_UNSUPPORTED, any_without;
    MPI_Allreduce(&no_device, &any_without, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_without) {
        if (rank == 0)
            fprintf(stderr, "test_mpi: no OpenCL device on some rank: skipped\n");
        clradix_sorter_release(sorter);
        MPI_Finalize();
        return TEST_SKIP;
    }
    current_case = "sorter";
    CHECK(created == CLRADIX_SUCCESS, "clradix_sorter_create: %s", clradix_status_string(created));
    if (created == CLRADIX_SUCCESS) {
        /* Both ways of joining the runs a rank receives: this CPU device's host merge (in
           three parts, one thread each, as on a rank with several processors) and the
           device sort that GPUs use. */
        clradix_mpi_testing_merge_parts(3);
        sort_cases();
        clradix_mpi_testing_merge_parts(0);
        clradix_mpi_testing_final_sort(2);
        if (rank == 0)
            printf("test_mpi: again with the final sort on the device\n");
        sort_cases();
        clradix_mpi_testing_final_sort(0);
        error_cases();
    }

    int all_failures;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();

    /* After MPI_Finalize: an error status, not an abort. */
    current_case = "after MPI_Finalize";
    uint32_t key = 1;
    const clradix_status late = clradix_mpi_sort_keys(sorter, MPI_COMM_WORLD, CLRADIX_U32, &key, 1, &key, 1, NULL);
    CHECK(late == CLRADIX_ERROR_MPI, "returned %s", clradix_status_string(late));
    all_failures += late != CLRADIX_ERROR_MPI;
    clradix_sorter_release(sorter);
    if (rank == 0)
        printf("test_mpi: %d ranks, %s\n", ranks, all_failures ? "FAILED" : "passed");
    return all_failures ? 1 : 0;
}
