/*
 * Records and gathers (src/records.c). A record's key fields make one unsigned composite
 * key, the first field at the top, each field as its order-preserving image; the host
 * sorts its 32- or 64-bit words, least significant first, each with the records'
 * positions. records_key writes one word of every record; the gathers move elements
 * by a list of positions. Built with KEY_BITS=64: the images are 64-bit integers.
 */

/* One field's part in one word of the composite key, PART_WORDS uints each (the layout
   of src/records.c's field_part): the field's byte offset in the record (low, high), its
   bytes, its image's shifts into the word (right first, then left), and its transform
   (key_order.h: pos_xor, neg_xor, nan_above, each low then high). */
#define PART_WORDS 12

/* The field's bytes (1, 2, 4 or 8, at any address) as the device reads an integer. */
ulong field_bits(__global const uchar *field, uint bytes)
{
    ulong bits = 0;
    for (uint b = 0; b < bytes; ++b)
#ifdef __ENDIAN_LITTLE__
        bits |= (ulong)field[b] << (8 * b);
#else
        bits = bits << 8 | field[b];
#endif
    return bits;
}

/* The image of a field's bits under its transform (key_image in key_order.h). */
ulong field_image(ulong key, uint bytes, ulong pos_xor, ulong neg_xor, ulong nan_above)
{
    const ulong sign = (ulong)1 << (8 * bytes - 1);
    if (nan_above) {
        const ulong magnitude = key & (sign - 1);
        key = magnitude > nan_above ? nan_above + 1 : magnitude ? key : 0;
    }
    return key ^ (key & sign ? neg_xor : pos_xor);
}

ulong part_ulong(__constant const uint *part, uint at)
{
    return (ulong)part[at] | (ulong)part[at + 1] << 32;
}

/* Index i of a list of 4- or 8-byte indices (in the device's byte order). */
ulong index_at(__global const uint *indices, uint index_size, ulong i)
{
    if (index_size == 4)
        return indices[i];
    return (ulong)indices[2 * i + INDEX_LOW_WORD] | (ulong)indices[2 * i + 1 - INDEX_LOW_WORD] << 32;
}

/*
 * words[i] = one word of the composite key of record order[i], from its num_parts parts.
 * first: the record is i itself, and order (unless NULL) receives i, so that the sort of
 * the least significant word starts from the identity. word_bytes 4 or 8; order_size 4 or 8.
 */
__kernel void records_key(__global const uchar *records, ulong record_size, __global uint *order, uint order_size,
                          uint first, __constant const uint *parts, uint num_parts, __global uint *words,
                          uint word_bytes, uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    ulong record = i;
    if (!first) {
        record = index_at(order, order_size, i);
    } else if (order && order_size == 4) {
        order[i] = i;
    } else if (order) {
        order[2 * (size_t)i + INDEX_LOW_WORD] = i;
        order[2 * (size_t)i + 1 - INDEX_LOW_WORD] = 0;
    }
    __global const uchar *base = records + record * record_size;
    ulong word = 0;
    for (uint p = 0; p < num_parts; ++p) {
        __constant const uint *part = parts + p * PART_WORDS;
        const uint bytes = part[2];
        const ulong image = field_image(field_bits(base + part_ulong(part, 0), bytes), bytes, part_ulong(part, 6),
                                        part_ulong(part, 8), part_ulong(part, 10));
        word |= image >> part[4] << part[3];
    }
    if (word_bytes == 4) {
        words[i] = (uint)word;
    } else {
        words[2 * (size_t)i + INDEX_LOW_WORD] = (uint)word;
        words[2 * (size_t)i + 1 - INDEX_LOW_WORD] = (uint)(word >> 32);
    }
}

/*
 * dst[i] = src[min(indices[i], src_n - 1)] for elements of `units` units of type each,
 * one unit per work-item: unit g of the launch is unit g % units of element g / units,
 * for g in [first, first + get_global_size(0)) below count (= n * units). The host picks
 * the widest unit that divides the element's bytes.
 */
#define GATHER_KERNEL(name, type)                                                                              \
    __kernel void name(__global const uint *indices, uint index_size, __global const type *src, ulong src_n, \
                       __global type *dst, ulong units, ulong first, ulong count)                             \
    {                                                                                                          \
        const ulong g = first + get_global_id(0);                                                            \
        if (g >= count)                                                                                        \
            return;                                                                                            \
        const ulong i = units == 1 ? g : g / units, unit = g - i * units;                                     \
        const ulong from = min(index_at(indices, index_size, i), src_n - 1);                                   \
        dst[g] = src[from * units + unit];                                                                     \
    }
GATHER_KERNEL(records_gather_1, uchar)
GATHER_KERNEL(records_gather_4, uint)
GATHER_KERNEL(records_gather_8, uint2)
GATHER_KERNEL(records_gather_16, uint4)
