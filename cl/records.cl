/*
 * Records and gathers (src/records.c). A record's key fields make one unsigned composite
 * key, the first field at the top, each field as its order-preserving image; the host
 * sorts its 32- or 64-bit words, least significant first, each with the records'
 * positions (or alone, for records that are their key). records_key writes a field's part
 * of one word of every record, records_unkey a field back from the sorted words; the
 * gathers move elements by a list of positions. Built with KEY_BITS=64: the images are
 * 64-bit integers.
 */

/* The field's bytes (1, 2, 4 or 8) as the device reads an integer: aligned, as one load,
   else byte by byte. */
ulong field_bits(__global const uchar *field, uint bytes, uint aligned)
{
    if (aligned)
        return bytes == 4 ? *(__global const uint *)field
             : bytes == 8 ? *(__global const ulong *)field
             : bytes == 2 ? *(__global const ushort *)field : *field;
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
        key = magnitude > (nan_above & (sign - 1)) ? nan_above + 1 : magnitude ? key : 0;
    }
    return key ^ (key & sign ? neg_xor : pos_xor);
}

/* Word i of a list of 32- or 64-bit words, or indices of 4 or 8 bytes, in the device's byte
   order (64-bit ones as two uints: oclgrind takes a vector written at once for partly
   uninitialised), read and written. */
ulong word_at(__global const uint *words, uint word_bytes, ulong i)
{
    if (word_bytes == 4)
        return words[i];
    return (ulong)words[2 * i + INDEX_LOW_WORD] | (ulong)words[2 * i + 1 - INDEX_LOW_WORD] << 32;
}

void put_word(__global uint *words, uint word_bytes, ulong i, ulong word)
{
    if (word_bytes == 4) {
        words[i] = (uint)word;
    } else {
        words[2 * i + INDEX_LOW_WORD] = (uint)word;
        words[2 * i + 1 - INDEX_LOW_WORD] = (uint)(word >> 32);
    }
}

/*
 * One field's part in one word of the composite key of record order[i] (from_order; else
 * record i): its image (transform pos_xor, neg_xor, nan_above as in key_order.h) shifted
 * right by `right`, then left by `left`, into words[i], ORed with what is there when
 * accumulate (the host launches this once per field in the word: with the field list in a
 * loop, POCL ran it 2x slower, unvectorised). aligned: every record's field lies at a
 * multiple of its width. The first launch of the least significant word also writes
 * order[i] = i (unless order is NULL), so that its sort starts from the identity.
 */
__kernel void records_key(__global const uchar *records, ulong record_size, __global uint *order, uint order_size,
                          uint from_order, ulong offset, uint bytes, uint aligned, uint left, uint right,
                          ulong pos_xor, ulong neg_xor, ulong nan_above, uint accumulate, __global uint *words,
                          uint word_bytes, uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    ulong record = i;
    if (from_order)
        record = word_at(order, order_size, i);
    else if (order && !accumulate)
        put_word(order, order_size, i, i);
    const ulong part = field_image(field_bits(records + record * record_size + offset, bytes, aligned), bytes,
                                   pos_xor, neg_xor, nan_above) >> right << left;
    put_word(words, word_bytes, i, accumulate ? word_at(words, word_bytes, i) | part : part);
}

/*
 * Records whose fields tile them (every byte in one field; no numpy-order float, whose
 * image forgets a NaN's bits), after their composite keys were sorted in place of them:
 * one field of record i written back from its image, the composite's bits [low, low +
 * 8 * bytes) in one or two 64-bit words (words_1: the more significant, or NULL) or one
 * 32-bit word. One launch per field, as records_key.
 */
__kernel void records_unkey(__global uchar *records, ulong record_size, ulong offset, uint bytes, uint aligned,
                            uint low, ulong pos_xor, ulong neg_xor, __global const uint *words_0,
                            __global const uint *words_1, uint word_bytes, uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const uint shift = low % 64;
    ulong image = word_at(low < 64 ? words_0 : words_1, word_bytes, i) >> shift;
    if (shift + 8 * bytes > 64)
        image |= word_at(words_1, word_bytes, i) << (64 - shift);
    const ulong sign = (ulong)1 << (8 * bytes - 1);
    image &= sign | (sign - 1);
    ulong key = image ^ pos_xor;  /* the key as a positive one, unless its sign says it was not */
    if (key & sign)
        key = image ^ neg_xor;
    __global uchar *to = records + (ulong)i * record_size + offset;
    if (aligned && bytes == 4) {
        *(__global uint *)to = (uint)key;
    } else if (aligned && bytes == 8) {
        *(__global ulong *)to = key;
    } else if (aligned && bytes == 2) {
        *(__global ushort *)to = (ushort)key;
    } else {
        for (uint b = 0; b < bytes; ++b)
#ifdef __ENDIAN_LITTLE__
            to[b] = (uchar)(key >> (8 * b));
#else
            to[b] = (uchar)(key >> (8 * (bytes - 1 - b)));
#endif
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
        const ulong from = min(word_at(indices, index_size, i), src_n - 1);                                     \
        dst[g] = src[from * units + unit];                                                                     \
    }
GATHER_KERNEL(records_gather_1, uchar)
GATHER_KERNEL(records_gather_4, uint)
GATHER_KERNEL(records_gather_8, uint2)
GATHER_KERNEL(records_gather_16, uint4)
