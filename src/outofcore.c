/*
 * Host-array sorts by parts: those larger than the device takes at once (its memory, its
 * largest buffer, the sorter's memory limit, or more keys than the kernels' 32-bit offsets
 * hold), and those shared by several devices. A stable partition by the most significant
 * digit of the sort's bit range, on the host, puts the keys into buckets that come out in
 * order: no merge. Each bucket is then sorted by its remaining bits in core on a device,
 * or partitioned again by its next digit while it is still too large; a bucket with no
 * bits left is already sorted. Workers take the buckets largest first, two per sorter, so
 * that one bucket's transfers overlap another's sort and a faster device takes more.
 * Everything happens in host copies (slot 0, and slot 1 once a bucket is partitioned
 * again); results gather in slot 0 and reach the caller's arrays in one copy at the end,
 * so a failure leaves them untouched. Argsort sorts (key, position) pairs.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { PARTITION_BITS = 8, PARTITION_RADIX = 1 << PARTITION_BITS, WORKERS_PER_SORTER = 2 };

/* One sort, shared by its workers. */
typedef struct large_sort {
    sort_request r;                 /* the whole sort; argsort as pairs with index values */
    uint64_t pos_xor, neg_xor;      /* the keys' order-preserving image (key_transform) */
    const unsigned char *keys_in, *values_in;  /* the caller's arrays (values_in NULL: indices) */
    unsigned char *keys[2], *values[2];        /* host copies, slot 1 made when needed */
    pthread_mutex_t lock;           /* guards slot 1's allocation, the bucket queue and status */
    size_t bucket_lo[PARTITION_RADIX], bucket_count[PARTITION_RADIX];
    unsigned order[PARTITION_RADIX], taken;  /* the first partition's buckets, largest first */
    unsigned bucket_end_bit;        /* their remaining bits: [begin_bit, bucket_end_bit) */
    clradix_status status;          /* the first failure */
} large_sort;

/* A thread that sorts buckets with one sorter, on a queue of its own. */
typedef struct worker {
    large_sort *sort;
    clradix_sorter *sorter;
    cl_command_queue queue;
    pthread_t thread;
    int started;
} worker;

static uint64_t key_at(const unsigned char *keys, unsigned bytes, size_t i)
{
    if (bytes == 4) {
        uint32_t k;
        memcpy(&k, keys + i * 4, 4);
        return k;
    }
    uint64_t k;
    memcpy(&k, keys + i * 8, 8);
    return k;
}

/* Digit `shift .. shift + bits` of key's image. */
static unsigned digit_of(const large_sort *s, uint64_t key, unsigned shift, unsigned bits)
{
    const uint64_t image = key_image(key, s->r.key_bytes * 8, s->pos_xor, s->neg_xor);
    return (unsigned)(image >> shift) & ((1u << bits) - 1);
}

/* Value i of the source: the caller's, or (argsort at the first level) the index i. */
static void copy_value(const large_sort *s, const unsigned char *from, size_t i, unsigned char *to)
{
    if (from) {
        memcpy(to, from + i * s->r.value_size, s->r.value_size);
    } else if (s->r.value_size == 4) {
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

/* Stable partition of elements [lo, lo + count) of keys (and values) by the top digit of
   bits [begin_bit, end_bit) into slot `to`: each bucket's first element and size. Returns
   the buckets' end bit. */
static unsigned partition(large_sort *s, const unsigned char *keys, const unsigned char *values, int to, size_t lo,
                          size_t count, unsigned end_bit, size_t first[PARTITION_RADIX],
                          size_t counts[PARTITION_RADIX])
{
    const unsigned bits = end_bit - s->r.begin_bit < PARTITION_BITS ? end_bit - s->r.begin_bit : PARTITION_BITS;
    const unsigned shift = end_bit - bits, kb = s->r.key_bytes;
    const size_t vs = s->r.value_size;
    size_t next[PARTITION_RADIX];
    memset(counts, 0, PARTITION_RADIX * sizeof *counts);
    for (size_t i = lo; i < lo + count; ++i)
        ++counts[digit_of(s, key_at(keys, kb, i), shift, bits)];
    for (unsigned d = 0; d < PARTITION_RADIX; ++d)
        first[d] = next[d] = d ? first[d - 1] + counts[d - 1] : lo;
    for (size_t i = lo; i < lo + count; ++i) {
        const size_t j = next[digit_of(s, key_at(keys, kb, i), shift, bits)]++;
        memcpy(s->keys[to] + j * kb, keys + i * kb, kb);
        if (vs)
            copy_value(s, values, i, s->values[to] + j * vs);
    }
    return shift;
}

/* Sorts the bucket [lo, lo + count) of slot `where` by bits [begin_bit, end_bit) into
   slot 0, with the worker's sorter. */
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
                                 vs ? s->values[0] + lo * vs : NULL);

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
    const unsigned next_end = partition(s, s->keys[where], vs ? s->values[where] : NULL, other, lo, count, end_bit,
                                        first, counts);
    clradix_status status = CLRADIX_SUCCESS;
    for (unsigned d = 0; d < PARTITION_RADIX && status == CLRADIX_SUCCESS; ++d)
        status = sort_bucket(w, other, first[d], counts[d], next_end);
    return status;
}

/* A worker: the first partition's buckets, one at a time, until none is left or one failed. */
static void *work(void *arg)
{
    worker *w = arg;
    large_sort *s = w->sort;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        const int more = s->status == CLRADIX_SUCCESS && s->taken < PARTITION_RADIX;
        const unsigned b = more ? s->order[s->taken++] : 0;
        pthread_mutex_unlock(&s->lock);
        if (!more || s->bucket_count[b] == 0)  /* largest first: the rest are empty too */
            return NULL;
        const clradix_status status = sort_bucket(w, 0, s->bucket_lo[b], s->bucket_count[b], s->bucket_end_bit);
        if (status != CLRADIX_SUCCESS) {
            pthread_mutex_lock(&s->lock);
            if (s->status == CLRADIX_SUCCESS)
                s->status = status;
            pthread_mutex_unlock(&s->lock);
        }
    }
}

/* Largest bucket first, so that the last ones to finish are small. */
static void order_buckets(large_sort *s)
{
    for (unsigned i = 0; i < PARTITION_RADIX; ++i) {
        unsigned j = i;
        for (; j > 0 && s->bucket_count[s->order[j - 1]] < s->bucket_count[i]; --j)
            s->order[j] = s->order[j - 1];
        s->order[j] = i;
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
        workers[i] = (worker){ s, sorters[i / WORKERS_PER_SORTER], NULL, 0, 0 };
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
    key_transform(r->type, r->descending, &s.pos_xor, &s.neg_xor);

    /* A device that cannot take the in-core sort of even one key: the limit is too small. */
    sort_request one = s.r;
    one.n = 1;
    one.keys_size = r->key_bytes;
    one.values_size = r->value_size;
    for (unsigned i = 0; i < num_sorters; ++i)
        if (!host_fits_in_core(sorters[i], &one))
            return CLRADIX_ERROR_OUT_OF_RESOURCES;
    if (pthread_mutex_init(&s.lock, NULL) != 0)
        return CLRADIX_ERROR_OUT_OF_RESOURCES;

    const size_t vs = r->value_size;
    s.keys[0] = malloc(r->keys_size);
    s.values[0] = vs ? malloc(r->values_size) : NULL;
    clradix_status status = s.keys[0] && (!vs || s.values[0]) ? CLRADIX_SUCCESS : CLRADIX_ERROR_OUT_OF_RESOURCES;
    if (status == CLRADIX_SUCCESS && r->begin_bit == r->end_bit) {  /* argsort of no bits: the identity */
        for (size_t i = 0; i < r->n; ++i)
            copy_value(&s, NULL, i, s.values[0] + i * vs);
    } else if (status == CLRADIX_SUCCESS) {
        s.bucket_end_bit = partition(&s, s.keys_in, s.values_in, 0, 0, r->n, r->end_bit, s.bucket_lo, s.bucket_count);
        order_buckets(&s);
        status = run_workers(&s, sorters, num_sorters, queue);
    }
    if (status == CLRADIX_SUCCESS) {  /* the caller's arrays change here, and only here */
        if (!r->argsort)
            memcpy(keys, s.keys[0], r->keys_size);
        if (vs)
            memcpy(values, s.values[0], r->values_size);
    }
    for (int slot = 0; slot < 2; ++slot) {
        free(s.keys[slot]);
        free(s.values[slot]);
    }
    pthread_mutex_destroy(&s.lock);
    return status;
}
