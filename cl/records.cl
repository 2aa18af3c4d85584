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

/* Composites of several words (below): runs of up to SHORT_RUN records are sorted at once,
   blocks of RUN_BLOCK records taken per work-item. counts holds a number per block, then
   the long runs in all (counts[blocks]) and the records that continue a run of the words so
   far (counts[blocks + 1]): where none does, no later word has anything to sort, and the
   kernels of the later words return at once. counts[blocks + 2]: the lowest word so far
   that varies within a run (records_key_runs'); the runs of a word that varies in none
   stay as they were, and its sort has no segment (a u64 field of few values: its low half). */
#define SHORT_RUN 16
#define RUN_BLOCK 4096

uint run_blocks(uint n)
{
    return (n + RUN_BLOCK - 1) / RUN_BLOCK;
}

uint continuing(__global const uint *counts, uint n)
{
    return counts[run_blocks(n) + 1];
}

/* Whether word `word` varies within a run (after its records_key_runs). */
uint word_varies(__global const uint *counts, uint n, uint word)
{
    return counts[run_blocks(n) + 2] == word;
}

/* The top word of a composite of several words tells records apart by the bits that vary,
   not by constant ones: where the first field takes few values (at most DICT_MAX, in a
   sample of DICT_SAMPLE records) whose ranks take fewer bits than the field's that vary,
   it holds the value's rank in their sorted list over the next field's top bits
   (records_dict, records_dict_key, records_dict_use); else it is cut below the bits that
   are the same in every record, where there are at least LEAD_MIN of them (small values in
   wide fields). A value's rank is found in a table by a slice of its image, of
   DICT_SLICE_MAX bits at most, in which the values all differ (a binary search cost POCL
   10 ns a record in branches it mispredicted). The later words stay whole: runs of records
   equal in the top word are sorted by them. Past the run counts (counts[blocks + 3] on): */
#define LEAD_AT 3         /* the composite's bits up to the highest that varies (records_lead) */
#define DICT_SIZE_AT 4    /* the first field's values in the sample (0: too many, or none taken) */
#define DICT_MISS_AT 5    /* a record's first field is not among them */
#define DICT_WIDTH_AT 6   /* the first field's bits */
#define DICT_SHIFT_AT 7   /* the slice: the image shifted right by this */
#define DICT_SLICE_AT 8   /* and this many bits of it */
#define DICT_AT 40        /* the values' images in order, two uints each (a cache line or more
                             past the miss, which records_dict_key writes while others read) */
#define DICT_TABLE_AT (DICT_AT + 2 * DICT_MAX)  /* a slice's rank, or NO_RANK */
#define DICT_MAX 64u
#define DICT_SLICE_MAX 12u
#define DICT_SAMPLE 4096u
#define NO_RANK 0xffffffffu
#define LEAD_MIN 8
#define LEAD_CHUNK 64u  /* records between looks at a count */

/* The bits of the ranks of a dictionary of `size` values. */
uint rank_bits(uint size)
{
    return size > 1 ? 32 - clz(size - 1) : 0;
}

/* Whether a dictionary was found (at: the counts past the runs') whose ranks take fewer bits
   than the first field's up to its highest that varies. */
int dict_pays(__global const uint *at, uint total_bits)
{
    const uint size = at[DICT_SIZE_AT], low = total_bits - at[DICT_WIDTH_AT];
    return size && rank_bits(size) < at[LEAD_AT] - min(at[LEAD_AT], low);
}

/* Whether the top word holds ranks: such a dictionary, which every record's first field is
   in. */
int dict_used(__global const uint *counts, uint n, uint total_bits)
{
    __global const uint *at = counts + run_blocks(n);
    return dict_pays(at, total_bits) && !at[DICT_MISS_AT];
}

/* The records [*begin, *end) of this work-item's block, of about n / work-items. */
void work_item_block(uint n, uint *begin, uint *end)
{
    const uint per = (n + (uint)get_global_size(0) - 1) / (uint)get_global_size(0);
    *begin = min((uint)get_global_id(0) * per, n);
    *end = min(*begin + per, n);
}

/* The bits dropped from the composite's top for its top word (0 where ranks make it). */
uint dropped_bits(__global const uint *counts, uint n, uint total_bits)
{
    const uint varying = max(counts[run_blocks(n) + LEAD_AT], 1u);  /* all records equal: the lowest bit */
    return total_bits - varying >= LEAD_MIN && !dict_used(counts, n, total_bits) ? total_bits - varying : 0;
}

/* A field's part in the word of grid bits [base, base + 32) with the composite moved up by
   `dropped` bits (grid_low: the field's lowest bit with none dropped; the bits moved past
   the top fall off the word): 0 where the field has no bit there; *first: the field holds
   the word's top bit (its first writer; the fields below it OR theirs in). */
int shifted_part(uint grid_low, uint width, uint base, uint dropped, uint *right, uint *left, uint *first)
{
    const uint low = grid_low + dropped;
    if (low >= base + 32 || low + width <= base)
        return 0;
    *right = base - min(low, base);  /* (oclgrind 21.10 runs no llvm.usub.sat, which `low < base ?
                                        base - low : 0` compiles to) */
    *left = low - min(low, base);
    *first = low + width >= base + 32;
    return 1;
}

/* Whether records i .. i + 7 each start a run (their heads set). */
int eight_heads(__global const uchar *heads, uint i)
{
    return all(vload8(0, heads + i) != (uchar8)0);
}

/* Whether records i .. i + 7 are each alone in their run (heads of i .. i + 8 set; i a
   multiple of 8): the scans of heads step over most records of random keys 8 at a time (3x
   faster on POCL), and try only at every eighth record (in long runs the tries cost 1.8x). */
int eight_alone(__global const uchar *heads, uint i, uint n)
{
    return (i & 7) == 0 && i + 8 < n && eight_heads(heads, i) && heads[i + 8];
}

/* Whether a field is read by whole_field_image: a whole aligned integer field (4 or 8
   bytes, no numpy-order float) of records in place (not through order). */
int whole_field(uint from_order, uint aligned, uint bytes, ulong nan_above)
{
    return !from_order && aligned && (bytes == 4 || bytes == 8) && !nan_above;
}

/* The image of a whole aligned integer field (4 or 8 bytes) of record i: the common case,
   on its own (POCL ran the general path below 1.5-2x slower). */
ulong whole_field_image(__global const uchar *records, ulong record_size, uint i, ulong offset, uint bytes,
                        ulong pos_xor, ulong neg_xor)
{
    __global const uchar *field = records + (ulong)i * record_size + offset;
    const ulong key = bytes == 4 ? (ulong)*(__global const uint *)field : *(__global const ulong *)field;
    return key ^ (key >> (8 * bytes - 1) ? neg_xor : pos_xor);
}

/* words[i] = part, or ORed into it (accumulate), as a word of word_bytes. */
void store_part(__global uint *words, uint word_bytes, uint i, ulong part, uint accumulate)
{
    if (word_bytes == 4) {
        words[i] = accumulate ? words[i] | (uint)part : (uint)part;
    } else {
        __global ulong *wide = (__global ulong *)words;
        wide[i] = accumulate ? wide[i] | part : part;
    }
}

/* The image of a field of record order[i] (from_order), else of record i (transform pos_xor,
   neg_xor, nan_above as in key_order.h). */
ulong record_field_image(__global const uchar *records, ulong record_size, __global const uint *order,
                         uint order_size, uint from_order, uint i, ulong offset, uint bytes, uint aligned,
                         ulong pos_xor, ulong neg_xor, ulong nan_above)
{
    const ulong record = from_order ? word_at(order, order_size, i) : i;
    return field_image(field_bits(records + record * record_size + offset, bytes, aligned), bytes, pos_xor, neg_xor,
                       nan_above);
}

/*
 * One field's part in one word of the composite key of record order[i] (from_order; else
 * record i): its image shifted right by `right`, then left by `left`, into words[i], ORed
 * with what is there when accumulate (the host launches this once per field in the word:
 * with the field list in a loop, POCL ran it 2x slower, unvectorised). aligned: every
 * record's field lies at a multiple of its width. The first launch of the least significant
 * word also writes order[i] = i (unless order is NULL), so that its sort starts from the
 * identity.
 */
__kernel void records_key(__global const uchar *records, ulong record_size, __global uint *order, uint order_size,
                          uint from_order, ulong offset, uint bytes, uint aligned, ulong pos_xor, ulong neg_xor,
                          ulong nan_above, uint left, uint right, uint accumulate, __global uint *words,
                          uint word_bytes, uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    if (whole_field(from_order, aligned, bytes, nan_above)) {
        if (order && !accumulate)
            put_word(order, order_size, i, i);
        const ulong image = whole_field_image(records, record_size, i, offset, bytes, pos_xor, neg_xor);
        store_part(words, word_bytes, i, image >> right << left, accumulate);
        return;
    }
    if (order && !from_order && !accumulate)
        put_word(order, order_size, i, i);
    const ulong image = record_field_image(records, record_size, order, order_size, from_order, i, offset, bytes,
                                           aligned, pos_xor, neg_xor, nan_above);
    store_part(words, word_bytes, i, image >> right << left, accumulate);
}

/*
 * records_key for a word below the first of several (order as there, never written): only
 * the records of runs of the words so far (heads and counts: records_heads'), each
 * work-item taking as many records one after another (the host launches far fewer than n:
 * POCL spent 4 ms on 2^24 work-items that had nothing to do, and 3x longer with a record
 * every get_global_size(0)); none where no record continues a run. A record alone in its
 * run keeps its word: records_run_offsets makes it 0 where a segment may hold it. Where a
 * record's part differs from the one before it in its run, counts[blocks + 2] becomes at
 * most `word` (word_varies). Parts are compared whole: their bits above the word are the
 * field's in the words above, the same within a run (masking them cost POCL 1.5x).
 * Without heads (the top word, records in place): where records_lead found bits to drop,
 * every record's part of the top word made again as shifted_part places it, over what
 * records_key made with none dropped; else nothing (one launch per field, each returning
 * at once where none are dropped: records_key itself ran 2x slower on POCL where it read
 * the count).
 */
__kernel void records_key_runs(__global const uchar *records, ulong record_size, __global const uint *order,
                               uint order_size, uint from_order, ulong offset, uint bytes, uint aligned,
                               ulong pos_xor, ulong neg_xor, ulong nan_above, uint left, uint right, uint accumulate,
                               __global uint *words, uint word_bytes, uint n, __global const uchar *heads,
                               __global uint *counts, uint word, uint grid_low, uint word_base, uint total_bits)
{
    if (heads && !continuing(counts, n))
        return;
    if (!heads) {
        const uint dropped = dropped_bits(counts, n, total_bits);
        uint first;
        if (!dropped || !shifted_part(grid_low, 8 * bytes, word_base, dropped, &right, &left, &first))
            return;
        accumulate = !first;
    }
    const int whole = whole_field(from_order, aligned, bytes, nan_above);
#define RECORD_PART(i)                                                                                         \
    ((whole ? whole_field_image(records, record_size, i, offset, bytes, pos_xor, neg_xor)                        \
            : record_field_image(records, record_size, order, order_size, from_order, i, offset, bytes, aligned, \
                                 pos_xor, neg_xor, nan_above)) >> right << left)
    /* a multiple of 8 records per work-item, 8 at a time */
    const uint per = ((n + get_global_size(0) - 1) / get_global_size(0) + 7) & ~7u, begin = get_global_id(0) * per;
    const uint end = min(begin + per, n);
    /* before: the part of the record before the next one made (of its run where that one
       continues it), until a difference is found */
    if (!heads) {
        for (uint i = begin; i < end; ++i)
            store_part(words, word_bytes, i, RECORD_PART(i), accumulate);
        return;
    }
    ulong before = begin < n && !heads[begin] ? RECORD_PART(begin - 1) : 0;
    uint varies = 0;
    for (uint eight = begin; eight < end; eight += 8) {
        if (eight_alone(heads, eight, n))
            continue;
        for (uint i = eight; i < min(eight + 8, end); ++i) {
            if (heads[i] && (i + 1 == n || heads[i + 1]))
                continue;
            const ulong part = RECORD_PART(i);
            store_part(words, word_bytes, i, part, accumulate);
            if (!varies) {  /* (then no more tests) */
                varies = !heads[i] && part != before;
                before = part;
            }
        }
    }
#undef RECORD_PART
    if (varies)
        atomic_min(counts + run_blocks(n) + 2, word);
}

/* The image of a field of record i, records in place; whole: whole_field's, which the
   callers take once (POCL left it in their loops, 1.3-1.8x slower). */
ulong own_field_image(__global const uchar *records, ulong record_size, uint i, int whole, ulong offset, uint bytes,
                      uint aligned, ulong pos_xor, ulong neg_xor, ulong nan_above)
{
    return whole ? whole_field_image(records, record_size, i, offset, bytes, pos_xor, neg_xor)
                 : record_field_image(records, record_size, 0, 4, 0, i, offset, bytes, aligned, pos_xor, neg_xor,
                                      nan_above);
}

#define FIRST_FIELD(i) \
    own_field_image(records, record_size, i, whole, offset, bytes, aligned, pos_xor, neg_xor, nan_above)

/*
 * The composite's bits up to the highest that varies between records, for the top word's
 * cut (dropped_bits), one launch per field from the most significant (records in place):
 * counts[blocks + LEAD_AT] (0 before: records_dict) becomes at least `low` (the field's lowest
 * bit in the composite) + the field's bits up to its highest that differs from record 0's.
 * A work-item takes a block of records and stops once the count can no longer matter: a
 * field above varies, or fewer than LEAD_MIN bits could be dropped (random keys: at once).
 */
__kernel void records_lead(__global const uchar *records, ulong record_size, ulong offset, uint bytes,
                           uint aligned, ulong pos_xor, ulong neg_xor, ulong nan_above, uint low, uint total_bits,
                           uint n, __global uint *counts)
{
    __global uint *varying = counts + run_blocks(n) + LEAD_AT;
    const uint enough = min(low + 8 * bytes, total_bits - LEAD_MIN + 1);
    uint begin, end;
    work_item_block(n, &begin, &end);
    if (begin == end || atomic_or(varying, 0) >= enough)  /* (atomic reads: others write it) */
        return;
    const int whole = whole_field(0, aligned, bytes, nan_above);
    const ulong first = FIRST_FIELD(0);
    for (uint chunk = begin; chunk < end; chunk += LEAD_CHUNK) {
        ulong differ = 0;
        for (uint i = chunk; i < min(chunk + LEAD_CHUNK, end); ++i)
            differ |= first ^ FIRST_FIELD(i);
        const uint top = differ ? low + 64 - (uint)clz(differ) : 0;
        if (max(atomic_max(varying, top), top) >= enough)
            return;
    }
}

ulong dict_value(__global const uint *at, uint k)
{
    return (ulong)at[DICT_AT + 2 * k] | (ulong)at[DICT_AT + 2 * k + 1] << 32;
}

/*
 * One work-item, first of the top word's kernels: the counts past the runs' made 0, and
 * the sorted distinct images of the first field (offset ... nan_above) in DICT_SAMPLE
 * records spread over all (where `take`), kept where there are at most DICT_MAX of them.
 */
__kernel void records_dict(__global const uchar *records, ulong record_size, ulong offset, uint bytes, uint aligned,
                           ulong pos_xor, ulong neg_xor, ulong nan_above, uint n, uint take, __global uint *counts)
{
    __global uint *at = counts + run_blocks(n);
    at[LEAD_AT] = 0;
    at[DICT_MISS_AT] = 0;
    at[DICT_WIDTH_AT] = 8 * bytes;
    ulong values[DICT_MAX];
    uint size = 0;
    const int whole = whole_field(0, aligned, bytes, nan_above);
    const uint sample = take ? min(n, DICT_SAMPLE) : 0;
    for (uint s = 0; s < sample && size <= DICT_MAX; ++s) {
        const ulong image = FIRST_FIELD((uint)((ulong)s * n / sample));
        uint below = 0, above = size;  /* where it is or goes */
        while (below < above) {
            const uint middle = (below + above) / 2;
            if (values[middle] < image)
                below = middle + 1;
            else
                above = middle;
        }
        if (below < size && values[below] == image)
            continue;
        if (size == DICT_MAX) {
            size = DICT_MAX + 1;  /* too many */
            break;
        }
        for (uint k = size; k > below; --k)
            values[k] = values[k - 1];
        values[below] = image;
        ++size;
    }
    /* the narrowest slice, lowest first, in which the values all differ */
    uint shift = 0, slice = max(rank_bits(size), 1u), found = 0;
    for (; size && size <= DICT_MAX && !found && slice <= min(DICT_SLICE_MAX, 8 * bytes); ++slice)
        for (shift = 0; !found && shift + slice <= 8 * bytes; ++shift) {
            uint seen[(1u << DICT_SLICE_MAX) / 32];
            for (uint w = 0; w < (1u << slice) / 32 + 1 && w < (1u << DICT_SLICE_MAX) / 32; ++w)
                seen[w] = 0;
            found = 1;
            for (uint k = 0; found && k < size; ++k) {
                const uint cell = (uint)(values[k] >> shift) & ((1u << slice) - 1);
                found = !(seen[cell / 32] >> (cell % 32) & 1);
                seen[cell / 32] |= 1u << (cell % 32);
            }
        }
    size = found ? size : 0;
    at[DICT_SIZE_AT] = size;
    if (!size)
        return;
    --shift;  /* (the loops stepped past the slice found) */
    --slice;
    at[DICT_SHIFT_AT] = shift;
    at[DICT_SLICE_AT] = slice;
    for (uint cell = 0; cell < 1u << slice; ++cell)
        at[DICT_TABLE_AT + cell] = NO_RANK;
    for (uint k = 0; k < size; ++k) {
        at[DICT_AT + 2 * k] = (uint)values[k];
        at[DICT_AT + 2 * k + 1] = (uint)(values[k] >> 32);
        at[DICT_TABLE_AT + ((uint)(values[k] >> shift) & ((1u << slice) - 1))] = k;
    }
}

/*
 * After records_lead: where the dictionary's ranks take fewer bits than the first field's
 * that vary, each record's top word into ranked: the rank of its first field's image over
 * the top bits of its second field's (offset_2 ... nan_above_2), a block of records per
 * work-item. A record whose first field is not in the dictionary marks the miss; work-items
 * that start after it return at once.
 */
__kernel void records_dict_key(__global const uchar *records, ulong record_size, ulong offset, uint bytes,
                               uint aligned, ulong pos_xor, ulong neg_xor, ulong nan_above, ulong offset_2,
                               uint bytes_2, uint aligned_2, ulong pos_xor_2, ulong neg_xor_2, ulong nan_above_2,
                               uint n, uint total_bits, __global uint *counts, __global uint *ranked)
{
    __global uint *at = counts + run_blocks(n);
    if (!dict_pays(at, total_bits))  /* (the miss is this kernel's to find) */
        return;
    const uint ranks = rank_bits(at[DICT_SIZE_AT]), bits = 32 - ranks, width = 8 * bytes_2;
    const uint shift = at[DICT_SHIFT_AT], mask = (1u << at[DICT_SLICE_AT]) - 1;
    const int whole = whole_field(0, aligned, bytes, nan_above);
    const int whole_2 = whole_field(0, aligned_2, bytes_2, nan_above_2);
    uint begin, end;
    work_item_block(n, &begin, &end);
    for (uint i = begin; i < end; ++i) {
        const ulong image = FIRST_FIELD(i);
        const uint rank = at[DICT_TABLE_AT + ((uint)(image >> shift) & mask)];
        if (rank == NO_RANK || dict_value(at, rank) != image) {
            atomic_or(at + DICT_MISS_AT, 1);
            return;
        }
        const ulong next = own_field_image(records, record_size, i, whole_2, offset_2, bytes_2, aligned_2, pos_xor_2,
                                           neg_xor_2, nan_above_2);
        const uint part = (uint)(width >= bits ? next >> (width - bits) : next << (bits - width));
        ranked[i] = ranks ? rank << bits | part : part;
    }
}

/* Where the top word holds ranks (dict_used), records_dict_key's words in place of
   records_key's; a block of records per work-item. */
__kernel void records_dict_use(__global uint *words, __global const uint *ranked, __global const uint *counts,
                               uint n, uint total_bits)
{
    if (!dict_used(counts, n, total_bits))
        return;
    uint begin, end;
    work_item_block(n, &begin, &end);
    for (uint i = begin; i < end; ++i)
        words[i] = ranked[i];
}
#undef FIRST_FIELD

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
 * dst[i] = src[min(indices[i], src_n - 1)] for elements of `units` units of type each, an
 * element per work-item: i = first + get_global_id(0), below count (= n). The host picks
 * the widest unit that divides the element's bytes: elements of one unit (4 to 32 bytes)
 * take one move (32-byte records, gathered as two 16-byte units, took 3x longer on POCL
 * than as one, records_gather_32), others a loop over their units (a unit per work-item
 * cost a 64-bit division each: 24-byte records took POCL 2.5x longer).
 */
#define GATHER_KERNEL(name, type)                                                                              \
    __kernel void name(__global const uint *indices, uint index_size, __global const type *src, ulong src_n, \
                       __global type *dst, ulong units, ulong first, ulong count)                             \
    {                                                                                                          \
        const ulong i = first + get_global_id(0);                                                            \
        if (i >= count)                                                                                        \
            return;                                                                                            \
        const ulong from = min(word_at(indices, index_size, i), src_n - 1);                                     \
        if (units == 1) {                                                                                      \
            dst[i] = src[from];                                                                                \
            return;                                                                                            \
        }                                                                                                      \
        for (ulong unit = 0; unit < units; ++unit)                                                             \
            dst[i * units + unit] = src[from * units + unit];                                                  \
    }
GATHER_KERNEL(records_gather_1, uchar)
GATHER_KERNEL(records_gather_4, uint)
GATHER_KERNEL(records_gather_8, uint2)
GATHER_KERNEL(records_gather_16, uint4)

/* The same in units of 32 bytes, read and written as vectors of uints (uint8 elements would
   assume 32-byte alignment, which an array of the host's need not have). */
__kernel void records_gather_32(__global const uint *indices, uint index_size, __global const uint *src, ulong src_n,
                                __global uint *dst, ulong units, ulong first, ulong count)
{
    const ulong i = first + get_global_id(0);
    if (i >= count)
        return;
    const ulong from = min(word_at(indices, index_size, i), src_n - 1);
    if (units == 1) {  /* (the loop alone cost POCL a fifth more for 32-byte records) */
        vstore8(vload8(from, src), i, dst);
        return;
    }
    for (ulong unit = 0; unit < units; ++unit)
        vstore8(vload8(from * units + unit, src), i * units + unit, dst);
}

/*
 * Composites of several words, most significant word first (src/records.c): after the
 * records are sorted by the words so far, runs of records equal in all of them are sorted
 * by the next word, and only those. heads marks where a run starts; a run of up to
 * SHORT_RUN records is sorted at once by records_runs, longer ones by the segmented sort
 * of the words, one segment per long run that also holds the records since the previous
 * long run, whose words are 0 so that they stay in place (the sort is stable):
 * records_runs makes those of short runs 0, records_run_offsets those of records alone in
 * their run. These kernels take blocks of RUN_BLOCK records per work-item in plain loops:
 * one record per work-item cost POCL 4-5x more. The words are 32 bits (src/records.c cuts
 * composites sorted this way into words of 32 bits).
 */
/* Whether each of the records i .. i + 7 (i > 0) has a word other than the one before it,
   as 1 or 0. */
uchar8 eight_changes(__global const uint *words, uint i)
{
    return convert_uchar8(-(vload8(0, words + i) != vload8(0, words + i - 1)));  /* (-1 where they differ) */
}

/* heads[i]: record i starts a run: it did before (unless first), or its word differs from
   record i - 1's; counts[b]: the records of block b that do not (after the first word, none
   where none continued a run before). Eight records at a time (2x faster on POCL than one
   by one), every word read: all are written by then (the first word's records_key writes
   them all). Where the word varies in no run (word_varies), the heads
   stay and are only counted. The first word's also marks no word varying yet. */
__kernel void records_heads(__global uchar *heads, __global const uint *words, uint first, uint n,
                            __global uint *counts, uint word)
{
    const uint b = get_global_id(0), begin = b * RUN_BLOCK;
    if (first && b == 0)
        counts[run_blocks(n) + 2] = UINT_MAX;
    if (begin >= n)
        return;
    uint count = 0;
    const uint end = min(begin + RUN_BLOCK, n);  /* (RUN_BLOCK: a multiple of 8) */
    const int mark = first || (continuing(counts, n) && word_varies(counts, n, word));
    for (uint eight = begin; eight < end && (first || continuing(counts, n)); eight += 8) {
        if (eight == 0 || eight + 8 > end) {
            for (uint i = eight; i < min(eight + 8, end); ++i) {
                if (mark && (first || !heads[i]))
                    heads[i] = i == 0 || words[i] != words[i - 1];
                count += !heads[i];
            }
        } else if (first || !eight_heads(heads, eight)) {
            uchar8 starts = first ? (uchar8)0 : vload8(0, heads + eight);
            if (mark) {
                starts |= eight_changes(words, eight);
                vstore8(starts, 0, heads + eight);
            }
            count += 8 - (starts.s0 + starts.s1 + starts.s2 + starts.s3 + starts.s4 + starts.s5 + starts.s6 + starts.s7);
        }
    }
    counts[b] = count;
}

/* The length of the run that record i starts (heads[i] set), up to SHORT_RUN + 1. */
uint run_length(__global const uchar *heads, uint i, uint n)
{
    uint length = 1;
    while (length <= SHORT_RUN && i + length < n && !heads[i + length])
        ++length;
    return length;
}

/* The run [i, i + length) of at most SHORT_RUN records sorted by words (an insertion sort:
   stable), its values (value_words uints each) moving along; its heads where the word
   changes, then its words 0, no end of a long run in it. */
void sort_short_run(__global uint *words, __global uint *values, uint value_words, __global uchar *heads_out,
                    __global uchar *ends, uint i, uint length)
{
    uint key[SHORT_RUN], from[SHORT_RUN];
    for (uint k = 0; k < length; ++k) {
        const uint word = words[i + k];
        uint at = k;
        for (; at > 0 && key[at - 1] > word; --at) {
            key[at] = key[at - 1];
            from[at] = from[at - 1];
        }
        key[at] = word;
        from[at] = k;
    }
    uint moved[4 * SHORT_RUN];  /* values of up to 16 bytes */
    for (uint k = 0; k < length; ++k)
        for (uint u = 0; u < value_words; ++u)
            moved[k * value_words + u] = values[(ulong)(i + from[k]) * value_words + u];
    for (uint k = 0; k < length; ++k) {
        words[i + k] = 0;
        for (uint u = 0; u < value_words; ++u)
            values[(ulong)(i + k) * value_words + u] = moved[k * value_words + u];
        heads_out[i + k] = k == 0 || key[k] != key[k - 1];
        ends[i + k] = 0;
    }
}

/* Whether records i + 1 .. i + 8 each continue a run (their heads clear). */
int eight_continue(__global const uchar *heads, uint i)
{
    return !any(vload8(0, heads + i + 1) != (uchar8)0);
}

/* Records of a long run from *i (which is one) to the run's end or `last`: heads_out from
   heads_in, ends where the next record starts a run (or there is none), eight at a time
   where none ends (2x faster on POCL). Returns how many end it; *i is past them. */
uint long_run_records(__global const uchar *heads_in, __global uchar *heads_out, __global uchar *ends, uint *i,
                      uint last, uint n)
{
    uint count = 0, at = *i;
    do {
        if (at + 9 <= last && eight_continue(heads_in, at)) {
            vstore8(vload8(0, heads_in + at), 0, heads_out + at);
            vstore8((uchar8)0, 0, ends + at);
            at += 8;
        } else {
            const uint end = at + 1 == n || heads_in[at + 1];
            heads_out[at] = heads_in[at];
            ends[at++] = end;
            count += end;
        }
    } while (at < last && !heads_in[at]);
    *i = at;
    return count;
}

/*
 * One block of records of word `word`: each run that starts in it sorted at once where it
 * is short (records past the block included), its records' ends noted where it is long
 * (those in the block), and the records at the block's start that continue a run begun
 * before: the ends of a long one (a short one is its first block's). counts[b]: the long
 * runs that end in the block.
 */
__kernel void records_runs(__global const uchar *heads_in, __global uchar *heads_out, __global uchar *ends,
                           __global uint *words, __global uint *values, uint value_words,
                           __global uint *counts, uint n, uint word)
{
    const uint b = get_global_id(0), begin = b * RUN_BLOCK;
    if (begin >= n)
        return;
    if (!continuing(counts, n)) {
        counts[b] = 0;
        return;
    }
    const uint last = min(begin + RUN_BLOCK, n);
    if (!word_varies(counts, n, word)) {  /* the runs stay, none to sort */
        for (uint i = begin; i < last; ++i)
            heads_out[i] = heads_in[i];
        counts[b] = 0;
        return;
    }
    uint count = 0, i = begin;
    if (!heads_in[begin]) {
        uint start = begin, back = 0;  /* heads_in[0] is set */
        while (!heads_in[start] && back < SHORT_RUN) {
            --start;
            ++back;
        }
        if (!heads_in[start] || run_length(heads_in, start, n) > SHORT_RUN)
            count += long_run_records(heads_in, heads_out, ends, &i, last, n);
        else
            while (i < last && !heads_in[i])
                ++i;
    }
    while (i < last) {  /* a run starts at i */
        if (i + 8 <= last && eight_alone(heads_in, i, n)) {
            vstore8((uchar8)1, 0, heads_out + i);
            vstore8((uchar8)0, 0, ends + i);
            i += 8;
            continue;
        }
        const uint length = run_length(heads_in, i, n);
        if (length > SHORT_RUN) {
            count += long_run_records(heads_in, heads_out, ends, &i, last, n);
        } else if (length > 1) {
            sort_short_run(words, values, value_words, heads_out, ends, i, length);
            i += length;
        } else {  /* alone in its run: most records, for random keys */
            heads_out[i] = 1;
            ends[i++] = 0;
        }
    }
    counts[b] = count;
}

/* One work-item: counts made exclusive sums over the blocks, counts[total_at] the total. */
__kernel void records_run_scan(__global uint *counts, uint blocks, uint total_at)
{
    uint sum = 0;
    for (uint b = 0; b < blocks; ++b) {
        const uint count = counts[b];
        counts[b] = sum;
        sum += count;
    }
    counts[total_at] = sum;
}

/* The segments of the long runs: offsets[0] = 0 and offsets[k + 1] = the end of the k-th
   long run, so that each segment holds the records since the previous one; in blocks
   where a segment may lie, the words of records alone in their run (heads_in) made 0, so
   that they stay in place (records_key left them: most records, for random keys, and
   most lie in no segment). */
__kernel void records_run_offsets(__global const uchar *heads_in, __global const uchar *ends,
                                  __global const uint *counts, __global uint *offsets, __global uint *words,
                                  uint n)
{
    const uint b = get_global_id(0), begin = b * RUN_BLOCK, long_runs = counts[run_blocks(n)];
    if (b == 0)
        offsets[0] = 0;
    if (begin >= n || counts[b] == long_runs)  /* no long run ends here or after (ends maybe stale) */
        return;
    uint k = counts[b];
    const uint last = min(begin + RUN_BLOCK, n);
    for (uint i = begin; i < last; ++i) {
        if (i + 9 <= last && eight_continue(heads_in, i)) {
            i += 7;  /* none ends a run (the next continues it), none alone */
            continue;
        }
        if (ends[i])
            offsets[++k] = i + 1;
        if (heads_in[i] && (i + 1 == n || heads_in[i + 1]))
            words[i] = 0;
    }
}

/* Offsets past the last long run's (counts[blocks] of them): its end again, up to
   offsets[segments], empty segments that leave the records after it in place. */
__kernel void records_run_fill(__global const uint *counts, uint blocks, __global uint *offsets, uint segments)
{
    const uint j = get_global_id(0), runs = counts[blocks];
    if (j > runs && j <= segments)
        offsets[j] = offsets[runs];
}

/* Pairs of 128-bit keys (CLRADIX_U128, CLRADIX_I128), after their argsort: key and value i
   from copies, at position indices[i] (4-byte), in one launch, so that no failure between
   two launches can part a key from its value. */
__kernel void records_gather_pairs(__global const uint *indices, __global const uint4 *keys_from,
                                   __global uint4 *keys, __global const uint *values_from, __global uint *values,
                                   uint value_words, uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const uint from = min(indices[i], n - 1);
    keys[i] = keys_from[from];
    for (uint u = 0; u < value_words; ++u)
        values[(ulong)i * value_words + u] = values_from[(ulong)from * value_words + u];
}
