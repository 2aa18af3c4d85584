/* Test helpers: key distributions, the qsort oracle, and running one sort through either API. */
#ifndef CLRADIX_TESTUTIL_H
#define CLRADIX_TESTUTIL_H

#include <clradix.h>

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Exit status that CTest reports as a skip (SKIP_RETURN_CODE). */
#define TEST_SKIP 77

typedef enum dist {
    DIST_RANDOM,       /* every bit uniform */
    DIST_SORTED,       /* random keys in sorted order */
    DIST_REVERSE,      /* random keys in reverse sorted order */
    DIST_EQUAL,        /* one value */
    DIST_TWO,          /* two values */
    DIST_SIXTEEN,      /* sixteen values */
    DIST_LOW_ENTROPY,  /* AND of three random words */
    DIST_TOP_DIGIT,    /* only the top 8 bits vary */
    DIST_BOTTOM_DIGIT, /* only the bottom 8 bits vary */
    DIST_COUNT,
    /* Data as applications have it, and adversaries of the top-k's sample: not among the
       DIST_COUNT that tests cross with everything. */
    DIST_UNIT = DIST_COUNT, /* floats uniform in [0, 1); integers below 2^20 */
    DIST_NORMAL,       /* floats standard normal; integers a normal around 0 (unsigned: mid-range) */
    DIST_UNIT_NAN,     /* as unit, with NaNs of both signs and payloads, -0.0 and +0.0, one key in 8 */
    DIST_ALL_BUT_FEW,  /* one value but for one key in 1000 */
    DIST_SAMPLED_LOW,  /* random, but the keys top-k's sample reads (every n / 4096-th) hold the
                          smallest keys, so the sample misleads */
    DIST_SEQUENTIAL,   /* base + i * step (step 1, 3, 5 or 7), then sqrt(n) / 4 swaps of two random
                          keys: IDs and counters, whose digits step through the radix in lock step */
    /* Adversaries of the engine's splits by value (cl/segments.cl): */
    DIST_ENDS,         /* the smallest and the largest key (in the type's order) two in five each */
    DIST_MISLEAD,      /* the positions seg_sample reads of a flat sort hold low-entropy keys below
                          2^(bits-1); every other key has the top byte 0x80, one of four
                          values in the next, random bits below (unsigned types) */
    DIST_MIXED,        /* runs of 4096 keys, low-entropy and random in turn */
    DIST_ALL
} dist;

const char *dist_name(dist d);
unsigned key_bytes_of(clradix_key_type type);
/* Key i of an array of keys of `bytes` bytes each, as a number; put_key stores one. */
uint64_t get_key(const void *keys, unsigned bytes, size_t i);
void put_key(void *keys, unsigned bytes, size_t i, uint64_t v);

uint64_t rng_next(uint64_t *state);

/* n keys of type in distribution d, from seed. */
void *make_keys(clradix_key_type type, dist d, size_t n, uint64_t seed);
/* n values of value_size bytes, every byte depending on the index (so a lost or swapped
   byte shows). */
void *make_values(size_t value_size, size_t n);

/* The oracle: the stable order of keys as clradix defines it (type order, bits
   [begin_bit, end_bit) of the order-preserving image, direction), by qsort over
   (image, index). Returns perm with perm[i] = input index of the i-th output. */
size_t *oracle_order(clradix_key_type type, const void *keys, size_t n, const clradix_options *options);
/* The oracle's image of keys[i]: its place in that order as an unsigned number. */
uint64_t oracle_image(clradix_key_type type, const void *keys, size_t i, const clradix_options *options);

/* Checks out_keys/out_values against in_keys/in_values permuted by perm. Returns 0 when
   equal, else fills msg with the first difference. */
int check_sorted(clradix_key_type type, const void *in_keys, const void *out_keys, const void *in_values,
                 const void *out_values, size_t value_size, size_t n, const size_t *perm, char *msg,
                 size_t msg_size);

/* OpenCL objects for the device under test. */
typedef struct test_device {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    clradix_sorter *sorter;
    cl_command_queue host_queue;  /* what run_sort passes to the host-array calls (NULL: the sorter's own) */
} test_device;

/* Creates the sorter (tuning may be NULL) with its own context, and a queue in it. */
clradix_status test_device_open(test_device *t, const clradix_tuning *tuning);
void test_device_close(test_device *t);

typedef enum api_flavour { API_DEVICE, API_HOST } api_flavour;
typedef enum sort_kind { SORT_KEYS, SORT_PAIRS, SORT_ARGSORT } sort_kind;

/* One way of calling the library. */
typedef struct sort_call {
    api_flavour api;
    sort_kind kind;
    size_t value_size;  /* bytes per value (pairs) or per index (argsort) */
} sort_call;

const char *sort_call_name(const sort_call *call, char *buf, size_t size);

/* How run_sort releases the buffers it made (clReleaseMemObject; kernel_check keeps them). */
extern cl_int (*release_buffer)(cl_mem);

/* Sorts keys (and values) in place through the chosen call; argsort leaves keys as they
   are (checked: the device flavour reads them back) and fills values with indices. The
   device flavour copies to buffers, sorts with an event and reads back. */
clradix_status run_sort(test_device *t, const sort_call *call, clradix_key_type type, void *keys, void *values,
                        size_t n, const clradix_options *options);

/* Generates, sorts and checks one case against the oracle; returns 0 or fills msg. */
int sort_case(test_device *t, const sort_call *call, clradix_key_type type, dist d, size_t n,
              const clradix_options *options, uint64_t seed, char *msg, size_t msg_size);

/* One top-k: keys of type in distribution d, rows x length (rows 1: clradix_topk, else
   clradix_topk_rows), the first k of each row through the device call (host 0) or the host
   one, the keys (unless no_keys) and indices of index_size (0: none), against the oracle,
   and every byte past the outputs untouched. 0, or 1 with msg filled. */
int topk_case(test_device *t, clradix_key_type type, dist d, size_t rows, size_t length, size_t k, int host,
              size_t index_size, int no_keys, const clradix_options *options, uint64_t seed, char *msg,
              size_t msg_size);

/* Sorts keys of distribution d in segments of the given lengths, with gaps of gap_before
   and gap_after elements, through a segmented call (device calls wait for gate when it is
   not NULL, and must not have run before it opens), and checks every segment against the
   oracle and every gap byte for byte; 0, or 1 with msg filled. */
int segments_case(test_device *t, const sort_call *call, clradix_key_type type, dist d, const size_t *lengths,
                  size_t num_segments, size_t gap_before, size_t gap_after, const clradix_options *options,
                  uint64_t seed, cl_event gate, char *msg, size_t msg_size);

/* Records: n records of record_size bytes whose bytes repeat often (few distinct fields, so
   ties reach the later fields), with a random byte now and then (NaNs, infinities). */
unsigned char *make_records(size_t record_size, size_t n, uint64_t seed);
/* The oracle of the record sorts: perm[i] is the input position of the i-th record in the
   stable order of the fields (qsort over each field's oracle_image, descending as that
   field's mirror, then the position). */
size_t *records_oracle(const unsigned char *records, size_t record_size, size_t n, const clradix_key_field *fields,
                       unsigned num_fields);
typedef enum records_call {
    RECORDS_DEVICE_SORT, RECORDS_DEVICE_ARGSORT, RECORDS_HOST_SORT, RECORDS_HOST_ARGSORT, RECORDS_CALLS
} records_call;
extern const char *const records_call_names[RECORDS_CALLS];
/* One record sort of generated records through the call (argsort with indices of
   index_size bytes) against the oracle; 0, or 1 with msg filled. */
int records_case(test_device *t, records_call call, size_t record_size, size_t n, const clradix_key_field *fields,
                 unsigned num_fields, size_t index_size, uint64_t seed, char *msg, size_t msg_size);
/* The same for the given records (sorted in place; argsort leaves them). */
int records_check(test_device *t, records_call call, unsigned char *records, size_t record_size, size_t n,
                  const clradix_key_field *fields, unsigned num_fields, size_t index_size, char *msg, size_t msg_size);

/* Fills dir (a mkdtemp template) with a copy of the kernel sources whose scatter.cl has a
   line that does not compile, for CLRADIX_KERNEL_DIR; remove_folder removes it again. */
void make_broken_kernel_dir(char *dir);
void remove_folder(const char *dir);

/* 0 in a repeat run (CLRADIX_TEST_REPEAT=1: POCL's basic device after its pthread one, and
   the sanitizer build), which covers the cases that can differ there (every size and type
   on the device's own shape, with keys and 4-byte values) rather than every kernel shape
   and program variant again. */
int test_full_scope(void);

/* Runs a suite that needs an OpenCL device: exits with TEST_SKIP where there is none
   (looked for in a forked child, so this process never touches OpenCL before Check
   forks), else runs it and returns the exit status for main. */
int run_device_suite(Suite *suite, const char *name);
/* The same, for a suite that needs at least min_devices devices. */
int run_suite_with_devices(Suite *suite, const char *name, unsigned min_devices);

/* The sorter and queue of the test under way, opened by a checked fixture. */
extern test_device dev;
/* Opens dev with tuning (NULL: the device's own row), failing the test on error. */
void open_dev(const clradix_tuning *tuning);
/* open_dev with CLRADIX_TUNING set to environment while the sorter is made (NULL: unset). */
void open_dev_tuned(const clradix_tuning *tuning, const char *environment);
void close_dev(void);

#endif
