/* Internal declarations shared by the library's source files. Nothing here is public. */
#ifndef CLRADIX_INTERNAL_H
#define CLRADIX_INTERNAL_H

#include "clradix.h"
#include "key_order.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLRADIX_TESTING  /* the test build: fallible calls counted, and failed on demand */
#define CLRADIX_TESTING_WRAP
#include "testing.h"
#endif

/* Kernel shape: the -D options of the programs (see cl/common.cl). */
typedef struct radix_params {
    unsigned radix_bits;     /* RADIX_BITS */
    unsigned wg;             /* WG */
    unsigned kpt;            /* KPT */
    unsigned rank_bits;      /* RANK_BITS */
    unsigned counter_digits; /* COUNTER_DIGITS (several work-items; tuning_fit sets it) */
    unsigned hist_copies;    /* HIST_COPIES */
    unsigned fused;          /* FUSED (0 or 1) */
    unsigned max_groups;     /* MAX_GROUPS: compute units * groups_per_cu */
    unsigned small_n;        /* SMALL_N (0: none) */
    unsigned groups_per_cu;  /* work-groups per compute unit (host side only) */
    unsigned scan_wg;        /* SCAN_WG */
    unsigned strategy;       /* flat sorts past small_n: STRATEGY_LSD or STRATEGY_PARTITION (host side only) */
    unsigned medium_n;       /* most keys of a segment one work-group sorts by passes of its own (host side only) */
    unsigned local_n;        /* the engine's SMALL_N: most keys of a segment sorted in local memory (0: small_n) */
    unsigned topk_sort;      /* a flat top-k of k >= n / topk_sort keys: a full sort's prefix (0: never; host only) */
    unsigned long_medium_n;  /* medium_n for keys of up to 32 bits where jobs are many (0: none; host only) */
} radix_params;

/* How flat sorts of more than SMALL_N keys run: LSD passes over the whole array, or one
   partition by the most significant digit that varies and then the buckets as segments
   (segments.c). */
enum { STRATEGY_LSD = 1, STRATEGY_PARTITION = 2 };
/* Segments of up to this many keys are sorted one per work-item (TINY_N in cl/segments.cl). */
enum { SEGMENT_TINY_N = 16 };

/* What the sorter needs to know of its device. */
typedef struct device_limits {
    cl_device_type type;
    cl_uint compute_units;
    size_t max_wg;           /* min of CL_DEVICE_MAX_WORK_GROUP_SIZE and MAX_WORK_ITEM_SIZES[0] */
    cl_ulong local_mem;
    cl_ulong max_alloc;
    cl_ulong global_mem;
    int int64;               /* 64-bit integers in kernels: full profile, or cles_khr_int64 */
    int int64_extension;     /* ... through cles_khr_int64, which the kernels must enable */
    int host_byte_order;     /* the device stores integers in the host's byte order */
    int host_unified;        /* the device works in the host's memory (CPUs): host arrays need no copies */
    int inline_barrier_functions;  /* Intel's CPU runtime: -D INLINE_BARRIER_FUNCTIONS (cl/common.cl) */
    int runs_in_caller;      /* POCL's basic driver: commands run in the thread that enqueues them */
    int no_host_maps;        /* Mesa's rusticl: host sorts through copies, never by mapping (host.c) */
    cl_ulong loop_budget;    /* loop iterations a work-item runs in one launch before its loops stop
                                (Mesa's llvmpipe; loops.c), 0: no such limit */
} device_limits;

/* *product = a * b, or 0 when the product does not fit size_t (which the test build can
   narrow, to check on a 64-bit host what overflows on a 32-bit one). */
static inline int size_mul(size_t a, size_t b, size_t *product)
{
#ifdef CLRADIX_TESTING
    const size_t max = testing_size_max();
#else
    const size_t max = SIZE_MAX;
#endif
    if (a != 0 && b > max / a)
        return 0;
    *product = a * b;
    return 1;
}

/* *bytes = count * unit for a count that may pass size_t (64-bit plans on a 32-bit host);
   0 when the product does not fit, as size_mul. */
static inline int size_mul_count(cl_ulong count, size_t unit, size_t *bytes)
{
    return (size_t)count == count && size_mul((size_t)count, unit, bytes);
}

/* Programs: the LSD passes and the segmented-sort engine, each in variants of key width x
   value size class. */
enum program_kind { PROGRAM_LSD, PROGRAM_SEGMENTS, PROGRAM_TOPK, PROGRAM_RECORDS, PROGRAM_KINDS };
/* Keys of 4, 8, 2 and 1 bytes, then floats of 4, 8 and 2 bytes in numpy's order, then
   records of 4 and 8 bytes read as keys, of integer fields, then with float fields; values
   of 0, 4, 8 and 16 bytes. */
enum { KEY_CLASSES = 11, VALUE_CLASSES = 4 };
enum { IDLE_QUEUES = 16, SCRATCH_POOL = 4, KERNEL_SPARES = 8, MAX_SCAN_LEVELS = 8 };

/* The temporary buffers of one sort (scratch.c). */
enum scratch_slot {
    SCRATCH_KEYS,        /* temporary 1 of the keys */
    SCRATCH_KEYS_2,      /* argsort: temporary 2 of the keys */
    SCRATCH_VALUES,      /* temporary 1 of the values */
    SCRATCH_TABLE_ALL,   /* every pass's count table from the first read */
    SCRATCH_PARTIALS,    /* FUSED: each group's counts for the next pass */
    SCRATCH_PLAN,
    SCRATCH_TOP,         /* the last scan level's total */
    SCRATCH_JOBS,        /* segments: the job lists */
    SCRATCH_STATE,       /* segments: list counters */
    SCRATCH_JOB_BLOCKS,  /* segments: each large job's blocks */
    SCRATCH_BLOCKS,      /* segments: each block's job */
    SCRATCH_CHOSEN,      /* segments: each large job's partition digit */
    SCRATCH_BITS,        /* segments: each block's OR and AND of images */
    SCRATCH_SPLITS,      /* segments: each large job's split by value, if any */
    SCRATCH_CELLS,       /* segments: the tables of the splits by value */
    SCRATCH_LEVELS,      /* the count table (level 0), then the scan's tile sums */
    SCRATCH_SLOTS = SCRATCH_LEVELS + MAX_SCAN_LEVELS
};
typedef struct scratch {
    cl_mem buffer[SCRATCH_SLOTS];
    size_t capacity[SCRATCH_SLOTS];
    cl_event last_use;   /* the end of the last sort that used it */
} scratch;

enum program_state { PROGRAM_NONE, PROGRAM_READY, PROGRAM_FAILED, PROGRAM_BUILDING };
typedef struct radix_program {
    enum program_state state; /* FAILED: a compile error, final; NONE again after other failures */
    enum program_kind kind;
    radix_params params;     /* after clamping to this variant's local memory and kernels */
    cl_program program;
    cl_kernel histogram_all, histogram, trivial, plan, scan_pass, scan, scan_add, scatter, copy_back;
    cl_kernel sort_small;    /* when params.small_n > 0 */
    cl_kernel iota;          /* value variants of 4 and 8 bytes: argsort's first indices */
    /* PROGRAM_SEGMENTS (cl/segments.cl); seg_local when small_n > 0, seg_argsort_prepare
       for values of 4 and 8 bytes. */
    cl_kernel seg_start, seg_classify, seg_argsort_prepare, seg_blocks, seg_histogram, seg_decide, seg_scatter;
    cl_kernel seg_tiny, seg_local, seg_medium, seg_copy;
    cl_kernel seg_sample;    /* where the engine splits by value (splits_by_value) */
    int splits_by_value;
    /* PROGRAM_TOPK (cl/topk.cl) */
    cl_kernel topk_sample, topk_range_count, topk_range_plan, topk_hist, topk_plan, topk_split, topk_count;
    cl_kernel topk_pick, topk_chunk_counts, topk_chunk_scan, topk_gather, topk_rows_select, topk_write;
    /* PROGRAM_RECORDS (cl/records.cl): a word of records' composite keys (of all records, or
       of those in runs), records written back from theirs; gathers of elements in units of
       1, 4, 8, 16 and 32 bytes */
    cl_kernel records_key, records_key_runs, records_unkey, records_gather[5];
    /* composites of several words sorted by the most significant first (runs of equal words;
       the top word of the first field's ranks where it takes few values, else cut below the
       bits that no record changes) */
    cl_kernel records_dict, records_lead, records_dict_key, records_dict_use;
    cl_kernel records_heads, records_runs, records_run_scan, records_run_offsets, records_run_fill;
    cl_kernel records_gather_pairs;  /* 128-bit keys with values */
    /* Kernel arguments are state of the kernel object: a sort sets them on the program's
       own kernels while no other sort holds those (kernels_busy), else on a copy with
       kernel objects of its own; copies are kept for later sorts. */
    int kernels_busy;
    struct radix_program *spares[KERNEL_SPARES];
    unsigned spare_count;
} radix_program;

/* A compiler log, kept until the sorter is released (clradix_build_log hands it out). */
typedef struct build_log {
    struct build_log *older;
    char text[];
} build_log;

struct clradix_sorter {
    cl_context context;
    cl_device_id device;
    device_limits limits;
    radix_params params;              /* requested, before per-variant clamping */
    /* Guards program states and their kernel copies, idle_queues, scratch_pool and logs,
       held only to take or return one of them: never while a program compiles or a sort
       enqueues, so threads sharing the sorter set up and enqueue their sorts at once. */
    pthread_mutex_t lock;
    pthread_cond_t program_built;     /* signalled when a build ends */
    /* Held over a sort's enqueues on a device whose commands run in the enqueueing thread
       (limits.runs_in_caller): POCL's basic driver fails an assertion when two threads
       run the same kernel at once. Recursive: top-k's enqueues include a sort's. */
    pthread_mutex_t enqueue_lock;
    /* In-order queues of the sorter's own for host-array calls without a queue, one per
       call in flight, so that threads never share one (POCL's basic device can deadlock
       when several threads use one queue) and their sorts overlap. */
    cl_command_queue idle_queues[IDLE_QUEUES];
    unsigned idle_count;
    scratch *scratch_pool[SCRATCH_POOL];  /* temporaries of earlier sorts, for reuse */
    unsigned scratch_count;
    radix_program programs[PROGRAM_KINDS][KEY_CLASSES][VALUE_CLASSES];
    build_log *logs;                  /* newest first */
    atomic_size_t memory_limit;       /* clradix_sorter_set_memory_limit (0: none) */
    /* memory.c: the bytes of the sorter's buffers alive (its pool, its host sorts' data),
       those promised to host sorts under way and not yet made, and how many those are.
       memory_lock is taken after lock where both are held. */
    pthread_mutex_t memory_lock;
    pthread_cond_t memory_freed;      /* signalled when buffers go or a host sort ends */
    size_t device_bytes, promised_bytes;
    unsigned host_sorts;
};

/* The most keys one in-core sort takes: its offsets are 32-bit (the test build can lower
   this, to reach the out-of-core path for more keys than that with small arrays). */
static inline size_t max_keys_in_core(void)
{
#ifdef CLRADIX_TESTING
    return testing_max_keys_in_core();
#else
    return CLRADIX_MAX_N;
#endif
}

/* The device memory the sorter may hold at once: clradix_sorter_set_memory_limit's, else
   the device's less an eighth, which the driver and the application's own buffers need. */
static inline cl_ulong device_budget(const clradix_sorter *sorter)
{
    const size_t limit = atomic_load(&((clradix_sorter *)sorter)->memory_limit);
    const cl_ulong usable = sorter->limits.global_mem - sorter->limits.global_mem / 8;
    return limit && limit < usable ? limit : usable;
}

/* memory.c: a buffer of the sorter's context, counted while it lives (the bytes given
   back to sorter_buffer_release, which takes NULL too). */
cl_mem sorter_buffer(clradix_sorter *sorter, cl_mem_flags flags, size_t bytes, void *host, cl_int *err);
void sorter_buffer_release(clradix_sorter *sorter, cl_mem buffer, size_t bytes);
/* Frees the pool's idle sets where bytes more would not fit next to what the sorter holds
   and has promised (the caller must not hold the sorter's lock). */
void memory_make_room(clradix_sorter *sorter, size_t bytes);
/* A host-array sort in core of bytes (data and temporaries) starts: waits while they do not
   fit the budget next to what the sorter holds and other host sorts will make; its buffers
   take from that promise; host_memory_done follows. */
void host_memory_admit(clradix_sorter *sorter, size_t bytes);
void host_memory_done(clradix_sorter *sorter);

/* tuning.c */
clradix_status tuning_select(const device_limits *limits, cl_device_id device, const clradix_tuning *tuning,
                             radix_params *params);
/* The 1.0 fields of tuning from params (what clradix_sorter_tuning reports). */
void tuning_report(const radix_params *params, clradix_tuning *tuning);
/* Shrinks params until every kernel of the variant fits the device's local memory and its
   loop budget (loops.c); 0 when impossible. */
int tuning_fit(radix_params *params, const device_limits *limits, unsigned key_bytes, unsigned value_bytes);
/* Whether every variant fits the device (tuning_fit), which has at least the least local
   memory the library supports (docs/devices.md: 16 KiB; full-profile devices have 32). */
enum { TUNING_MIN_LOCAL_MEM = 16 * 1024 };
int tuning_supported(const device_limits *limits, const radix_params *params);
/* The local memory the largest kernel of the variant declares, as tuning_fit estimates it. */
cl_ulong tuning_local_estimate(const radix_params *params, unsigned key_bytes, unsigned value_bytes);

/* loops.c: the loop budget of the sorter's device (0: none), measured; what a planner may
   give one work-item of a launch (~0 without a budget); and the loop iterations a
   work-item of the kernels runs, counted for a shape q and keys of key_bytes: */
clradix_status device_loop_budget(cl_context context, cl_device_id device, cl_ulong *budget);
cl_ulong loops_allowed(const device_limits *limits);
/* ... the most tiles of an LSD block (radix_histogram_all, radix_histogram, radix_scatter)
   within allowed, 0 when not even one fits; */
cl_ulong loops_lsd_tiles(const radix_params *q, unsigned key_bytes, cl_ulong allowed);
/* ... radix_sort_small of n keys (and a local job of the engine, seg_local, of n keys);
   one block of block_len keys of the engine's count or scatter; a medium job of len keys; */
cl_ulong loops_small_sort(const radix_params *q, unsigned key_bytes, cl_ulong n);
cl_ulong loops_engine_block(const radix_params *q, unsigned key_bytes, cl_ulong block_len);
cl_ulong loops_medium_job(const radix_params *q, unsigned key_bytes, cl_ulong len);
/* ... the longest slice of a flat top-k's select within allowed (0: none); one row of a
   top-k by rows. */
cl_ulong loops_topk_slice_cap(const radix_params *q, cl_ulong allowed);
cl_ulong loops_topk_row(const radix_params *q, unsigned key_bytes, cl_ulong row_length);

/* cache.c: compiled programs on disk. */
int cache_enabled(cl_device_id device);  /* CLRADIX_CACHE, else on except on POCL */
/* device.c: the name of the device's platform in buf (size bytes, at least 1); 0 and an
   empty string when it cannot be had. */
int device_platform_name(cl_device_id device, char *buf, size_t size);
void cache_key(cl_device_id device, const char *const *sources, int count, const char *options, uint64_t key[2]);
unsigned char *cache_load(const uint64_t key[2], size_t *length);  /* NULL: no usable entry */
void cache_store(const uint64_t key[2], const unsigned char *binary, size_t length);

/* The keys a program is built for: their bytes, and whether they are floats read in numpy's
   order. The order is compiled in (-D NUMPY_ORDER): behind a run-time argument, its test
   made every kernel 1.7-2.4x slower on POCL, in every order. */
typedef struct key_variant {
    unsigned bytes;
    int numpy_order;
    int record;              /* records read as keys (key_order.h): 1 integer fields, 2 float ones too */
} key_variant;
/* The variant of a request's record transform (key_variant's record; 0 for keys). */
static inline int record_variant(const key_transform *record)
{
    return record ? 1 + (record->float_bits != 0) : 0;
}

/* program.c: the program of kind for keys and value_bytes, built on first use (once;
   threads that need it meanwhile wait for that build, others go on). The caller must not
   hold the sorter's lock. */
clradix_status program_get(clradix_sorter *sorter, enum program_kind kind, key_variant keys, unsigned value_bytes,
                           radix_program **program);
void program_release(radix_program *program);
/* Kernels of a built program p for one sort's arguments and launches: p itself, or a copy
   with kernel objects of its own while another sort holds p's (NULL and *status set when
   one cannot be made). Return them with program_kernels_return. */
radix_program *program_kernels_take(clradix_sorter *sorter, radix_program *p, clradix_status *status);
void program_kernels_return(clradix_sorter *sorter, radix_program *p, radix_program *kernels);
void build_logs_free(clradix_sorter *sorter);
/* The thread's copy of the newest log of sorter (NULL: none), for clradix_build_log(NULL). */
void build_log_set_thread(const clradix_sorter *sorter);

/* scratch.c. Hands s back to the sorter's pool, in use until last_use completes. */
void scratch_return(clradix_sorter *sorter, scratch *s, cl_event last_use);
void scratch_free(clradix_sorter *sorter, scratch *s);
/* Frees the pool's sets that no sort uses any more; the caller holds the sorter's lock. */
void scratch_trim(clradix_sorter *sorter);
cl_ulong scratch_total(const size_t bytes[SCRATCH_SLOTS]);
/* A set of temporaries of bytes[slot] each, checked against the device's limits and the
   sorter's budget first (CLRADIX_ERROR_OUT_OF_RESOURCES); handed back with scratch_return. */
clradix_status scratch_for(clradix_sorter *sorter, const size_t bytes[SCRATCH_SLOTS], scratch **s);

/* dispatch.c: enqueue one validated sort; the caller must not hold the sorter's lock. */
typedef struct sort_request {
    clradix_key_type type;
    unsigned key_bytes;
    int numpy_order;         /* floats in numpy's order (key_order.h) */
    cl_mem keys;             /* sorted in place; only read by argsort */
    cl_mem values;           /* NULL: keys only; argsort: receives the indices */
    size_t value_size, n;
    size_t keys_size, values_size;  /* bytes: n * key_bytes, n * value_size */
    unsigned begin_bit, end_bit;
    int descending;
    int argsort;
    int segmented;           /* a segmented sort: offsets and num_segments apply */
    cl_mem offsets;          /* num_segments + 1 cl_uint */
    size_t num_segments;
    const key_transform *record;  /* records of 4 or 8 bytes read as keys (key_order.h); NULL: keys of type */
    unsigned keys_in_values;  /* nonzero where dispatch_takes_keys_in_values: the keys are word keys_in_values - 1
                                 (of key_bytes) of each value, and keys only receives them */
    scratch *scratch;        /* temporaries the caller holds for this sort (sorts one after another in a
                                chain may share a set: a set each, idle only once the chain is over, took
                                fresh memory); NULL: a set of the pool */
} sort_request;
/* scratch.c */
/* The set of a sort: request's own (grown to bytes, checked against the largest allocation)
   or else one of the pool (scratch_for); scratch_done hands back only the latter. */
clradix_status scratch_of_request(clradix_sorter *sorter, const sort_request *request,
                                  const size_t bytes[SCRATCH_SLOTS], scratch **s);
void scratch_done(clradix_sorter *sorter, const sort_request *request, scratch *s, cl_event last_use);
clradix_status dispatch_sort(clradix_sorter *sorter, cl_command_queue queue, const sort_request *request,
                             cl_uint num_wait, const cl_event *wait_list, cl_event *event);
/* dispatch_sort, telling in *enqueued whether any command was enqueued or tried (a failure
   before that, in an allocation, leaves the buffers as they were). */
clradix_status dispatch_sort_tracked(clradix_sorter *sorter, cl_command_queue queue, const sort_request *request,
                                     cl_uint num_wait, const cl_event *wait_list, cl_event *event, int *enqueued);
/* The bytes of the temporaries dispatch_sort allocates for request (building the program
   it needs, whose failure it returns). */
clradix_status dispatch_temporary_bytes(clradix_sorter *sorter, const sort_request *request, cl_ulong *bytes);
/* Whether the sort of request can read its keys from its values (keys_in_values), building
   the program it needs: a flat sort that the engine partitions first, of values a whole
   number of keys long. */
int dispatch_takes_keys_in_values(clradix_sorter *sorter, const sort_request *request);

/* api.c: the argument checks every call shares (see their uses there). check_keys fills
   r's type, bit range and direction; check_sizes its bytes (n and value size set). */
clradix_status check_keys(const clradix_sorter *sorter, clradix_key_type type, size_t n,
                          const clradix_options *options, sort_request *r);
clradix_status check_sizes(sort_request *r);
clradix_status check_index_size(size_t index_size);
clradix_status check_queue(const clradix_sorter *sorter, cl_command_queue queue);
clradix_status check_wait_list(const clradix_sorter *sorter, cl_uint count, const cl_event *events);
/* The queue, wait list and buffers of a device-buffer call (keys, written unless argsort;
   values if any, written, not overlapping them; offsets if any, only read) of r's sizes. */
clradix_status check_device_call(const clradix_sorter *sorter, cl_command_queue queue, cl_uint num_wait,
                                 const cl_event *wait_list, const sort_request *r);
/* A buffer's root buffer and offset in it (sub-buffers), to tell overlaps. */
typedef struct buffer_span {
    cl_mem root;
    size_t offset;
} buffer_span;
/* A buffer of the sorter's context, of at least bytes, that kernels may read (and write). */
clradix_status check_buffer(const clradix_sorter *sorter, cl_mem buffer, size_t bytes, int written,
                            buffer_span *span);
/* Whether two spans of so many bytes share a byte. */
int overlap(const buffer_span *a, size_t a_bytes, const buffer_span *b, size_t b_bytes);

/* host.c: the in-core host sort of r: uploads keys_in (and values_in), sorts, and reads the
   result into keys_out (unless NULL) and values_out, once the sorter's memory holds it
   next to its other host sorts (memory.c). *touched (unless NULL): whether the output
   arrays may have changed, also on failure. */
clradix_status host_sort_in_core(clradix_sorter *sorter, cl_command_queue queue, sort_request *r,
                                 const void *keys_in, const void *values_in, void *keys_out, void *values_out,
                                 int *touched);
/* Whether host_sort_in_core can sort r within the device's limits and budget. */
int host_fits_in_core(clradix_sorter *sorter, const sort_request *r);
/* records.c: 128-bit keys (key_type_wide) as 16-byte records: sorted (values NULL),
   argsorted into values (index size value_size), or sorted with values of value_size
   bytes; every check of the public calls that take them. */
clradix_status wide_keys_device(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, cl_mem keys,
                                cl_mem values, size_t value_size, int argsort, size_t n,
                                const clradix_options *options, cl_uint num_wait, const cl_event *wait_list,
                                cl_event *event);
clradix_status wide_keys_host(clradix_sorter *sorter, cl_command_queue queue, clradix_key_type type, void *keys,
                              void *values, size_t value_size, int argsort, size_t n, const clradix_options *options);
/* api.c: the checked host-array sort r of keys (values: NULL, or the values or indices) in
   place, on queue or one of the sorter's own: in core where it fits, else by parts. */
clradix_status host_sort(clradix_sorter *sorter, cl_command_queue queue, sort_request *r, void *keys, void *values);
/* Segments first .. last - 1 of the flat request r (offsets: size_t positions in the arrays)
   in one in-core segmented sort from keys_in (values_in) into keys_out (values_out): only
   their span [offsets[first], offsets[last]) goes to the device; argsort's indices are made
   positions in the whole array. host_segments_fit: whether they fit the device at once,
   within 1 / share of the sorter's budget. */
clradix_status host_segments_in_core(clradix_sorter *sorter, cl_command_queue queue, const sort_request *r,
                                     const void *keys_in, const void *values_in, void *keys_out, void *values_out,
                                     const size_t *offsets, size_t first, size_t last);
int host_segments_fit(clradix_sorter *sorter, const sort_request *r, const size_t *offsets, size_t first,
                      size_t last, unsigned share);

/* outofcore.c: a host sort by parts, on the sorters given (one or more, repeats allowed):
   a stable partition by the top digits of the bit range, each bucket sorted in core.
   queue: the caller's, for the first sorter's first worker, or NULL. */
clradix_status host_sort_by_parts(clradix_sorter *const *sorters, unsigned num_sorters, cl_command_queue queue,
                                  sort_request *r, void *keys, void *values);
/* host.c: a queue of the sorter's own for one host-array sort, and its return. */
clradix_status host_queue_acquire(clradix_sorter *sorter, cl_command_queue *queue);
void host_queue_return(clradix_sorter *sorter, cl_command_queue queue);
/* host.c: adds base to count indices of index_size (4 or 8) bytes. */
void add_to_indices(void *indices, size_t index_size, size_t count, size_t base);

/* status.c: maps an OpenCL error from an allocation or enqueue to a status. */
clradix_status status_from_cl(cl_int err);

/* enqueue.c */
/* Sets kernel arguments first .. first + count - 1, given as (size_t size, const void *value) pairs. */
cl_int set_args_at(cl_kernel kernel, cl_uint first, cl_uint count, ...);
#define set_args(kernel, ...) set_args_at(kernel, 0, __VA_ARGS__)
#define ARG(x) sizeof(x), (const void *)&(x)
/* The commands of one sort, each waiting on the one before (the first on the caller's list). */
typedef struct chain {
    cl_command_queue queue;
    cl_uint num_wait;
    const cl_event *wait_list;
    cl_event last;
    int tried;  /* a command was enqueued, or failed to be */
} chain;
/* What the chain's next command waits on: its last command, or before any the caller's list. */
cl_uint chain_wait_count(const chain *c);
const cl_event *chain_wait_list(const chain *c);
cl_int chain_kernel(chain *c, cl_kernel kernel, size_t groups, size_t wg);
cl_int chain_marker(chain *c);
cl_int chain_copy(chain *c, cl_mem from, cl_mem to, size_t bytes);  /* bytes of from to to, both from 0 */
/* A sort enqueued after the chain's last command (waiting on it) hands over its event
   sort_done, which becomes the last. */
void chain_follow(chain *c, cl_event sort_done);
/* The end of a call's chain: on success its last event to *event (a marker when nothing
   was enqueued, so that the event still follows the wait list), else released; returns
   status. */
clradix_status chain_hand_over(chain *c, clradix_status status, cl_event *event);
size_t groups_for(size_t count, size_t wg);  /* groups of wg work-items for count items */
/* The levels of an exclusive scan of count entries in s->buffer[SCRATCH_LEVELS], in tiles
   of 2 * scan_wg, each level scanning the tile sums of the one before. */
typedef struct scan_plan {
    unsigned levels;
    cl_uint level_count[MAX_SCAN_LEVELS];  /* entries scanned at each level; level 0 is the table */
    cl_uint level_groups[MAX_SCAN_LEVELS];
} scan_plan;
void plan_scan(size_t count, unsigned scan_wg, scan_plan *plan);
int scan_fits(const scan_plan *plan);  /* 0: a table too large to scan in MAX_SCAN_LEVELS */
void scan_bytes(const scan_plan *plan, size_t bytes[SCRATCH_SLOTS]);  /* SCRATCH_TOP and the levels */
cl_int enqueue_scan(chain *c, const radix_program *p, const scan_plan *plan, const scratch *s);
/* The key transform and bit range, as kernel arguments. */
typedef struct key_args {
    cl_uint begin_bit, end_bit;
    size_t size;                  /* 1, 2, 4 or 8: the key width, and the size of the two below */
    /* the key transform (key_order.h) as kernel arguments of that size */
    union key_arg { cl_uchar u8; cl_ushort u16; cl_uint u32; cl_ulong u64; } pos_xor, neg_xor, nan_above;
} key_args;
/* The three key order arguments of every kernel that reads digits (set_args pairs). */
#define KEY_ORDER_ARGS(k) (k)->size, (const void *)&(k)->pos_xor, (k)->size, (const void *)&(k)->neg_xor, \
                          (k)->size, (const void *)&(k)->nan_above
void make_key_args(const sort_request *r, key_args *k);

/* segments.c: the segmented-sort engine (cl/segments.cl) for r with its program p: the
   bytes of its temporaries, and its enqueue (caller holds the sorter's lock). A flat sort
   through it is r with segmented 0: the one segment [0, n). */
cl_ulong segments_temporary_bytes(const clradix_sorter *sorter, const radix_program *p, const sort_request *r);
int segments_takes_keys_in_values(const clradix_sorter *sorter, const radix_program *p, const sort_request *r);
clradix_status enqueue_segments(clradix_sorter *sorter, chain *c, const radix_program *p, const sort_request *r);
/* Whether the engine's program of this shape for keys of key_bytes splits skewed jobs by
   value (SPLIT_BY_VALUE in cl/segments.cl): rows of one work-item, keys of 32 or 64 bits. */
int engine_splits_by_value(const radix_params *q, unsigned key_bytes);

#endif
