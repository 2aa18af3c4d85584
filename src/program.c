/*
 * Builds the kernels of one program variant (key width x value size) for the sorter's
 * device, once, from the sources embedded in the library (or from CLRADIX_KERNEL_DIR
 * during development), with parameters that fit the device's local memory and the
 * kernels' own work-group limits.
 */
#include "internal.h"
#include "kernel_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each kind's sources, concatenated in this order. */
enum { MAX_SOURCES = 8 };
static const char *const source_files[PROGRAM_KINDS][MAX_SOURCES] = {
    [PROGRAM_LSD] = { "common.cl", "histogram.cl", "plan.cl", "scatter.cl", "small.cl", "iota.cl" },
    [PROGRAM_SEGMENTS] = { "common.cl", "scan.cl", "segments.cl" },
    [PROGRAM_TOPK] = { "common.cl", "topk.cl" },
    [PROGRAM_RECORDS] = { "common.cl", "records.cl" },
};

static int source_count(enum program_kind kind)
{
    int count = 0;
    while (count < MAX_SOURCES && source_files[kind][count])
        ++count;
    return count;
}

/* Every kernel of a program: its field, name, the kinds of program that have it (bits
   1 << kind), whether it runs in groups of SCAN_WG (rather than WG), and whether the
   variant has it. */
typedef struct kernel_entry {
    cl_kernel *kernel;
    const char *name;
    unsigned kinds;
    int scan, wanted;
} kernel_entry;

#define LSD (1u << PROGRAM_LSD)
#define SEGMENTS (1u << PROGRAM_SEGMENTS)
#define TOPK (1u << PROGRAM_TOPK)
#define RECORDS (1u << PROGRAM_RECORDS)

enum { KERNEL_COUNT = 54 };

static void kernel_table(radix_program *p, unsigned value_bytes, kernel_entry table[KERNEL_COUNT])
{
    const int small = p->params.small_n > 0, index_values = value_bytes == 4 || value_bytes == 8;
    const kernel_entry entries[KERNEL_COUNT] = {
        { &p->histogram_all, "radix_histogram_all", LSD, 0, 1 },
        { &p->histogram, "radix_histogram", LSD, 0, 1 },
        { &p->scatter, "radix_scatter", LSD, 0, 1 },
        { &p->sort_small, "radix_sort_small", LSD, 0, small },
        { &p->trivial, "radix_trivial", LSD, 1, 1 },
        { &p->plan, "radix_plan", LSD, 1, 1 },
        { &p->scan_pass, "radix_scan_pass", LSD, 1, 1 },
        { &p->scan, "radix_scan", SEGMENTS, 1, 1 },
        { &p->scan_add, "radix_scan_add", SEGMENTS, 1, 1 },
        { &p->copy_back, "radix_copy_back", LSD, 1, 1 },
        { &p->iota, "radix_iota", LSD, 1, index_values },
        { &p->seg_start, "seg_start", SEGMENTS, 1, 1 },
        { &p->seg_classify, "seg_classify", SEGMENTS, 1, 1 },
        { &p->seg_argsort_prepare, "seg_argsort_prepare", SEGMENTS, 1, index_values },
        { &p->seg_blocks, "seg_blocks", SEGMENTS, 1, 1 },
        { &p->seg_histogram, "seg_histogram", SEGMENTS, 0, 1 },
        { &p->seg_decide, "seg_decide", SEGMENTS, 1, 1 },
        { &p->seg_scatter, "seg_scatter", SEGMENTS, 0, 1 },
        { &p->seg_tiny, "seg_tiny", SEGMENTS, 1, 1 },
        { &p->seg_local, "seg_local", SEGMENTS, 0, small },
        { &p->seg_medium, "seg_medium", SEGMENTS, 0, 1 },
        { &p->seg_copy, "seg_copy", SEGMENTS, 1, 1 },
        { &p->seg_sample, "seg_sample", SEGMENTS, 0, p->splits_by_value },
        { &p->topk_sample, "topk_sample", TOPK, 1, 1 },
        { &p->topk_range_count, "topk_range_count", TOPK, 0, 1 },
        { &p->topk_range_plan, "topk_range_plan", TOPK, 1, 1 },
        { &p->topk_hist, "topk_hist", TOPK, 0, 1 },
        { &p->topk_plan, "topk_plan", TOPK, 1, 1 },
        { &p->topk_split, "topk_split", TOPK, 0, 1 },
        { &p->topk_count, "topk_count", TOPK, 0, 1 },
        { &p->topk_pick, "topk_pick", TOPK, 1, 1 },
        { &p->topk_chunk_counts, "topk_chunk_counts", TOPK, 0, 1 },
        { &p->topk_chunk_scan, "topk_chunk_scan", TOPK, 1, 1 },
        { &p->topk_gather, "topk_gather", TOPK, 0, 1 },
        { &p->topk_rows_select, "topk_rows_select", TOPK, 0, 1 },
        { &p->topk_write, "topk_write", TOPK, 1, 1 },
        { &p->records_key, "records_key", RECORDS, 1, 1 },
        { &p->records_key_runs, "records_key_runs", RECORDS, 1, 1 },
        { &p->records_lead, "records_lead", RECORDS, 1, 1 },
        { &p->records_dict, "records_dict", RECORDS, 1, 1 },
        { &p->records_dict_key, "records_dict_key", RECORDS, 1, 1 },
        { &p->records_dict_use, "records_dict_use", RECORDS, 1, 1 },
        { &p->records_unkey, "records_unkey", RECORDS, 1, 1 },
        { &p->records_gather[0], "records_gather_1", RECORDS, 1, 1 },
        { &p->records_gather[1], "records_gather_4", RECORDS, 1, 1 },
        { &p->records_gather[2], "records_gather_8", RECORDS, 1, 1 },
        { &p->records_gather[3], "records_gather_16", RECORDS, 1, 1 },
        { &p->records_gather[4], "records_gather_32", RECORDS, 1, 1 },
        { &p->records_heads, "records_heads", RECORDS, 1, 1 },
        { &p->records_runs, "records_runs", RECORDS, 1, 1 },
        { &p->records_run_scan, "records_run_scan", RECORDS, 1, 1 },
        { &p->records_run_offsets, "records_run_offsets", RECORDS, 1, 1 },
        { &p->records_run_fill, "records_run_fill", RECORDS, 1, 1 },
        { &p->records_gather_pairs, "records_gather_pairs", RECORDS, 1, 1 },
    };
    memcpy(table, entries, sizeof entries);
}

static _Thread_local char *thread_build_log;

/* Keeps text (a malloc'd string, or NULL) as the sorter's newest log, until release. */
static void add_log(clradix_sorter *sorter, char *text)
{
    if (!text)
        return;
    const size_t length = strlen(text);
    build_log *log = malloc(sizeof *log + length + 1);
    if (log) {
        memcpy(log->text, text, length + 1);
        pthread_mutex_lock(&sorter->lock);
        log->older = sorter->logs;
        sorter->logs = log;
        pthread_mutex_unlock(&sorter->lock);
    }
    free(text);
}

void build_logs_free(clradix_sorter *sorter)
{
    while (sorter->logs) {
        build_log *older = sorter->logs->older;
        free(sorter->logs);
        sorter->logs = older;
    }
}

static const char *newest_log(const clradix_sorter *sorter)
{
    pthread_mutex_t *lock = (pthread_mutex_t *)&sorter->lock;  /* reading, under the writers' lock */
    pthread_mutex_lock(lock);
    const char *text = sorter->logs ? sorter->logs->text : NULL;
    pthread_mutex_unlock(lock);
    return text;
}

void build_log_set_thread(const clradix_sorter *sorter)
{
    const char *log = sorter ? newest_log(sorter) : NULL;
    free(thread_build_log);
    thread_build_log = log ? strdup(log) : NULL;
}

const char *clradix_build_log(const clradix_sorter *sorter)
{
    const char *log = sorter ? newest_log(sorter) : thread_build_log;
    return log ? log : "";
}

static char *read_file(const char *dir, const char *name)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
        && (text = malloc((size_t)size + 1)) != NULL) {
        if (fread(text, 1, (size_t)size, f) != (size_t)size) {
            free(text);
            text = NULL;
        } else {
            text[size] = '\0';
        }
    }
    fclose(f);
    return text;
}

/* Fills texts with the sources (owned[i] set where texts[i] must be freed). */
static clradix_status load_sources(clradix_sorter *sorter, enum program_kind kind, const char *texts[MAX_SOURCES],
                                   int owned[MAX_SOURCES])
{
    const char *dir = getenv("CLRADIX_KERNEL_DIR");
    const char *const *files = source_files[kind];
    for (int i = 0; i < MAX_SOURCES; ++i) {
        owned[i] = 0;
        texts[i] = NULL;
    }
    for (int i = 0; i < source_count(kind); ++i) {
        if (dir && *dir) {
            texts[i] = read_file(dir, files[i]);
            owned[i] = 1;
            if (!texts[i]) {
                char *log = malloc(4200);
                if (log)
                    snprintf(log, 4200, "clradix: cannot read %s/%s (CLRADIX_KERNEL_DIR)", dir, files[i]);
                add_log(sorter, log);
                return CLRADIX_ERROR_BUILD_FAILED;
            }
        } else {
            for (const clradix_kernel_source *s = clradix_kernel_sources; s->name; ++s)
                if (!strcmp(s->name, files[i]))
                    texts[i] = s->text;
            if (!texts[i]) {  /* a build of the library that forgot to embed it */
                char *log = malloc(200);
                if (log)
                    snprintf(log, 200, "clradix: %s is not embedded in this library", files[i]);
                add_log(sorter, log);
                return CLRADIX_ERROR_BUILD_FAILED;
            }
        }
    }
    return CLRADIX_SUCCESS;
}

static char *get_build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS)
        return NULL;
    char *log = malloc(size + 1);
    if (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS)
        log[0] = '\0';
    if (log)
        log[size] = '\0';
    return log;
}

/* Releases the kernels of p (a program or a copy of its kernels). */
static void kernels_release(radix_program *p)
{
    kernel_entry kernels[KERNEL_COUNT];
    kernel_table(p, 0, kernels);
    for (int i = 0; i < KERNEL_COUNT; ++i)
        if (*kernels[i].kernel) {
            clReleaseKernel(*kernels[i].kernel);
            *kernels[i].kernel = NULL;
        }
}

radix_program *program_kernels_take(clradix_sorter *sorter, radix_program *p, clradix_status *status)
{
    if (sorter->limits.runs_in_caller) {  /* one sort's enqueues at a time (see enqueue_lock) */
        pthread_mutex_lock(&sorter->enqueue_lock);
        return p;
    }
    radix_program *k = NULL;
    pthread_mutex_lock(&sorter->lock);
    if (!p->kernels_busy) {
        p->kernels_busy = 1;
        k = p;
    } else if (p->spare_count) {
        k = p->spares[--p->spare_count];
    }
    pthread_mutex_unlock(&sorter->lock);
    if (k)
        return k;
    /* A copy: the program's shape and kernels of its own (a built program's fields other
       than these never change). */
    k = malloc(sizeof *k);
    if (!k) {
        *status = CLRADIX_ERROR_OUT_OF_RESOURCES;
        return NULL;
    }
    *k = (radix_program){ .state = PROGRAM_READY, .kind = p->kind, .params = p->params, .program = p->program,
                          .splits_by_value = p->splits_by_value };
    kernel_entry theirs[KERNEL_COUNT], mine[KERNEL_COUNT];
    kernel_table(p, 0, theirs);
    kernel_table(k, 0, mine);
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < KERNEL_COUNT && err == CL_SUCCESS; ++i)
        if (*theirs[i].kernel)
            *mine[i].kernel = clCreateKernel(p->program, theirs[i].name, &err);
    if (err != CL_SUCCESS) {
        kernels_release(k);
        free(k);
        *status = status_from_cl(err);
        return NULL;
    }
    return k;
}

void program_kernels_return(clradix_sorter *sorter, radix_program *p, radix_program *k)
{
    if (!k)
        return;
    if (sorter->limits.runs_in_caller) {
        pthread_mutex_unlock(&sorter->enqueue_lock);
        return;
    }
    pthread_mutex_lock(&sorter->lock);
    if (k == p) {
        p->kernels_busy = 0;
        k = NULL;
    } else if (p->spare_count < KERNEL_SPARES) {
        p->spares[p->spare_count++] = k;
        k = NULL;
    }
    pthread_mutex_unlock(&sorter->lock);
    if (k) {
        kernels_release(k);
        free(k);
    }
}

void program_release(radix_program *p)
{
    while (p->spare_count) {
        radix_program *copy = p->spares[--p->spare_count];
        kernels_release(copy);
        free(copy);
    }
    kernels_release(p);
    if (p->program) {
        clReleaseProgram(p->program);
        p->program = NULL;
    }
}

/* Puts the program's binary for its one device into the disk cache. */
static void store_binary(cl_program program, const uint64_t key[2])
{
    size_t length = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof length, &length, NULL) != CL_SUCCESS || length == 0)
        return;
    unsigned char *binary = malloc(length);
    unsigned char *binaries[] = { binary };
    if (binary && clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL) == CL_SUCCESS)
        cache_store(key, binary, length);
    free(binary);
}

/* What the kernels of a build tell of their shape: the most local memory one of them
   needs, and the largest work-group that every kernel run in groups of WG (wg), and of
   SCAN_WG (scan_wg), can have. */
typedef struct kernel_limits {
    cl_ulong local;
    size_t wg, scan_wg;
} kernel_limits;

/* Creates the kernels of p and reads their limits. */
static clradix_status create_kernels(const clradix_sorter *sorter, radix_program *p, enum program_kind kind,
                                     unsigned value_bytes, kernel_limits *found)
{
    kernel_entry kernels[KERNEL_COUNT];
    kernel_table(p, value_bytes, kernels);
    *found = (kernel_limits){ 0, SIZE_MAX, SIZE_MAX };
    for (int i = 0; i < KERNEL_COUNT; ++i) {
        if (!kernels[i].wanted || !(kernels[i].kinds & (1u << kind)))
            continue;
        cl_int err;
        *kernels[i].kernel = clCreateKernel(p->program, kernels[i].name, &err);
        if (err != CL_SUCCESS)
            return status_from_cl(err);
        size_t max_wg = 0;
        cl_ulong local = 0;
        if (clGetKernelWorkGroupInfo(*kernels[i].kernel, sorter->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_wg,
                                     &max_wg, NULL) != CL_SUCCESS
            || clGetKernelWorkGroupInfo(*kernels[i].kernel, sorter->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local,
                                        &local, NULL) != CL_SUCCESS)
            return CLRADIX_ERROR_OPENCL;
        size_t *wg = kernels[i].scan ? &found->scan_wg : &found->wg;
        *wg = max_wg < *wg ? max_wg : *wg;
        found->local = local > found->local ? local : found->local;
    }
    return CLRADIX_SUCCESS;
}

/* The program of the cache entry key, built; NULL when there is none or it does not load. */
static cl_program load_cached(clradix_sorter *sorter, const uint64_t key[2], const char *options)
{
    size_t length = 0;
    unsigned char *binary = cache_load(key, &length);
    if (!binary)
        return NULL;
    const unsigned char *binaries[] = { binary };
    cl_int binary_status = CL_SUCCESS, err;
    cl_program program = clCreateProgramWithBinary(sorter->context, 1, &sorter->device, &length, binaries,
                                                   &binary_status, &err);
    free(binary);
    if (err == CL_SUCCESS && binary_status == CL_SUCCESS
        && clBuildProgram(program, 1, &sorter->device, options, NULL, NULL) == CL_SUCCESS)
        return program;
    if (program)
        clReleaseProgram(program);
    return NULL;
}

/* Builds p with p->params, from the disk cache when it has the program, else from the
   sources, and reads its kernels' limits. *store: whether the program was compiled and
   belongs in the disk cache (under key), should its shape be kept. */
static clradix_status build_once(clradix_sorter *sorter, radix_program *p, enum program_kind kind,
                                 const char *const texts[MAX_SOURCES], key_variant keys, unsigned value_bytes,
                                 kernel_limits *found, int *store, uint64_t key[2])
{
    const radix_params *q = &p->params;
    char options[512];
    snprintf(options, sizeof options,
             "-cl-std=CL1.2 -D KEY_BITS=%u -D VALUE_SIZE=%u -D RADIX_BITS=%u -D WG=%u -D KPT=%u -D RANK_BITS=%u"
             " -D COUNTER_DIGITS=%u -D HIST_COPIES=%u -D FUSED=%u -D MAX_GROUPS=%u -D SMALL_N=%u -D SCAN_WG=%u"
             " -D TINY_N=%u%s%s%s%s%s%s",
             keys.bytes * 8, value_bytes, q->radix_bits, q->wg, q->kpt, q->rank_bits, q->counter_digits, q->hist_copies,
             q->fused,
             q->max_groups, q->small_n, q->scan_wg, (unsigned)SEGMENT_TINY_N,
             keys.numpy_order ? " -D NUMPY_ORDER=1" : "",
             keys.record == 1 ? " -D RECORD_IMAGE=1" : keys.record == 2 ? " -D RECORD_IMAGE=2" : "",
             sorter->limits.int64_extension ? " -D CLES_KHR_INT64=1" : "",
             sorter->limits.inline_barrier_functions ? " -D INLINE_BARRIER_FUNCTIONS=1" : "",
             (sorter->limits.type & CL_DEVICE_TYPE_GPU) ? " -D UNROLL=1" : "",
             p->splits_by_value ? " -D SPLIT_BY_VALUE=1" : "");

    const int count = source_count(kind);
    const int cached = cache_enabled(sorter->device);
    *store = 0;
    if (cached) {
        cache_key(sorter->device, texts, count, options, key);
        p->program = load_cached(sorter, key, options);
    }
    if (p->program) {
        if (create_kernels(sorter, p, kind, value_bytes, found) == CLRADIX_SUCCESS)
            return CLRADIX_SUCCESS;
        program_release(p);  /* the cache must never make a build fail: compile instead */
    }

    cl_int err;
    p->program = clCreateProgramWithSource(sorter->context, (cl_uint)count, (const char **)texts, NULL, &err);
    if (err != CL_SUCCESS)
        return status_from_cl(err);
    err = clBuildProgram(p->program, 1, &sorter->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        add_log(sorter, get_build_log(p->program, sorter->device));
        return err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS ? CLRADIX_ERROR_BUILD_FAILED
                                                                                  : status_from_cl(err);
    }
    *store = cached;
    return create_kernels(sorter, p, kind, value_bytes, found);
}

static size_t round_down_to_pow2(size_t v)
{
    size_t p = 1;
    while (p <= v / 2)
        p *= 2;
    return p;
}

/*
 * Builds the variant into p with the sorter's shape fitted to the device (tuning_fit),
 * then checks it against what its kernels report: a kernel whose own work-group limit is
 * below the shape's caps that work-group size; one that needs more local memory than the
 * device has (compilers add to what the arrays declare: rusticl reports twice as much)
 * shrinks the local memory the shape is fitted to by as much. Then the variant is fitted
 * and built again, until it fits or nothing is left to shrink.
 */
static clradix_status build(clradix_sorter *sorter, radix_program *p, enum program_kind kind, key_variant keys,
                            unsigned value_bytes)
{
    const char *texts[MAX_SOURCES];
    int owned[MAX_SOURCES];
    clradix_status status = load_sources(sorter, kind, texts, owned);
    device_limits fit = sorter->limits;  /* what the shape is fitted to */
    size_t wg_cap = SIZE_MAX, scan_wg_cap = SIZE_MAX;
    for (int attempt = 0; status == CLRADIX_SUCCESS; ++attempt) {
        p->params = sorter->params;
        if (kind == PROGRAM_SEGMENTS && p->params.local_n)
            p->params.small_n = p->params.local_n;  /* the engine's local class */
        if (p->params.wg > wg_cap)
            p->params.wg = (unsigned)wg_cap;
        if (p->params.hist_copies > p->params.wg)
            p->params.hist_copies = p->params.wg;
        if (p->params.scan_wg > scan_wg_cap)
            p->params.scan_wg = (unsigned)scan_wg_cap;
        if (attempt == 16 || !tuning_fit(&p->params, &fit, keys.bytes, value_bytes)) {
            status = CLRADIX_ERROR_UNSUPPORTED;
            break;
        }
        p->splits_by_value = kind == PROGRAM_SEGMENTS && engine_splits_by_value(&p->params, keys.bytes);
        kernel_limits found;
        int store;
        uint64_t key[2];
        status = build_once(sorter, p, kind, texts, keys, value_bytes, &found, &store, key);
        if (status != CLRADIX_SUCCESS)
            break;
        const int local_fits = found.local <= sorter->limits.local_mem;
        if (local_fits && found.wg >= p->params.wg && found.scan_wg >= p->params.scan_wg) {
            if (store)
                store_binary(p->program, key);
            break;
        }
        program_release(p);
        if (found.wg < p->params.wg)
            wg_cap = found.wg ? round_down_to_pow2(found.wg) : 1;
        if (found.scan_wg < p->params.scan_wg)
            scan_wg_cap = found.scan_wg ? round_down_to_pow2(found.scan_wg) : 1;
        if (!local_fits)  /* less than the estimate of this shape, so that the next one is smaller */
            fit.local_mem = tuning_local_estimate(&p->params, keys.bytes, value_bytes) * sorter->limits.local_mem
                          / found.local - 1;
    }
    for (int i = 0; i < MAX_SOURCES; ++i)
        if (owned[i])
            free((char *)texts[i]);
    if (status != CLRADIX_SUCCESS)
        program_release(p);
    return status;
}

clradix_status program_get(clradix_sorter *sorter, enum program_kind kind, key_variant keys, unsigned value_bytes,
                           radix_program **out)
{
    const unsigned width_class = keys.bytes == 4 ? 0 : keys.bytes == 8 ? 1 : keys.bytes == 2 ? 2 : 3;
    const unsigned key_class = keys.record        ? 5 + 2 * keys.record + width_class  /* records of 4 or 8 bytes */
                             : keys.numpy_order ? 4 + width_class
                                                : width_class;  /* 0: made at creation */
    const unsigned value_class = value_bytes == 0 ? 0 : value_bytes == 4 ? 1 : value_bytes == 8 ? 2 : 3;
    radix_program *p = &sorter->programs[kind][key_class][value_class];

    pthread_mutex_lock(&sorter->lock);
    while (p->state == PROGRAM_BUILDING)  /* another thread builds it */
        pthread_cond_wait(&sorter->program_built, &sorter->lock);
    const enum program_state state = p->state;
    if (state == PROGRAM_NONE)
        p->state = PROGRAM_BUILDING;
    pthread_mutex_unlock(&sorter->lock);
    if (state == PROGRAM_READY) {
        *out = p;
        return CLRADIX_SUCCESS;
    }
    if (state == PROGRAM_FAILED)
        return CLRADIX_ERROR_BUILD_FAILED;

    /* Built outside the lock, into a copy that no other thread sees until it is ready. */
    radix_program built = { 0 };
    const clradix_status status = build(sorter, &built, kind, keys, value_bytes);
    pthread_mutex_lock(&sorter->lock);
    built.kind = kind;
    if (status == CLRADIX_SUCCESS)
        *p = built;
    p->state = status == CLRADIX_SUCCESS ? PROGRAM_READY
             : status == CLRADIX_ERROR_BUILD_FAILED ? PROGRAM_FAILED : PROGRAM_NONE;
    pthread_cond_broadcast(&sorter->program_built);
    pthread_mutex_unlock(&sorter->lock);
    if (status == CLRADIX_SUCCESS)
        *out = p;
    return status;
}

#ifdef CLRADIX_TESTING
clradix_status clradix_testing_variant(clradix_sorter *sorter, unsigned key_bytes, unsigned value_bytes,
                                       clradix_tuning *shape, unsigned *counter_digits, cl_ulong *local_bytes)
{
    /* The LSD program's variant: the shape docs/tuning.md lists. (The engine's kernels are
       checked against the device's local memory when they are created, and compiling them
       here for every row and limit would cost minutes of the test suite.) */
    radix_program *p;
    clradix_status status = program_get(sorter, PROGRAM_LSD, (key_variant){ .bytes = key_bytes }, value_bytes, &p);
    if (status != CLRADIX_SUCCESS)
        return status;
    tuning_report(&p->params, shape);
    *counter_digits = p->params.counter_digits;
    kernel_entry kernels[KERNEL_COUNT];
    kernel_table(p, value_bytes, kernels);
    *local_bytes = 0;
    for (int i = 0; i < KERNEL_COUNT; ++i) {
        cl_ulong local = 0;
        if (*kernels[i].kernel
            && clGetKernelWorkGroupInfo(*kernels[i].kernel, sorter->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local,
                                        &local, NULL) != CL_SUCCESS)
            return CLRADIX_ERROR_OPENCL;
        *local_bytes = local > *local_bytes ? local : *local_bytes;
    }
    return CLRADIX_SUCCESS;
}
#endif
