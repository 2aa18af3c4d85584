/*
 * Host-array sorts by parts: those larger than the device takes at once (its memory, its
 * largest buffer, the sorter's memory limit, or more keys than the kernels' 32-bit offsets
 * hold), and those shared by several devices. A stable partition by the most significant
 * digit that varies in the sort's bit range, on the host, puts the keys into buckets that
 * come out in order: no merge. Runs of consecutive buckets that fit a device at once are
 * then sorted by their remaining bits in one in-core segmented sort each; a bucket too
 * large for that is partitioned again by its next digit that varies; a bucket with no bits
 * left is already sorted. Workers take tasks (a large bucket, or a run of small ones)
 * largest first, two per sorter, so that one task's transfers overlap another's sort and a
 * faster device takes more.
 * Everything happens in host copies (slot 0, and slot 1 once a bucket is partitioned
 * again); results gather in slot 0 and reach the caller's arrays in one copy at the end,
 * so a failure leaves them untouched. Argsort sorts (key, position) pairs.
 */
#include "internal.h"
#include "host_parts.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PARTITION_BITS = 8, PARTITION_RADIX = 1 << PARTITION_BITS, WORKERS_PER_SORTER = 2 };

/* One sort, shared by its workers. */
typedef struct large_sort {
    sort_request r;                 /* the whole sort; argsort as pairs with index values */
    key_transform image;            /* the keys' order-preserving image */
    const unsigned char *keys_in, *values_in;  /* the caller's arrays (values_in NULL: indices) */
    unsigned char *keys[2], *values[2];        /* host copies, slot 1 made when needed */
    pthread_mutex_t lock;           /* guards slot 1's allocation, the task queue and status */
    size_t bucket_lo[PARTITION_RADIX], bucket_count[PARTITION_RADIX];
    unsigned bucket_end_bit;        /* their remaining bits: [begin_bit, bucket_end_bit) */
    unsigned host_threads;          /* the host's cores, up to PARTITION_PARTS_MAX: a partition's threads */
    /* The first partition's buckets as tasks: buckets task_from[t] .. task_to[t] - 1, in
       order[] largest first, handed out from taken on. */
    unsigned task_from[PARTITION_RADIX], task_to[PARTITION_RADIX], order[PARTITION_RADIX], tasks, taken;
    clradix_status status;          /* the first failure */
} large_sort;

/* A thread that sorts buckets with one sorter, on a queue of its own. */
typedef struct worker {
    large_sort *sort;
    clradix_sorter *sorter;
    unsigned share;  /* the workers of this sort on that sorter, whose memory they share */
    cl_command_queue queue;
    pthread_t thread;
    int started;
} worker;

/* Digit `shift .. shift + bits` of key's image. */
static unsigned digit_of(const large_sort *s, uint64_t key, unsigned shift, unsigned bits)
{
    const uint64_t image = key_image(key, &s->image);
    return (unsigned)(image >> shift) & ((1u << bits) - 1);
}

/* Value i of the source (values of vs bytes): the caller's, or (argsort at the first
   level) the index i. */
static inline __attribute__((always_inline)) void copy_value(const unsigned char *from, size_t vs, size_t i,
                                                             unsigned char *to)
{
    if (from) {
        element_copy(to, from + i * vs, vs);
    } else if (vs == 4) {
        const uint32_t index = (uint32_t)i;
        memcpy(to, &index, 4);
    } else {
        const uint64_t index = i;
        memcpy(to, &index, 8);
    }
}

/* Copies elements [lo, lo + count) of slot `from` to slot 0 (the result). */
static void settle(large_sort *s, int from, size_t lo, size_t count)
{
    if (from == 0)
        return;
    const size_t kb = s->r.key_bytes, vs = s->r.value_size;
    memcpy(s->keys[0] + lo * kb, s->keys[from] + lo * kb, count * kb);
    if (vs)
        memcpy(s->values[0] + lo * vs, s->values[from] + lo * vs, count * vs);
}

/* One host thread's share of a partition pass: elements [lo, lo + count). */
typedef struct partition_part {
    large_sort *s;
    const unsigned char *keys, *values;
    int to;
    size_t lo, count;
    unsigned shift, bits;
    uint64_t any, all;                /* varying_part: OR and AND of the images */
    size_t counts[PARTITION_RADIX];   /* count_part: per digit; scatter_part: next slot per digit */
    unsigned char *groups;            /* scatter_part's SCATTER_BYTES (off the stack: workers' stacks are small) */
} partition_part;

/* The passes' loops, written once for any key width kb and value size vs and instantiated
   below for each constant pair, so that loads, images and copies compile to plain moves. */
static inline __attribute__((always_inline)) void varying_range(partition_part *p, unsigned kb)
{
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = p->lo; i < p->lo + p->count; ++i) {
        const uint64_t image = key_image(key_load(p->keys, kb, i), &p->s->image);
        any |= image;
        all &= image;
    }
    p->any = any;
    p->all = all;
}

static inline __attribute__((always_inline)) void count_range(partition_part *p, unsigned kb)
{
    memset(p->counts, 0, sizeof p->counts);
    for (size_t i = p->lo; i < p->lo + p->count; ++i)
        ++p->counts[digit_of(p->s, key_load(p->keys, kb, i), p->shift, p->bits)];
}

/* Scatter through a small buffer per digit (write-combining): a digit's elements leave in
   groups of SCATTER_GROUP, so the stores to its slot are a few whole cache lines instead
   of one partial line per element across 256 places at once. */
enum { SCATTER_GROUP = 16, SCATTER_BYTES = PARTITION_RADIX * SCATTER_GROUP * (8 + 16) };

static inline __attribute__((always_inline)) void scatter_range(partition_part *p, unsigned kb, size_t vs)
{
    const large_sort *s = p->s;
    unsigned char *keys_to = s->keys[p->to], *values_to = s->values[p->to];
    unsigned char(*key_group)[SCATTER_GROUP * 8] = (void *)p->groups;
    unsigned char(*value_group)[SCATTER_GROUP * 16] = (void *)(p->groups + PARTITION_RADIX * SCATTER_GROUP * 8);
    unsigned filled[PARTITION_RADIX] = { 0 };
    for (size_t i = p->lo; i < p->lo + p->count; ++i) {
        const unsigned d = digit_of(s, key_load(p->keys, kb, i), p->shift, p->bits), f = filled[d];
        element_copy(key_group[d] + f * kb, p->keys + i * kb, kb);
        if (vs)
            copy_value(p->values, vs, i, value_group[d] + f * vs);
        if (f + 1 < SCATTER_GROUP) {
            filled[d] = f + 1;
            continue;
        }
        const size_t j = p->counts[d];
        memcpy(keys_to + j * kb, key_group[d], SCATTER_GROUP * kb);
        if (vs)
            memcpy(values_to + j * vs, value_group[d], SCATTER_GROUP * vs);
        p->counts[d] = j + SCATTER_GROUP;
        filled[d] = 0;
    }
    for (unsigned d = 0; d < PARTITION_RADIX; ++d) {  /* what is left of each group */
        const size_t j = p->counts[d];
        memcpy(keys_to + j * kb, key_group[d], filled[d] * kb);
        if (vs)
            memcpy(values_to + j * vs, value_group[d], filled[d] * vs);
        p->counts[d] = j + filled[d];
    }
}

/* The instances: key widths 1, 2, 4, 8 and value sizes 0, 4, 8, 16. */
#define BY_KEY_WIDTH(kb, call) \
    switch (kb) {              \
    case 1: call(1); break;    \
    case 2: call(2); break;    \
    case 4: call(4); break;    \
    default: call(8); break;   \
    }
#define BY_VALUE_SIZE(kb, vs, call) \
    switch (vs) {                   \
    case 0: call(kb, 0); break;     \
    case 4: call(kb, 4); break;     \
    case 8: call(kb, 8); break;     \
    default: call(kb, 16); break;   \
    }

static void *varying_part(void *arg)
{
    partition_part *p = arg;
#define VARYING(kb) varying_range(p, kb)
    BY_KEY_WIDTH(p->s->r.key_bytes, VARYING)
    return NULL;
}

static void *count_part(void *arg)
{
    partition_part *p = arg;
#define COUNT(kb) count_range(p, kb)
    BY_KEY_WIDTH(p->s->r.key_bytes, COUNT)
    return NULL;
}

static void *scatter_part(void *arg)
{
    partition_part *p = arg;
    const size_t vs = p->s->r.value_size;
#define SCATTER(kb, vs) scatter_range(p, kb, vs)
#define SCATTER_VALUES(kb) BY_VALUE_SIZE(kb, vs, SCATTER)
    BY_KEY_WIDTH(p->s->r.key_bytes, SCATTER_VALUES)
    return NULL;
}

enum { PARTITION_PART_MIN = 1 << 16, PARTITION_PARTS_MAX = 16 };  /* elements a host thread takes at least */

/* A copy shared by the host's threads. */
typedef struct copy_part {
    unsigned char *to;
    const unsigned char *from;
    size_t bytes;
} copy_part;

static void *copy_one_part(void *arg)
{
    const copy_part *c = arg;
    memcpy(c->to, c->from, c->bytes);
    return NULL;
}

static void copy_in_parts(void *to, const void *from, size_t bytes, unsigned threads)
{
    unsigned parts = threads;
    while (parts > 1 && bytes / parts < PARTITION_PART_MIN * 8)
        --parts;
    copy_part part[PARTITION_PARTS_MAX];
    const size_t share = bytes / parts;  /* the last part takes the rest */
    for (unsigned t = 0; t < parts; ++t) {
        const size_t at = share * t;
        part[t] = (copy_part){ (unsigned char *)to + at, (const unsigned char *)from + at,
                               t + 1 < parts ? share : bytes - at };
    }
    run_in_parts(copy_one_part, part, sizeof part[0], parts);
}

/* Stable partition of elements [lo, lo + count) of keys (and values) by the top digit of
   the bits of [begin_bit, end_bit) that vary into slot `to`: each bucket's first element
   and size, and in *next_end the buckets' end bit (begin_bit: no bit varies, one bucket
   holds all). Three reads (the bits that vary, the counts, the scatter), each shared by
   the host's cores in consecutive parts; a part's elements go after those of the parts
   before it in every bucket, so the order is stable. Fails only for want of host memory. */
static clradix_status partition(large_sort *s, const unsigned char *keys, const unsigned char *values, int to,
                                size_t lo, size_t count, unsigned end_bit, size_t first[PARTITION_RADIX],
                                size_t counts[PARTITION_RADIX], unsigned *next_end)
{
    unsigned parts = s->host_threads;
    while (parts > 1 && count / parts < PARTITION_PART_MIN)
        --parts;
    unsigned char *groups = malloc((size_t)parts * SCATTER_BYTES);
    if (!groups)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    partition_part part[PARTITION_PARTS_MAX];
    const size_t share = count / parts;  /* the last part takes the rest */
    for (unsigned t = 0; t < parts; ++t)
        part[t] = (partition_part){ .s = s, .keys = keys, .values = values, .to = to, .lo = lo + share * t,
                                    .count = t + 1 < parts ? share : count - share * t,
                                    .groups = groups + (size_t)t * SCATTER_BYTES };
    run_in_parts(varying_part, part, sizeof part[0], parts);
    uint64_t any = 0, all = ~(uint64_t)0;
    for (unsigned t = 0; t < parts; ++t) {
        any |= part[t].any;
        all &= part[t].all;
    }
    uint64_t varying = (any ^ all) & (end_bit >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << end_bit) - 1));
    end_bit = s->r.begin_bit;
    for (varying >>= s->r.begin_bit; varying; varying >>= 1)
        ++end_bit;

    const unsigned bits = end_bit - s->r.begin_bit < PARTITION_BITS ? end_bit - s->r.begin_bit : PARTITION_BITS;
    const unsigned shift = end_bit - bits;
    for (unsigned t = 0; t < parts; ++t) {
        part[t].shift = shift;
        part[t].bits = bits;
    }
    run_in_parts(count_part, part, sizeof part[0], parts);
    size_t at = lo;  /* each part's first slot per digit: digit-major, then part order */
    for (unsigned d = 0; d < PARTITION_RADIX; ++d) {
        first[d] = at;
        counts[d] = 0;
        for (unsigned t = 0; t < parts; ++t) {
            const size_t c = part[t].counts[d];
            part[t].counts[d] = at;
            at += c;
            counts[d] += c;
        }
    }
    run_in_parts(scatter_part, part, sizeof part[0], parts);
    free(groups);
    *next_end = shift;
    return CLRADIX_SUCCESS;
}

static clradix_status sort_buckets(worker *w, int where, const size_t *first, const size_t *counts, unsigned from,
                                   unsigned to, unsigned end_bit);

/* Sorts the bucket [lo, lo + count) of slot `where` by bits [begin_bit, end_bit) into
   slot 0, with the worker's sorter: in core, or partitioned again into slot 1 - where. */
static clradix_status sort_bucket(worker *w, int where, size_t lo, size_t count, unsigned end_bit)
{
    large_sort *s = w->sort;
    if (count < 2 || end_bit == s->r.begin_bit) {  /* nothing to order */
        settle(s, where, lo, count);
        return CLRADIX_SUCCESS;
    }
    const size_t kb = s->r.key_bytes, vs = s->r.value_size;
    sort_request bucket = s->r;
    bucket.n = count;
    bucket.end_bit = end_bit;
    bucket.keys_size = count * kb;
    bucket.values_size = count * vs;
    if (host_fits_in_core(w->sorter, &bucket))
        return host_sort_in_core(w->sorter, w->queue, &bucket, s->keys[where] + lo * kb,
                                 vs ? s->values[where] + lo * vs : NULL, s->keys[0] + lo * kb,
                                 vs ? s->values[0] + lo * vs : NULL, NULL);

    const int other = 1 - where;
    pthread_mutex_lock(&s->lock);
    if (!s->keys[1]) {  /* slot 1, for the first bucket that must be split again */
        s->keys[1] = malloc(s->r.keys_size);
        s->values[1] = vs ? malloc(s->r.values_size) : NULL;
    }
    const int ready = s->keys[1] && (!vs || s->values[1]);
    pthread_mutex_unlock(&s->lock);
    if (!ready)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    size_t first[PARTITION_RADIX], counts[PARTITION_RADIX];
    unsigned next_end;
    const clradix_status status = partition(s, s->keys[where], vs ? s->values[where] : NULL, other, lo, count,
                                            end_bit, first, counts, &next_end);
    return status == CLRADIX_SUCCESS ? sort_buckets(w, other, first, counts, 0, PARTITION_RADIX, next_end) : status;
}

/* Buckets from .. to - 1 of slot `where` (consecutive: bucket d is [first[d], first[d] +
   counts[d])), each sorted by bits [begin_bit, end_bit) into slot 0: the longest runs of
   them that fit the device at once as one segmented sort each (a bucket alone as a flat
   sort), a bucket that fits in no run by sort_bucket. */
static clradix_status sort_buckets(worker *w, int where, const size_t *first, const size_t *counts, unsigned from,
                                   unsigned to, unsigned end_bit)
{
    large_sort *s = w->sort;
    sort_request run = s->r;
    run.end_bit = end_bit;
    size_t offsets[PARTITION_RADIX + 1];  /* of the buckets from `from` on: positions in the slots */
    for (unsigned d = from; d < to; ++d)
        offsets[d - from] = first[d];
    offsets[to - from] = first[to - 1] + counts[to - 1];
    clradix_status status = CLRADIX_SUCCESS;
    for (unsigned d = from; d < to && status == CLRADIX_SUCCESS;) {
        if (counts[d] == 0) {  /* no run starts with an empty bucket, so none is empty */
            ++d;
            continue;
        }
        unsigned e = d + 1;  /* the run [d, e) */
        while (e < to && end_bit > s->r.begin_bit
               && host_segments_fit(w->sorter, &run, offsets, d - from, e + 1 - from, w->share))
            ++e;
        if (e - d > 1) {
            const size_t vs = s->r.value_size;
            status = host_segments_in_core(w->sorter, w->queue, &run, s->keys[where], vs ? s->values[where] : NULL,
                                           s->keys[0], vs ? s->values[0] : NULL, offsets, d - from, e - from);
        } else {
            status = sort_bucket(w, where, first[d], counts[d], end_bit);
        }
        d = e;
    }
    return status;
}

/* A worker: the first partition's tasks, one at a time, until none is left or one failed. */
static void *work(void *arg)
{
    worker *w = arg;
    large_sort *s = w->sort;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        const int more = s->status == CLRADIX_SUCCESS && s->taken < s->tasks;
        const unsigned t = more ? s->order[s->taken++] : 0;
        pthread_mutex_unlock(&s->lock);
        if (!more)
            return NULL;
        const clradix_status status = sort_buckets(w, 0, s->bucket_lo, s->bucket_count, s->task_from[t],
                                                   s->task_to[t], s->bucket_end_bit);
        if (status != CLRADIX_SUCCESS) {
            pthread_mutex_lock(&s->lock);
            if (s->status == CLRADIX_SUCCESS)
                s->status = status;
            pthread_mutex_unlock(&s->lock);
        }
    }
}

/* The non-empty buckets as tasks: runs of consecutive buckets of at most limit elements
   together (a larger bucket alone), largest first, so that the last ones to finish are
   small. */
static void make_tasks(large_sort *s, size_t limit)
{
    size_t size[PARTITION_RADIX];
    s->tasks = 0;
    for (unsigned d = 0; d < PARTITION_RADIX; ++d) {
        const unsigned t = s->tasks;
        if (s->bucket_count[d] == 0) {
            if (t > 0 && s->task_to[t - 1] == d)
                ++s->task_to[t - 1];  /* an empty segment of the task before */
            continue;
        }
        if (t > 0 && s->task_to[t - 1] == d && size[t - 1] + s->bucket_count[d] <= limit) {
            ++s->task_to[t - 1];  /* joins the task that ends just before it */
            size[t - 1] += s->bucket_count[d];
        } else {
            s->task_from[t] = d;
            s->task_to[t] = d + 1;
            size[t] = s->bucket_count[d];
            ++s->tasks;
        }
    }
    for (unsigned t = 0; t < s->tasks; ++t) {
        unsigned j = t;
        for (; j > 0 && size[s->order[j - 1]] < size[t]; --j)
            s->order[j] = s->order[j - 1];
        s->order[j] = t;
    }
}

/* The workers: WORKERS_PER_SORTER for each sorter, the first on the caller's queue if any. */
static clradix_status run_workers(large_sort *s, clradix_sorter *const *sorters, unsigned num_sorters,
                                  cl_command_queue callers_queue)
{
    const unsigned count = num_sorters * WORKERS_PER_SORTER;
    worker *workers = calloc(count, sizeof *workers);
    if (!workers)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;
    clradix_status status = CLRADIX_SUCCESS;
    for (unsigned i = 0; i < count && status == CLRADIX_SUCCESS; ++i) {
        workers[i] = (worker){ s, sorters[i / WORKERS_PER_SORTER], 0, NULL, 0, 0 };
        for (unsigned j = 0; j < count; ++j)  /* runs of buckets small enough for all of them at once */
            workers[i].share += sorters[j / WORKERS_PER_SORTER] == workers[i].sorter;
        if (i == 0 && callers_queue)
            workers[i].queue = callers_queue;
        else
            status = host_queue_acquire(workers[i].sorter, &workers[i].queue);
    }
    for (unsigned i = 0; i < count && status == CLRADIX_SUCCESS; ++i)
        workers[i].started = pthread_create(&workers[i].thread, NULL, work, &workers[i]) == 0;
    if (status == CLRADIX_SUCCESS && !workers[0].started)
        work(&workers[0]);  /* no thread at all: this one does the work */
    for (unsigned i = 0; i < count; ++i) {
        if (workers[i].started)
            pthread_join(workers[i].thread, NULL);
        if (workers[i].queue && workers[i].queue != callers_queue)
            host_queue_return(workers[i].sorter, workers[i].queue);
    }
    free(workers);
    return status != CLRADIX_SUCCESS ? status : s->status;
}

clradix_status host_sort_by_parts(clradix_sorter *const *sorters, unsigned num_sorters, cl_command_queue queue,
                                  sort_request *r, void *keys, void *values)
{
    large_sort s;
    memset(&s, 0, sizeof s);
    s.r = *r;
    s.r.argsort = 0;  /* (key, index) pairs */
    s.keys_in = keys;
    s.values_in = r->argsort ? NULL : values;
    s.image = r->record ? *r->record : key_transform_of(r->type, r->descending);
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    s.host_threads = cores < 1 ? 1 : cores > PARTITION_PARTS_MAX ? PARTITION_PARTS_MAX : (unsigned)cores;

    /* A device that cannot take the in-core sort of even one key: the limit is too small. */
    sort_request one = s.r;
    one.n = 1;
    one.keys_size = r->key_bytes;
    one.values_size = r->value_size;
    for (unsigned i = 0; i < num_sorters; ++i)
        if (!host_fits_in_core(sorters[i], &one))
            return CLRADIX_ERROR_OUT_OF_RESOURCES;
    /* Every program the buckets' sorts use (a bucket alone, a run of them as segments), on
       every sorter, before the host's partition: a build failure costs no pass over the keys. */
    const key_variant variant = { r->key_bytes, r->numpy_order, record_variant(r->record) };
    for (unsigned i = 0; i < num_sorters; ++i) {
        radix_program *program;
        clradix_status built = program_get(sorters[i], PROGRAM_LSD, variant, (unsigned)r->value_size, &program);
        if (built == CLRADIX_SUCCESS)
            built = program_get(sorters[i], PROGRAM_SEGMENTS, variant, (unsigned)r->value_size, &program);
        if (built != CLRADIX_SUCCESS)
            return built;
    }
    if (pthread_mutex_init(&s.lock, NULL) != 0)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;

    const size_t vs = r->value_size;
    s.keys[0] = malloc(r->keys_size);
    s.values[0] = vs ? malloc(r->values_size) : NULL;
    clradix_status status = s.keys[0] && (!vs || s.values[0]) ? CLRADIX_SUCCESS : CLRADIX_ERROR_OUT_OF_RESOURCES;
    if (status == CLRADIX_SUCCESS && r->begin_bit == r->end_bit) {  /* argsort of no bits: the identity */
        for (size_t i = 0; i < r->n; ++i)
            copy_value(NULL, vs, i, s.values[0] + i * vs);
    } else if (status == CLRADIX_SUCCESS) {
        status = partition(&s, s.keys_in, s.values_in, 0, 0, r->n, r->end_bit, s.bucket_lo, s.bucket_count,
                           &s.bucket_end_bit);
        make_tasks(&s, r->n / (4 * WORKERS_PER_SORTER * num_sorters) + 1);  /* a few tasks per worker at least */
        if (status == CLRADIX_SUCCESS)
            status = run_workers(&s, sorters, num_sorters, queue);
    }
    if (status == CLRADIX_SUCCESS) {  /* the caller's arrays change here, and only here */
        if (!r->argsort)
            copy_in_parts(keys, s.keys[0], r->keys_size, s.host_threads);
        if (vs)
            copy_in_parts(values, s.values[0], r->values_size, s.host_threads);
    }
    for (int slot = 0; slot < 2; ++slot) {
        free(s.keys[slot]);
        free(s.values[slot]);
    }
    pthread_mutex_destroy(&s.lock);
    return status;
}
