/*
 * Host-array sorts larger than the device takes at once (its memory, its largest buffer,
 * the sorter's memory limit, or more keys than the kernels' 32-bit offsets hold). A
 * stable partition by the most significant digit of the sort's bit range, on the host,
 * puts the keys into buckets that come out in order; each bucket is then sorted by its
 * remaining bits in core, or partitioned again by its next digit while it is still too
 * large. A bucket with no bits left is already sorted. Everything happens in host copies
 * (slot 0, and slot 1 once a bucket is partitioned again); results gather in slot 0 and
 * reach the caller's arrays in one copy at the end, so a failure leaves them untouched.
 * Argsort sorts (key, index) pairs whose indices start as the keys' positions.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { PARTITION_BITS = 8, PARTITION_RADIX = 1 << PARTITION_BITS };

typedef struct large_sort {
    clradix_sorter *sorter;
    cl_command_queue queue;
    sort_request r;                 /* the whole sort; argsort as pairs with index values */
    cl_ulong pos_xor, neg_xor;      /* the keys' order-preserving image (key_transform) */
    const unsigned char *keys_in, *values_in;  /* the caller's arrays (values_in NULL: indices) */
    unsigned char *keys[2], *values[2];        /* host copies, slot 1 made when needed */
} large_sort;

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
    const unsigned width = s->r.key_bytes * 8;
    const uint64_t image = key ^ ((key >> (width - 1)) & 1 ? s->neg_xor : s->pos_xor);
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

static clradix_status partition(large_sort *s, const unsigned char *keys, const unsigned char *values, int to,
                                size_t lo, size_t count, unsigned end_bit);

/* Sorts the bucket [lo, lo + count) of slot `where` by bits [begin_bit, end_bit) into slot 0. */
static clradix_status sort_bucket(large_sort *s, int where, size_t lo, size_t count, unsigned end_bit)
{
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
    if (host_fits_in_core(s->sorter, &bucket))
        return host_sort_in_core(s->sorter, s->queue, &bucket, s->keys[where] + lo * kb,
                                 vs ? s->values[where] + lo * vs : NULL, s->keys[0] + lo * kb,
                                 vs ? s->values[0] + lo * vs : NULL);
    const int other = 1 - where;
    if (!s->keys[other]) {  /* slot 1, on the first bucket that must be split again */
        s->keys[other] = malloc(s->r.keys_size ? s->r.keys_size : 1);
        s->values[other] = vs ? malloc(s->r.values_size) : NULL;
        if (!s->keys[other] || (vs && !s->values[other]))
            return CLRADIX_ERROR_OUT_OF_RESOURCES;
    }
    return partition(s, s->keys[where], vs ? s->values[where] : NULL, other, lo, count, end_bit);
}

/* Stable partition of elements [lo, lo + count) of keys (and values) by the top digit of
   bits [begin_bit, end_bit) into slot `to`, then each bucket sorted. */
static clradix_status partition(large_sort *s, const unsigned char *keys, const unsigned char *values, int to,
                                size_t lo, size_t count, unsigned end_bit)
{
    const unsigned bits = end_bit - s->r.begin_bit < PARTITION_BITS ? end_bit - s->r.begin_bit : PARTITION_BITS;
    const unsigned shift = end_bit - bits, kb = s->r.key_bytes;
    const size_t vs = s->r.value_size;
    size_t counts[PARTITION_RADIX] = { 0 }, next[PARTITION_RADIX];
    for (size_t i = lo; i < lo + count; ++i)
        ++counts[digit_of(s, key_at(keys, kb, i), shift, bits)];
    size_t sum = lo;
    for (unsigned d = 0; d < PARTITION_RADIX; ++d) {
        next[d] = sum;
        sum += counts[d];
    }
    for (size_t i = lo; i < lo + count; ++i) {
        const size_t j = next[digit_of(s, key_at(keys, kb, i), shift, bits)]++;
        memcpy(s->keys[to] + j * kb, keys + i * kb, kb);
        if (vs)
            copy_value(s, values, i, s->values[to] + j * vs);
    }
    clradix_status status = CLRADIX_SUCCESS;
    for (unsigned d = 0; d < PARTITION_RADIX && status == CLRADIX_SUCCESS; ++d)
        status = sort_bucket(s, to, next[d] - counts[d], counts[d], shift);  /* next[d]: the bucket's end */
    return status;
}

clradix_status host_sort_out_of_core(clradix_sorter *sorter, cl_command_queue queue, sort_request *r, void *keys,
                                     void *values)
{
    large_sort s = { sorter, queue, *r, 0, 0, keys, r->argsort ? NULL : values, { NULL, NULL }, { NULL, NULL } };
    s.r.argsort = 0;  /* (key, index) pairs */
    key_transform(r->type, r->descending, &s.pos_xor, &s.neg_xor);

    /* A limit too small for the in-core sort of even the smallest bucket. */
    sort_request one = s.r;
    one.n = 1;
    one.keys_size = r->key_bytes;
    one.values_size = r->value_size;
    if (!host_fits_in_core(sorter, &one))
        return CLRADIX_ERROR_OUT_OF_RESOURCES;

    const size_t vs = r->value_size;
    s.keys[0] = malloc(r->keys_size);
    s.values[0] = vs ? malloc(r->values_size) : NULL;
    clradix_status status = s.keys[0] && (!vs || s.values[0]) ? CLRADIX_SUCCESS : CLRADIX_ERROR_OUT_OF_RESOURCES;
    if (status == CLRADIX_SUCCESS && r->begin_bit == r->end_bit) {  /* argsort of no bits: the identity */
        for (size_t i = 0; i < r->n; ++i)
            copy_value(&s, NULL, i, s.values[0] + i * vs);
    } else if (status == CLRADIX_SUCCESS) {
        status = partition(&s, s.keys_in, s.values_in, 0, 0, r->n, r->end_bit);
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
    return status;
}
