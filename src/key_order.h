/* The key order on the host: what the library's partition, its argument checks and
   clradix_mpi's splitter selection share with the kernels' digit_of. Header-only, so that
   clradix_mpi (a library of its own) uses the same definitions. */
#ifndef CLRADIX_KEY_ORDER_H
#define CLRADIX_KEY_ORDER_H

#include "clradix.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 128-bit key types, which records.c sorts as records of two 64-bit fields (key_type_bytes
   gives 0 for them: no narrow path takes them). */
static inline int key_type_wide(clradix_key_type type)
{
    return type == CLRADIX_U128 || type == CLRADIX_I128;
}

/* Bytes per key of type: 1, 2, 4 or 8; 0 for a value outside the enum and 128-bit keys. */
static inline unsigned key_type_bytes(clradix_key_type type)
{
    switch (type) {
    case CLRADIX_U8: case CLRADIX_I8: return 1;
    case CLRADIX_U16: case CLRADIX_I16: case CLRADIX_F16: case CLRADIX_BF16: case CLRADIX_F16_NUMPY:
    case CLRADIX_BF16_NUMPY: case CLRADIX_F16_NAN_LAST: case CLRADIX_BF16_NAN_LAST: return 2;
    case CLRADIX_U32: case CLRADIX_I32: case CLRADIX_F32: case CLRADIX_F32_NUMPY: case CLRADIX_F32_NAN_LAST:
        return 4;
    case CLRADIX_U64: case CLRADIX_I64: case CLRADIX_F64: case CLRADIX_F64_NUMPY: case CLRADIX_F64_NAN_LAST:
        return 8;
    case CLRADIX_U128: case CLRADIX_I128:
        return 0;
    }
    return 0;
}

/*
 * How keys of a type map to their order-preserving unsigned image (the kernels' image_of):
 * in numpy's float order the key is first read canonically (every NaN as the NaN just
 * above +inf, -0.0 as +0.0; nan_above is then the magnitude bits of +inf, else 0), then
 * XORed with neg_xor when its sign bit is set, else with pos_xor: signed keys flip the sign
 * bit; floats flip every bit of negatives and the sign bit of the others; descending
 * flips every bit as well. The _NAN_LAST types in descending order read every NaN as the
 * negative NaN just below -inf instead, so that the flip puts it last: nan_above then has
 * its sign bit set too (no magnitude can exceed it, so the flag costs kernels nothing).
 */
typedef struct key_transform {
    unsigned width;
    uint64_t pos_xor, neg_xor, nan_above;
    /* A record of 4 or 8 bytes read as one key (records.c, record_as_key): rotated left by
       `rotate` bits, its key fields make its composite key in its top bits, the rest below
       (a bit range leaves them out); pos_xor then flips what every key flips, neg_xor holds
       the sign bits of its float fields (all of float_bits bits, 0: none), a negative one
       flipping its other bits too. */
    int record;
    unsigned rotate, float_bits;
} key_transform;

static inline key_transform key_transform_of(clradix_key_type type, int descending)
{
    key_transform t = { .width = 8 * key_type_bytes(type) };
    const uint64_t all = ~(uint64_t)0 >> (64 - t.width), sign = (uint64_t)1 << (t.width - 1);
    switch (type) {
    case CLRADIX_I8: case CLRADIX_I16: case CLRADIX_I32: case CLRADIX_I64:
        t.pos_xor = t.neg_xor = sign;
        break;
    case CLRADIX_F16_NUMPY: case CLRADIX_F16_NAN_LAST: t.nan_above = 0x7C00u; goto float_keys;
    case CLRADIX_BF16_NUMPY: case CLRADIX_BF16_NAN_LAST: t.nan_above = 0x7F80u; goto float_keys;
    case CLRADIX_F32_NUMPY: case CLRADIX_F32_NAN_LAST: t.nan_above = 0x7F800000u; goto float_keys;
    case CLRADIX_F64_NUMPY: case CLRADIX_F64_NAN_LAST: t.nan_above = 0x7FF0000000000000ull; goto float_keys;
    case CLRADIX_F16: case CLRADIX_BF16: case CLRADIX_F32: case CLRADIX_F64:
    float_keys:
        t.pos_xor = sign;
        t.neg_xor = all;
        break;
    default:
        break;
    }
    if (descending) {
        t.pos_xor ^= all;
        t.neg_xor ^= all;
        if (type >= CLRADIX_F32_NAN_LAST && type <= CLRADIX_BF16_NAN_LAST)
            t.nan_above |= sign;
    }
    return t;
}

/* How far a record's float fields spread their signs (key_transform's record): the bits
   below each sign bit, 0 without float fields. */
static inline unsigned record_float_shift(const key_transform *t)
{
    return t->float_bits ? t->float_bits - 1 : 0;
}

/* The image of key under t (key_transform_of). */
static inline uint64_t key_image(uint64_t key, const key_transform *t)
{
    if (t->record) {
        const unsigned r = t->rotate;
        const uint64_t all = ~(uint64_t)0 >> (64 - t->width);
        const uint64_t composite = r ? ((key << r) | (key >> (t->width - r))) & all : key;
        const uint64_t signs = composite & t->neg_xor;
        return composite ^ t->pos_xor ^ (signs - (signs >> record_float_shift(t)));
    }
    const uint64_t sign = (uint64_t)1 << (t->width - 1);
    if (t->nan_above) {
        const uint64_t magnitude = key & (sign - 1), infinity = t->nan_above & (sign - 1);
        key = magnitude > infinity ? t->nan_above + 1 : magnitude ? key : 0;
    }
    return key ^ (key & sign ? t->neg_xor : t->pos_xor);
}

/* Key i of an array of keys of `bytes` bytes each (1, 2, 4 or 8), as a number. */
static inline uint64_t key_load(const void *keys, unsigned bytes, size_t i)
{
    const unsigned char *at = (const unsigned char *)keys + i * bytes;
    switch (bytes) {
    case 1: return *at;
    case 2: { uint16_t k; memcpy(&k, at, 2); return k; }
    case 4: { uint32_t k; memcpy(&k, at, 4); return k; }
    default: { uint64_t k; memcpy(&k, at, 8); return k; }
    }
}

/* Copies one key or value of 1, 2, 4, 8 or 16 bytes: constant sizes, which the compiler
   turns into a move or two (the partition's and the merge's inner loops). */
static inline void element_copy(void *to, const void *from, size_t bytes)
{
    switch (bytes) {
    case 1: memcpy(to, from, 1); break;
    case 2: memcpy(to, from, 2); break;
    case 4: memcpy(to, from, 4); break;
    case 8: memcpy(to, from, 8); break;
    default: memcpy(to, from, 16); break;
    }
}

/* The bit range of options for keys of width bits: end_bit 0 means the width, and then
   begin_bit <= end_bit <= width must hold (0 otherwise). */
static inline int bit_range(const clradix_options *options, unsigned width, unsigned *begin_bit, unsigned *end_bit)
{
    *begin_bit = options ? options->begin_bit : 0;
    *end_bit = options && options->end_bit ? options->end_bit : width;
    return *begin_bit <= *end_bit && *end_bit <= width;
}

#endif
