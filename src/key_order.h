/* The key order on the host: what the library's partition, its argument checks and
   clradix_mpi's splitter selection share with the kernels' digit_of. Header-only, so that
   clradix_mpi (a library of its own) uses the same definitions. */
#ifndef CLRADIX_KEY_ORDER_H
#define CLRADIX_KEY_ORDER_H

#include "clradix.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Bytes per key of type: 1, 2, 4 or 8; 0 for a value outside the enum. */
static inline unsigned key_type_bytes(clradix_key_type type)
{
    switch (type) {
    case CLRADIX_U8: case CLRADIX_I8: return 1;
    case CLRADIX_U16: case CLRADIX_I16: case CLRADIX_F16: case CLRADIX_BF16: return 2;
    case CLRADIX_U32: case CLRADIX_I32: case CLRADIX_F32: return 4;
    case CLRADIX_U64: case CLRADIX_I64: case CLRADIX_F64: return 8;
    }
    return 0;
}

/* XOR masks that map keys of type to their order-preserving unsigned image
   (key_image), descending included: signed keys flip the sign bit; floats flip every bit
   of negatives and the sign bit of the others. */
static inline void key_transform(clradix_key_type type, int descending, uint64_t *pos_xor, uint64_t *neg_xor)
{
    const unsigned width = 8 * key_type_bytes(type);
    const uint64_t all = ~(uint64_t)0 >> (64 - width), sign = (uint64_t)1 << (width - 1);
    *pos_xor = *neg_xor = 0;
    switch (type) {
    case CLRADIX_I8: case CLRADIX_I16: case CLRADIX_I32: case CLRADIX_I64:
        *pos_xor = *neg_xor = sign;
        break;
    case CLRADIX_F16: case CLRADIX_BF16: case CLRADIX_F32: case CLRADIX_F64:
        *pos_xor = sign;
        *neg_xor = all;
        break;
    default:
        break;
    }
    if (descending) {
        *pos_xor ^= all;
        *neg_xor ^= all;
    }
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

/* The image of a key of width bits: key ^ (its sign bit set ? neg_xor : pos_xor). */
static inline uint64_t key_image(uint64_t key, unsigned width, uint64_t pos_xor, uint64_t neg_xor)
{
    return key ^ ((key >> (width - 1)) & 1 ? neg_xor : pos_xor);
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
