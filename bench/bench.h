/* clradix-bench: declarations shared by its source files. */
#ifndef CLRADIX_BENCH_H
#define CLRADIX_BENCH_H

#include <clradix.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum bench_dist {
    DIST_RANDOM,      /* every bit pattern (floats: every finite one) */
    DIST_SORTED,      /* random keys, ascending */
    DIST_REVERSE,     /* random keys, descending */
    DIST_EQUAL,       /* one value */
    DIST_FEW,         /* 16 values */
    DIST_LOWENTROPY,  /* AND of three random words */
    DIST_RANGE16,     /* uniform in 0 .. 2^16 - 1: small values in wide keys */
    DIST_UNIT,        /* floats uniform in [0, 1); integers uniform below 2^20 (8- and 16-bit: every value) */
    DIST_NORMAL,      /* floats: standard normal; integers: normal around the range's middle (0 if
                         signed), standard deviation 2^(bits/2), rounded and clamped */
    DIST_ZIPF,        /* Zipf's law, exponent 1.1, over 1 .. the largest integer of the type
                         (floats: the largest integer they hold exactly), as a key of the type */
    /* CUB's entropy levels: a uniform key ANDed with 1, 2, 3 or 4 more uniform words (each bit
       set with probability 1/4 .. 1/32: 0.811, 0.544, 0.337, 0.201 bits of entropy a bit) */
    DIST_ENTROPY811,
    DIST_ENTROPY544,
    DIST_ENTROPY337,
    DIST_ENTROPY201,
    /* The IPS4o suite's (Axtmann et al.) with integers i as keys of the type (floats: the
       nearest value; narrow integers: wrapped) */
    DIST_EXPONENTIAL,   /* x drawn as 2^j + a uniform draw below 2^j, j uniform below
                           min(ceil(log2 n) + 1, bits), then hashed to a key (floats: a finite one) */
    DIST_ROOTDUP,       /* key i: i mod floor(sqrt(n)) */
    DIST_TWODUP,        /* key i: (i * i + m / 2) mod m, m the largest power of two <= n */
    DIST_ALMOSTSORTED,  /* key i: i, then floor(sqrt(n)) swaps of two random places */
    DIST_COUNT
} bench_dist;

/* workload.c: the next word of a splitmix64 generator. distributions.c: a key of type
   drawn from d (DIST_UNIT, DIST_NORMAL or DIST_ZIPF); key i of n of type drawn from d
   (DIST_EXPONENTIAL, DIST_ROOTDUP, DIST_TWODUP, DIST_ALMOSTSORTED before its swaps). */
uint64_t bench_random(uint64_t *state);
uint64_t bench_mix(uint64_t z);  /* splitmix64's finaliser, bench_random's output function */
uint64_t real_key(clradix_key_type type, bench_dist d, uint64_t *state);
int finite_key(clradix_key_type type, uint64_t key);  /* 0 for a float's NaN or infinity */
uint64_t suite_key(clradix_key_type type, bench_dist d, size_t i, size_t n, uint64_t *state);

/* timing.c */
double seconds(void);  /* a monotonic clock */
/* Sorts times ascending and returns their median. */
double sort_times(double *times, int count);

/* cli.c, the command lines: a count such as 1000, 2^20, 64K or 16M; a key type or
   distribution by name; a value size of 0 (keys alone), 4, 8 or 16 (each 1, or 0 when
   text is none); add(context, item) for each comma-separated item of list (0 when one is
   rejected). */
int parse_size(const char *text, size_t *out);
int parse_type(const char *item, clradix_key_type *type);
int parse_value_size(const char *item, size_t *value_size);
int parse_dist(const char *item, bench_dist *dist);
int for_each_item(const char *list, int (*add)(void *context, const char *item), void *context);

const char *dist_name(bench_dist d);
/* Key types the benchmark knows: every clradix_key_type, in enum order. */
enum { TYPE_COUNT = CLRADIX_BF16_NUMPY + 1 };
const char *type_name(clradix_key_type type);
unsigned type_bytes(clradix_key_type type);

/* workload.c: inputs, the qsort baseline, verification. */

/* n keys of type in distribution d, deterministic in seed. */
void make_keys(clradix_key_type type, bench_dist d, size_t n, uint64_t seed, void *keys);
/* Values that identify their position: value i holds i (16-byte values: i and a hash of i). */
void make_values(size_t value_size, size_t n, void *values);

/* The key's place in clradix's order as an unsigned number (floats: totalOrder). */
uint64_t order_image(clradix_key_type type, uint64_t key);

/* Sorts keys (and values) on the host with qsort in clradix's key order: keys alone with a
   plain comparator; pairs as (key, index) records, so that the sort is stable. */
void qsort_sort(clradix_key_type type, void *keys, void *values, size_t value_size, size_t n);

/* Fingerprint of the input, to check that a result is a permutation of it. */
typedef struct input_digest {
    uint64_t sum, mix;
} input_digest;
input_digest digest_keys(clradix_key_type type, const void *keys, size_t n);

/* Checks a sort's output: keys in order, a permutation of the input (by digest); with
   values made by make_values: each value still with its key, each once, stable. Returns
   0, or 1 with a reason in why. */
int verify_sort(clradix_key_type type, const void *in_keys, input_digest digest, const void *out_keys,
                const void *out_values, size_t value_size, size_t n, char *why, size_t why_size);

/* Checks a top-k: for each of rows rows of row_length keys, out_keys and out_indices (k each,
   indices in the row) are the first k of the row's stable sort. Returns 0, or 1 with a
   reason in why. */
int verify_topk(clradix_key_type type, const void *keys, size_t rows, size_t row_length, size_t k,
                const void *out_keys, const uint32_t *out_indices, char *why, size_t why_size);

/* Offsets of segments covering [0, n): of length keys each (the last one shorter), or with
   length 0 a power-law mix (as many segments of 2^e to 2^(e+1) - 1 keys for every e below
   20, the length uniform within); num_segments + 1 values, malloc'd. */
uint32_t *make_segment_offsets(size_t n, size_t length, uint64_t seed, size_t *num_segments);

/* verify_sort for each segment [offsets[s], offsets[s + 1]) of a segmented sort on its own
   (values made by make_values hold their index in the whole input). */
int verify_segments(clradix_key_type type, const void *in_keys, const void *out_keys, const void *out_values,
                    size_t value_size, const uint32_t *offsets, size_t num_segments, char *why, size_t why_size);

/* Passes that move data when these keys are sorted with radix_bits-bit digits: clradix
   skips a pass in which every key has the same digit. */
unsigned executed_passes(clradix_key_type type, const void *keys, size_t n, unsigned radix_bits);
/* Bytes the sort moves per key in global memory (see docs/performance.md): reads and writes of every
   kernel that touches keys or values. */
double bytes_per_key(clradix_key_type type, size_t value_size, size_t n, unsigned passes, const clradix_tuning *t);

/* records.c, --records SIZE:FIELDS: records of SIZE bytes keyed by fields of the given types
   (most significant first), one after another from byte 0; the rest random payload. A
   field may name a distribution of its own (u64/few). */
typedef struct record_spec {
    char text[64];           /* as given */
    size_t record_size;
    unsigned num_fields, key_bits;
    clradix_key_field fields[CLRADIX_MAX_FIELDS];
    int own_dist[CLRADIX_MAX_FIELDS];  /* the field's keys from dist[f], not the run's */
    bench_dist dist[CLRADIX_MAX_FIELDS];
} record_spec;
int parse_record_spec(const char *text, record_spec *spec);
/* n records with each field drawn from d (or its own distribution); NULL when out of memory. */
unsigned char *make_records(const record_spec *spec, bench_dist d, size_t n, uint64_t seed);
/* The ways timed: clradix_sort_records; clradix_argsort of the composite key then
   clradix_gather of the records (composites of 64 bits at most); the plain sort of the
   composite's width, u64 past 64 bits (values: the records where plain_value_size says so). */
typedef enum record_way { RECORDS_SORT, RECORDS_KEY_GATHER, RECORDS_PLAIN, RECORD_WAYS } record_way;
size_t plain_value_size(const record_spec *spec);
/* The first call (ms) and runs timed calls (seconds into times) of a way on device buffers
   uploaded before each; returns 1 verified, 0 wrong or failed, -1 not run (why says why). */
int time_records(record_way way, const record_spec *spec, cl_context context, cl_command_queue queue,
                 clradix_sorter *sorter, const unsigned char *input, size_t n, int runs, double *times,
                 double *first_ms, char *why, size_t why_size);
/* copy_bandwidth.c: GB/s (bytes read + written per second) of a plain copy kernel on the
   device, median of several runs over a buffer of about bytes; negative on failure. */
double copy_bandwidth(cl_context context, cl_device_id device, cl_command_queue queue, size_t bytes);

/* tune.c: clradix-bench --tune; returns the exit status. */
int tune_device(cl_device_id device, clradix_key_type type, size_t value_size, size_t n, int runs);

/* boost_baseline.cpp, when Boost.Compute is available (CLRADIX_BENCH_BOOST). */
#ifdef __cplusplus
extern "C" {
#endif
/* Sorts keys (and values) on queue with boost::compute::detail::radix_sort(_by_key).
   0: done; 1: Boost.Compute cannot sort this combination; 2: it threw (what in why). */
int boost_sort(cl_command_queue queue, clradix_key_type type, cl_mem keys, cl_mem values, size_t value_size, size_t n,
               char *why, size_t why_size);
#ifdef __cplusplus
}
#endif

#endif
