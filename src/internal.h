/* Internal declarations shared by the library's source files. Nothing here is public. */
#ifndef CLRADIX_INTERNAL_H
#define CLRADIX_INTERNAL_H

#include "clradix.h"

#include <pthread.h>

/* Kernel shape: the -D options of the programs (see cl/common.cl). */
typedef struct radix_params {
    unsigned radix_bits;     /* RADIX_BITS */
    unsigned wg;             /* WG */
    unsigned kpt;            /* KPT */
    unsigned rank_bits;      /* RANK_BITS */
    unsigned hist_copies;    /* HIST_COPIES */
    unsigned scatter;        /* SCATTER */
    unsigned groups_per_cu;  /* GROUPS_PER_CU (host side only) */
    unsigned scan_wg;        /* SCAN_WG */
} radix_params;

/* What the sorter needs to know of its device. */
typedef struct device_limits {
    cl_device_type type;
    cl_uint compute_units;
    size_t max_wg;           /* min of CL_DEVICE_MAX_WORK_GROUP_SIZE and MAX_WORK_ITEM_SIZES[0] */
    cl_ulong local_mem;
    cl_ulong max_alloc;
    cl_ulong global_mem;
    int int64;               /* 64-bit integers in kernels: full profile, or cles_khr_int64 */
} device_limits;

/* Program variants: key width x value size class. */
enum { KEY_CLASSES = 2, VALUE_CLASSES = 4 };
enum { IDLE_QUEUES = 16 };

typedef struct radix_program {
    int built;               /* 0: not yet, 1: ready, -1: the build failed */
    radix_params params;     /* after clamping to this variant's local memory and kernels */
    cl_program program;
    cl_kernel histogram, scan, scan_add, scatter;
    cl_kernel iota;          /* value variants of 4 and 8 bytes: argsort's first indices */
} radix_program;

struct clradix_sorter {
    cl_context context;
    cl_device_id device;
    device_limits limits;
    radix_params params;              /* requested, before per-variant clamping */
    pthread_mutex_t lock;             /* guards programs, idle_queues, build_log and kernel arguments */
    /* In-order queues of the sorter's own for host-array calls without a queue, one per
       call in flight, so that threads never share one (POCL's basic device can deadlock
       when several threads use one queue) and their sorts overlap. */
    cl_command_queue idle_queues[IDLE_QUEUES];
    unsigned idle_count;
    radix_program programs[KEY_CLASSES][VALUE_CLASSES];
    char *build_log;
};

/* tuning.c */
clradix_status tuning_select(const device_limits *limits, cl_device_id device, const clradix_tuning *tuning,
                             radix_params *params);
/* Shrinks params until every kernel of the variant fits local_mem bytes of local memory,
   or until a work-group size the kernels cannot exceed (a power of two); 0 when impossible. */
int tuning_fit(radix_params *params, cl_ulong local_mem, unsigned key_bytes, unsigned value_bytes);
/* Halves the work-group size of the sort kernels (scan_kernel 0) or of the scan; 0 at 1. */
int tuning_halve_wg(radix_params *params, int scan_kernel);

/* program.c: build (once) the variant for key_bytes and value_bytes; caller holds the lock. */
clradix_status program_get(clradix_sorter *sorter, unsigned key_bytes, unsigned value_bytes,
                           radix_program **program);
void program_release(radix_program *program);
void build_log_set_thread(const char *log);

/* dispatch.c: enqueue one validated sort; caller holds the lock. */
typedef struct sort_request {
    clradix_key_type type;
    unsigned key_bytes;
    cl_mem keys;             /* sorted in place; only read by argsort */
    cl_mem values;           /* NULL: keys only; argsort: receives the indices */
    size_t value_size, n;
    unsigned begin_bit, end_bit;
    int descending;
    int argsort;
} sort_request;
clradix_status dispatch_sort(clradix_sorter *sorter, cl_command_queue queue, const sort_request *request,
                             cl_uint num_wait, const cl_event *wait_list, cl_event *event);

/* Maps an OpenCL error from an allocation or enqueue to a status. */
clradix_status status_from_cl(cl_int err);

#endif
