/* The key order on the host: what the library's partition, its argument checks and
   clradix_mpi's splitter selection share with the kernels' digit_of. Header-only, so that
   clradix_mpi (a library of its own) uses the same definitions. */
#ifndef CLRADIX_KEY_ORDER_H
#define CLRADIX_KEY_ORDER_H

#include "clradix.h"

#include <stdint.h>

/* XOR masks that map keys of type to their order-preserving unsigned image
   (key_image), descending included. */
static inline void key_transform(clradix_key_type type, int descending, uint64_t *pos_xor, uint64_t *neg_xor)
{
    const int wide = type == CLRADIX_U64 || type == CLRADIX_I64 || type == CLRADIX_F64;
    const uint64_t all = wide ? ~(uint64_t)0 : 0xFFFFFFFFu, sign = wide ? (uint64_t)1 << 63 : 0x80000000u;
    *pos_xor = *neg_xor = 0;
    if (type == CLRADIX_I32 || type == CLRADIX_I64)
        *pos_xor = *neg_xor = sign;
    else if (type == CLRADIX_F32 || type == CLRADIX_F64) {
        *pos_xor = sign;
        *neg_xor = all;
    }
    if (descending) {
        *pos_xor ^= all;
        *neg_xor ^= all;
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
