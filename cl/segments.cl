/*
 * The segmented-sort engine: many independent sorts (segments) in a number of launches
 * that does not depend on how many there are or how large each is. Every segment becomes
 * a job [begin, end) with the bits [begin_bit, job end bit) still to sort, whose keys
 * lie in the primary buffers (the caller's) or the secondary ones (temporaries). Jobs
 * are binned by size on the device into lists, one per class:
 *   tiny    up to TINY_N keys: one work-item each, ranked by counting in private memory;
 *   local   up to SMALL_N keys: one work-group each, sorted in local memory;
 *   medium  up to medium_n keys (a kernel argument, about a core's cache), or a large
 *           job of up to long_medium_n keys of many digits (seg_decide): one work-group
 *           each, digit passes between the job's ranges of the two buffers;
 *   large   the rest: all large jobs of a level are partitioned together, every job cut
 *           into blocks that work-groups count and scatter in parallel (as a global pass),
 *           by its most significant digit that varies (or by value: below); each bucket
 *           is a job of the next level with fewer bits left, binned again. A level per
 *           digit at most (a job left with bits after the last: medium);
 *   copy    jobs with nothing left to sort whose keys lie in the secondary buffers, in
 *           pieces of at most copy_chunk keys (a kernel argument).
 * Lists are filled with atomic counters, so a list's order varies from run to run, but
 * jobs never overlap and each is sorted stably, so the result does not. The host sizes
 * every list and table for the worst case and never reads them.
 *
 * Jobs are uint4: x begin, y end, z the end of the bits left to sort, w where the keys lie
 * (bit 0: 1 in the secondary buffers) and BY_DIGITS.
 *
 * Where one work-item makes a group (CPU rows, SPLIT_BY_VALUE: the host defines it), a
 * large job whose digits are uneven is split by value instead: seg_sample looks at a
 * sample of its keys and, where a split by digit would leave too many of them for another
 * level (digits_uneven), builds a table that maps cells of the masked image (cell_around:
 * fine near the sample's densest point, coarse far from it) to buckets that hold about as
 * many sample keys each, a cell that holds more than a bucket's share alone; the bucket
 * then takes the digit's place in counting and scattering. A bucket that keeps more than
 * half of its job and every bit of it (the sample misled) comes to the next level marked
 * BY_DIGITS and is split by digit there: no job is split twice the same way.
 */
#define BY_DIGITS 2u
#define WHERE(job) ((job).w & 1)
#if !defined(TINY_N) || TINY_N < 2
#error "TINY_N must be at least 2"
#endif

typedef uint4 seg_job;

/* The lists in the jobs buffer: four of capacity cap, then the large jobs of even and odd
   levels, of capacity cap_large each. */
#define LIST_TINY 0
#define LIST_LOCAL 1
#define LIST_MEDIUM 2
#define LIST_COPY 3
#define LIST_LARGE 4

/* Words of the state buffer, zero when the engine starts: how many jobs each list holds
   (large: per level), the next job a work-group of a class takes, and the blocks of each
   level. */
#define STATE_COUNT(list) (list)
#define STATE_NEXT(list) (8 + (list))
#define STATE_LARGE_COUNT(level) (16 + (level))
#define STATE_BLOCKS(level) (16 + PASSES + (level))
#define STATE_LEVELS 15  /* the partition levels the host enqueues (seg_start writes it) */
#define NO_DIGIT 0xFFFFFFFFu

/* The arguments that locate the lists, in every kernel that reads or writes them. */
#define LIST_ARGS __global seg_job *jobs, __global uint *state, uint cap, uint cap_large
#define LIST_PASS jobs, state, cap, cap_large

/* Slot `slot` of list `list` (in jobs, of capacity cap: past 2^32 jobs before it, so not
   in 32 bits). */
#define LIST_AT(list, slot) (jobs + (size_t)(list) * cap + (slot))

__global seg_job *large_list(LIST_ARGS, uint level)
{
    return LIST_AT(LIST_LARGE, (size_t)(level & 1) * cap_large);
}

/* Writes a job word by word: as a vector in a loop, the compiler stores an undefined
   vector first, which oclgrind reports. */
void put_job(__global seg_job *at, uint begin, uint end, uint end_bit, uint where)
{
    __global uint *words = (__global uint *)at;
    words[0] = begin;
    words[1] = end;
    words[2] = end_bit;
    words[3] = where;
}

/* Puts the job [begin, end) with bits [begin_bit, end_bit) left, whose keys lie in
   buffer `where`, on the list of its class (a copy in pieces of copy_chunk keys); a large
   one on the list of `level`, or past the levels enqueued on the medium list (a split by
   value, or a digit the sample misjudged, may leave a job fewer bits shorter than a
   digit: it is then sorted whole there). Jobs past a list's capacity are dropped: only
   offsets that overlap (decreasing ones) make more jobs than the host planned for, and
   their result is unspecified. */
void emit_job(LIST_ARGS, uint level, uint begin, uint end, uint begin_bit, uint end_bit, uint where, uint medium_n,
              uint copy_chunk)
{
    const uint len = end - begin, done = len < 2 || end_bit <= begin_bit;
    if (len == 0 || (done && !(where & 1)))
        return;  /* nothing to sort, and already where it belongs */
    if (done) {
        for (uint piece = begin; piece < end;) {
            const uint stop = end - piece > copy_chunk ? piece + copy_chunk : end;
            const uint slot = atomic_inc(&state[STATE_COUNT(LIST_COPY)]);
            if (slot < cap)
                put_job(LIST_AT(LIST_COPY, slot), piece, stop, end_bit, where);
            piece = stop;
        }
        return;
    }
    const uint list = len <= TINY_N ? LIST_TINY : len <= SMALL_N ? LIST_LOCAL
                    : len <= medium_n || level >= state[STATE_LEVELS] ? LIST_MEDIUM : LIST_LARGE;
    const uint slot = atomic_inc(&state[list == LIST_LARGE ? STATE_LARGE_COUNT(level) : STATE_COUNT(list)]);
    if (list == LIST_LARGE && slot < cap_large)
        put_job(large_list(LIST_PASS, level) + slot, begin, end, end_bit, where);
    else if (list != LIST_LARGE && slot < cap)
        put_job(LIST_AT(list, slot), begin, end, end_bit, where);
}

/* How many jobs a list holds. */
uint list_count(__global const uint *state, uint word, uint capacity)
{
    return min(state[word], capacity);
}

/* The digits of bits [begin_bit, end_bit). */
uint digits_below(uint begin_bit, uint end_bit)
{
    return (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS;
}

/* The digit a large job of bits [begin_bit, end_bit) partitions by: its top RADIX_BITS
   bits (all of them when fewer), anchored at end_bit, which need not lie on a digit
   boundary: a job whose top bits do not vary comes to the next level with end_bit just
   above its highest bit that varies (seg_decide), so that a digit of 8 bits splits it, not
   the few of them below a boundary (keys below 2^20: bits 12 to 19, not 16 to 19). */
uint top_digit_shift(uint begin_bit, uint end_bit)
{
    return end_bit - begin_bit > RADIX_BITS ? end_bit - RADIX_BITS : begin_bit;
}

digit_spec top_digit(uint begin_bit, uint end_bit, key_order order)
{
    const uint shift = top_digit_shift(begin_bit, end_bit);
    const digit_spec spec = { order, shift, (1u << (end_bit - shift)) - 1 };
    return spec;
}

/*
 * The next job of a list for this work-group, taken from a shared counter so that groups
 * stay busy whatever the jobs' sizes; the same in every work-item; count or more when
 * none is left. On a device whose loops stop early (loops.c) a group's jobs may cost at
 * most `budget` loop iterations, each job at most `most`, and the group has spent `spent`:
 * it takes none that might not fit (the host launches as many more groups); elsewhere
 * budget is UINT_MAX and most 0. `next` is local scratch. Starts with a barrier, so the
 * local memory of the previous job may be reused after it.
 */
BARRIER_FUNCTION uint take_job(__global uint *state, uint list, uint count, uint budget, uint most, uint spent,
                               __local uint *next)
{
    barrier(CLK_LOCAL_MEM_FENCE);  /* everyone is done with the previous job and has read next */
    if (get_local_id(0) == 0)
        *next = spent <= budget - most ? atomic_inc(&state[STATE_NEXT(list)]) : count;
    barrier(CLK_LOCAL_MEM_FENCE);  /* next is written */
    return *next;
}

/* The buffers of a kernel that moves keys between the primary and secondary buffers. */
#define BUFFER_ARGS __global radix_key *primary, __global radix_key *secondary \
    IF_VALUES(, __global radix_value *primary_values, __global radix_value *secondary_values)
/* The splits by value, after the other arguments of the kernels that read them. */
#ifdef SPLIT_BY_VALUE
#define SPLIT_ARGS , __global const uint *splits, __global const uchar *cells
#define DIGIT_END(j, end_bit) digit_end(splits, j, end_bit)
#else
#define SPLIT_ARGS
#define DIGIT_END(j, end_bit) (end_bit)
#endif
#define KEYS_IN(where) ((where) ? secondary : primary)
#define VALUES_IN(where) ((where) ? secondary_values : primary_values)

/*
 * Level 0's keys may lie in the primary values instead (records whose key is one field of
 * them: no copy of the keys is made before the sort): word key_word of each value, seen as
 * VALUE_KEYS keys (value_keys), with key_word NO_KEY_WORD where the keys lie in the primary
 * buffer. The host passes a key word only to level 0 of a flat sort whose one job is large:
 * seg_sample reads its sample there, and seg_histogram copies the keys to the primary
 * buffer as it counts them, for every kernel after it.
 */
#define VALUE_KEY_ARGS __global const radix_key *value_keys, uint key_word
#define VALUE_KEYS (VALUE_SIZE / (KEY_BITS / 8))
#define NO_KEY_WORD 0xFFFFFFFFu
#define VALUE_KEYS_CHUNK 4096u  /* keys copied, then counted while in cache */

/* Key i of keys, or of the values where key_word says they hold them. */
radix_key key_in(__global const radix_key *keys, __global const radix_key *value_keys, uint key_word, uint i)
{
    return key_word == NO_KEY_WORD ? keys[i] : value_keys[(size_t)i * VALUE_KEYS + key_word];
}

/* Clears the state (words of it) before anything else, and notes how many partition levels
   the host enqueues: a kernel rather than clEnqueueFillBuffer, whose zeros oclgrind 21.10
   takes for uninitialised memory. */
__kernel void seg_start(__global uint *state, uint words, uint levels)
{
    for (uint i = get_local_id(0); i < words; i += get_local_size(0))
        state[i] = i == STATE_LEVELS ? levels : 0;
}

/*
 * Level 0: segment i of offsets (num_segments + 1 values), or with offsets NULL the one
 * segment [0, n), as a job on the list of its class. Offsets are clamped to [0, n) and
 * a segment that would end before it begins is empty.
 */
__kernel void seg_classify(__global const uint *offsets, uint num_segments, uint n, uint begin_bit, uint end_bit,
                           uint medium_n, uint copy_chunk, LIST_ARGS)
{
    const uint i = get_global_id(0);
    if (i >= num_segments)
        return;
    uint begin = 0, end = n;
    if (offsets) {
        begin = min(offsets[i], n);
        end = min(max(offsets[i + 1], begin), n);
    }
    emit_job(LIST_PASS, 0, begin, end, begin_bit, end_bit, 0, medium_n, copy_chunk);
}

/* Argsort: the primary keys are a copy of the caller's (which stay untouched) and the
   primary values the indices, for the span the segments cover. */
#if VALUE_SIZE == 4 || VALUE_SIZE == 8
__kernel void seg_argsort_prepare(__global const radix_key *keys, __global radix_key *copy,
                                  __global radix_value *indices, __global const uint *offsets, uint num_segments,
                                  uint n)
{
    const uint i = get_global_id(0);
    const uint first = offsets ? min(offsets[0], n) : 0;
    const uint last = offsets ? min(max(offsets[num_segments], first), n) : n;
    if (i < first || i >= last)
        return;
    copy[i] = keys[i];
#if VALUE_SIZE == 4
    indices[i] = i;
#else
    __global uint *words = (__global uint *)(indices + i);  /* as radix_iota */
    words[INDEX_LOW_WORD] = i;
    words[1 - INDEX_LOW_WORD] = 0;
#endif
}
#endif

/* ---------------------------------------------------------------------------------
 * Large jobs, one level: blocks, counts, the digit to partition by, scan, scatter
 * ------------------------------------------------------------------------------ */

/* Blocks of 1 << block_shift keys in a large job (never empty). A power of two, since a
   division by a variable brings a freeze instruction that oclgrind cannot run; and this
   form, since oclgrind 21.10's --uninitialized crashes on (len >> s) + ((len & m) != 0). */
uint blocks_of(seg_job job, uint block_shift)
{
    return ((job.y - job.x - 1) >> block_shift) + 1;
}

/*
 * One work-group: cuts every large job of the level into blocks of 1 << block_shift keys
 * (the last one shorter): job_blocks[j] = (first block, blocks) and blocks[b] = (job, index
 * of the block in its job). Jobs that would pass max_blocks get none, and the blocks they
 * would have had are holes (job NO_DIGIT) that the other kernels pass over.
 */
__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
void seg_blocks(LIST_ARGS, uint level, uint block_shift, uint max_blocks, __global uint *job_blocks,
                __global uint *blocks)
{
    __local uint sums[PAD(SCAN_WG)];
    const uint lid = get_local_id(0), count = list_count(state, STATE_LARGE_COUNT(level), cap_large);
    __global const seg_job *list = large_list(LIST_PASS, level);
    const uint chunk = (count + SCAN_WG - 1) / SCAN_WG, first = min(lid * chunk, count), last = min(first + chunk, count);
    uint mine = 0;
    for (uint j = first; j < last; ++j)
        mine += blocks_of(list[j], block_shift);
    sums[PAD(lid)] = mine;
    const uint total = group_exclusive_scan(sums, SCAN_WG);
    uint next = sums[PAD(lid)];
    for (uint j = first; j < last; ++j) {
        const uint want = blocks_of(list[j], block_shift), nb = next < max_blocks && want <= max_blocks - next ? want : 0;
        /* The uint2 tables (readers' view) written word by word: a vector store comes out as a
           store of undef and then of each element, which oclgrind reports. */
        job_blocks[2 * j] = next;
        job_blocks[2 * j + 1] = nb;
        for (uint k = 0; k < want && next + k < max_blocks; ++k) {  /* a dropped job's blocks are holes */
            blocks[2 * (next + k)] = k < nb ? j : NO_DIGIT;
            blocks[2 * (next + k) + 1] = k;
        }
        next += want;
    }
    if (lid == 0)
        state[STATE_BLOCKS(level)] = min(total, max_blocks);
}

/* Copies of a block's counters: with one work-item, keys in turn to four of them, so that
   a run of equal digits (presorted or skewed keys) is not one chain of increments of one
   counter through memory, each waiting for the one before. */
#if WG == 1
#define COUNT_COPIES 4
#else
#define COUNT_COPIES HIST_COPIES
#endif

#ifdef SPLIT_BY_VALUE
/* ---------------------------------------------------------------------------------
 * Splits by value (one work-item per group): the sample, the decision and the table
 * ------------------------------------------------------------------------------ */

#if TILE < 16 * RADIX
#error "SPLIT_BY_VALUE needs tiles of at least 16 * RADIX keys (the sample's local memory)"
#endif
/* Cells: a key's masked image as its distance from an origin (where the sample's keys are
   densest), in the manner of a float of CELL_PRECISION bits (distances below
   2^CELL_PRECISION exact, larger ones rounded down to that many significant bits), above
   the origin from HALF_CELLS up and below it from HALF_CELLS - 1 down: fine where keys are
   dense, coarse far from there, every image in a cell, and monotone in the image. */
#if KEY_BITS == 64
#define CELL_PRECISION 10
#else
#define CELL_PRECISION 11
#endif
#define CELLS 65536u
#define HALF_CELLS (CELLS / 2)
#define CELL_OF_ALL (((KEY_BITS - CELL_PRECISION) << (CELL_PRECISION - 1)) + (1u << CELL_PRECISION) - 1)  /* cell_of(~0) */
#define SAMPLE_KEYS (16 * RADIX)
#define SPLIT_WORDS 4       /* per job of a level: table slot + 1 (0: by digit), origin (two words),
                               and by digit the end of the bits the sample saw vary (0: none) */
#define RANGE_WORDS RADIX   /* per slot after its cells: each bucket's first and last cell */
#define SLOT_BYTES (CELLS + 4 * RANGE_WORDS)

/* A fixed scramble of the sample's index: the positions are the same in every run (a test
   can build keys that mislead the sample), and not a stride, which periodic keys fool. */
uint sample_hash(uint i)
{
    i = (i ^ 0x9E3779B9u) * 0x85EBCA6Bu;
    i ^= i >> 13;
    i *= 0xC2B2AE35u;
    return i ^ (i >> 16);
}

/* The float cell of a distance: exact below 2^CELL_PRECISION, else its CELL_PRECISION leading
   bits after (bit length - CELL_PRECISION) << (CELL_PRECISION - 1). Without branches. */
uint cell_of(radix_key distance)
{
    /* the bit length, at least CELL_PRECISION (a max, which compilers made a branch) */
    const uint drop = KEY_BITS - (uint)clz(distance | (((radix_key)1 << CELL_PRECISION) - 1)) - CELL_PRECISION;
    return (drop << (CELL_PRECISION - 1)) + (uint)(distance >> drop);
}

/* The smallest and largest distance in cell c. */
radix_key cell_first(uint c)
{
    const uint drop = c < (1u << CELL_PRECISION) ? 0 : (c >> (CELL_PRECISION - 1)) - 1;
    return (radix_key)(c - (drop << (CELL_PRECISION - 1))) << drop;
}

radix_key cell_last(uint c)
{
    const uint drop = c < (1u << CELL_PRECISION) ? 0 : (c >> (CELL_PRECISION - 1)) - 1;
    return cell_first(c) + (((radix_key)1 << drop) - 1);
}

/* The cell of the masked image `bits` around origin (without branches: keys on both
   sides of it would mispredict them). Below it, the distance is ~(bits - origin). */
uint cell_around(radix_key bits, radix_key origin)
{
    const radix_key below = (radix_key)0 - (radix_key)(bits < origin);
    const uint f = cell_of((radix_key)(bits - origin) ^ below);
    return HALF_CELLS + (f ^ (uint)below);  /* below: HALF_CELLS - 1 - f */
}

/* The smallest and the largest masked image (up to range) in cell c around origin. */
radix_key cell_bits_first(uint c, radix_key origin, radix_key range)
{
    if (c >= HALF_CELLS) {
        const radix_key d = cell_first(c - HALF_CELLS);
        return c - HALF_CELLS > CELL_OF_ALL || d > range - origin ? range : origin + d;
    }
    const uint f = HALF_CELLS - 1 - c;
    const radix_key d = f > CELL_OF_ALL ? ~(radix_key)0 : cell_last(f);
    return d >= origin ? 0 : origin - 1 - d;
}

radix_key cell_bits_last(uint c, radix_key origin, radix_key range)
{
    if (c >= HALF_CELLS) {
        const radix_key d = c - HALF_CELLS > CELL_OF_ALL ? ~(radix_key)0 : cell_last(c - HALF_CELLS);
        return d > range - origin ? range : origin + d;
    }
    const uint f = HALF_CELLS - 1 - c;
    const radix_key d = f > CELL_OF_ALL ? ~(radix_key)0 : cell_first(f);
    return d >= origin ? 0 : origin - 1 - d;
}

/* A job's split by value: the bits [begin, ...) of a key's image masked by range name a
   cell around origin, and cells[cell] is its bucket (monotone in the cell, so that a
   stable scatter by bucket orders the keys as one by digit would). */
typedef struct value_split {
    __global const uchar *cells;  /* 0: the job splits by digit */
    radix_key origin, range;
    uint begin;
} value_split;

/* Job j's split, from seg_sample's record (cells 0 where there is none). */
value_split split_of(__global const uint *splits, __global const uchar *cells, uint j, uint begin_bit, uint end_bit)
{
    __global const uint *split = splits + SPLIT_WORDS * j;
    value_split v = { 0, 0, 0, begin_bit };
    if (split[0]) {
        v.cells = cells + (size_t)(split[0] - 1) * SLOT_BYTES;
        v.origin = (radix_key)(((ulong)split[2] << 32) | split[1]);
        v.range = range_mask_of(begin_bit, end_bit);
    }
    return v;
}

/* The end of the bits a job that splits by digit takes its digit below: where the sample
   saw every key's bits above some bit agree, that bit (the level's count then takes the
   digit the next level would, where seg_decide finds those bits constant in every key),
   else the job's end. */
uint digit_end(__global const uint *splits, uint j, uint end_bit)
{
    const uint seen = splits[SPLIT_WORDS * j + 3];
    return seen ? seen : end_bit;
}

/* image_of, without a branch on the sign where the order is a mask of it: compilers make
   image_of's select a branch, which keys of either sign mispredict (classifying such keys
   1.8x slower on POCL). */
radix_key image_unbranched(radix_key key, key_order order)
{
#if defined(NUMPY_ORDER) || defined(RECORD_IMAGE)
    return image_of(key, order);
#else
    const radix_key negative = (radix_key)0 - (key >> (KEY_BITS - 1));
    return key ^ order.pos_xor ^ ((order.pos_xor ^ order.neg_xor) & negative);
#endif
}

/* The bucket of a key. */
uint bucket_of(radix_key key, key_order order, value_split v)
{
    const radix_key bits = (image_unbranched(key, order) >> v.begin) & v.range;
    return v.cells[cell_around(bits, v.origin)];
}

/* The end bit of the bits left in bucket d: above the highest bit in which the smallest
   and largest masked image its cells can hold differ. */
uint bucket_end_bit(value_split v, uint d, uint begin_bit)
{
    const uint cells = ((__global const uint *)(v.cells + CELLS))[d];
    const uint first = cells & 0xFFFFu, last = cells >> 16;
    const radix_key differ = cell_bits_first(first, v.origin, v.range) ^ cell_bits_last(last, v.origin, v.range);
    return differ ? begin_bit + KEY_BITS - (uint)clz(differ) : begin_bit;
}

/* Keys are classified a chunk at a time into a private array, in a loop of its own that
   compilers vectorize (the table lookups as gathers): 1.6x faster on POCL than a key's
   bucket taken where it is counted or moved. */
#define CHUNK 256

void buckets_of(__global const radix_key *keys, uint count, key_order order, value_split split, uchar *bucket)
{
    for (uint u = 0; u < count; ++u)
        bucket[u] = (uchar)bucket_of(keys[u], order, split);
}

/* Counts the buckets of count keys, a key in turn to each of COUNT_COPIES copies of the
   counters (RADIX + 1 words apart, as seg_histogram's), and folds their images into *any
   and *all. Out of line, as scatter_by_value: inlined beside the digits' loops, they made
   POCL compile those slower. */
__attribute__((noinline)) void count_by_value(__global const radix_key *keys, uint count, key_order order,
                                              value_split split, __local uint *counts, radix_key *any, radix_key *all)
{
    uchar bucket[CHUNK];
    radix_key or_all = *any, and_all = *all;
    for (uint first = 0; first < count; first += CHUNK) {
        const uint chunk = min((uint)CHUNK, count - first);
        for (uint u = 0; u < chunk; ++u) {
            const radix_key image = image_unbranched(keys[first + u], order);
            or_all |= image;
            and_all &= image;
        }
        buckets_of(keys + first, chunk, order, split, bucket);
        for (uint u = 0; u < chunk; ++u)
            ++counts[(u % COUNT_COPIES) * (RADIX + 1) + bucket[u]];
    }
    *any = or_all;
    *all = and_all;
}

/* Moves count keys (and values) from src to dst, each to next[its bucket]++, in order (so
   stably); nothing at or past limit. */
__attribute__((noinline)) void scatter_by_value(__global const radix_key *src, IF_VALUES(__global const radix_value *src_values,) uint count,
                      key_order order, value_split split, __local uint *next, uint limit,
                      __global radix_key *dst IF_VALUES(, __global radix_value *dst_values))
{
    uchar bucket[CHUNK];
    for (uint first = 0; first < count; first += CHUNK) {
        const uint chunk = min((uint)CHUNK, count - first);
        buckets_of(src + first, chunk, order, split, bucket);
        for (uint u = 0; u < chunk; ++u) {
            const uint at = next[bucket[u]]++;
            if (at < limit) {
                dst[at] = src[first + u];
                IF_VALUES(dst_values[at] = src_values[first + u];)
            }
        }
    }
}

/* Cells [from, to) of a table to bucket b, and b's first and last cell in ranges (first |
   last << 16; NO_CELLS while it has none): the table is filled in order of the cells, and
   buckets are monotone in them. */
#define NO_CELLS 0xFFFFFFFFu
void put_cells(__global uchar *table, __global uint *ranges, uint from, uint to, uint b)
{
    if (from >= to)
        return;
    for (uint c = from; c < to; ++c)
        table[c] = (uchar)b;
    ranges[b] = (ranges[b] == NO_CELLS ? from : ranges[b] & 0xFFFFu) | (to - 1) << 16;
}

/* Sorts the SAMPLE_KEYS images of a by 8-bit counting passes between a and b, back in a
   (KEY_BITS / 8, 4 or 8, is even). */
void sort_sample(__local radix_key *a, __local radix_key *b, __local uint *counts)
{
    for (uint pass = 0; pass < KEY_BITS / 8; ++pass) {
        __local const radix_key *from = pass & 1 ? b : a;
        __local radix_key *to = pass & 1 ? a : b;
        for (uint d = 0; d < 256; ++d)
            counts[d] = 0;
        for (uint t = 0; t < SAMPLE_KEYS; ++t)
            ++counts[(uint)(from[t] >> (8 * pass)) & 0xFF];
        counts_to_slots(counts, 256, SAMPLE_KEYS);
        for (uint t = 0; t < SAMPLE_KEYS; ++t)
            to[counts[(uint)(from[t] >> (8 * pass)) & 0xFF]++] = from[t];
    }
}

/*
 * Whether a split by digit (at the sample's highest bit that varies, as seg_decide would
 * pick) leaves more than a quarter of the job's keys in buckets that need another level
 * (a half left CUB's entropy level 0.811 to digits, 1.15x slower at 2^24 on POCL): of
 * more than twice medium_n keys (projected from the sample) whose sample keys are not all
 * equal (a bucket of equal keys is done once the next level has read it).
 */
int digits_uneven(__local const radix_key *images, uint top, uint len, uint medium_n, __local uint *counts,
                  __local radix_key *firsts, __local uint *mixed)
{
    /* a max, not a select, which becomes a saturating subtraction oclgrind 21.10 cannot run */
    const uint shift = max(top, (uint)RADIX_BITS) - RADIX_BITS;
    for (uint d = 0; d < RADIX; ++d) {
        counts[d] = 0;
        mixed[d] = 0;
    }
    for (uint t = 0; t < SAMPLE_KEYS; ++t) {
        const uint d = (uint)(images[t] >> shift) & (RADIX - 1);
        if (counts[d]++ == 0)
            firsts[d] = images[t];
        mixed[d] |= images[t] != firsts[d];
    }
    /* a bucket past 2 * medium_n keys holds more than this many sample keys */
    const ulong large = (ulong)SAMPLE_KEYS * 2 * medium_n / len;
    uint uneven = 0;
    for (uint d = 0; d < RADIX; ++d)
        uneven += counts[d] > large && mixed[d] ? counts[d] : 0;
    return 4 * uneven > SAMPLE_KEYS;
}

/*
 * Each group takes large jobs of the level in turn: samples SAMPLE_KEYS keys of the job's
 * (at fixed positions) and decides how it splits. By digit (splits 0) where the job is
 * BY_DIGITS, has no table slot (slots: its index below `slots`), the sample's keys are all
 * equal, or the digits are not uneven (digits_uneven). Else by value: the sample sorted,
 * the origin of the cells where it is densest, and its runs of equal cells put in buckets
 * in order, a bucket taking the runs that start in its share of the sample, a run longer
 * than a share a bucket of its own; a cell between runs goes with the next run's bucket
 * (the previous one's where the next run has a bucket of its own). Equal keys whose cell
 * is exact (near the origin) so make a bucket whose bits are done.
 */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void seg_sample(__global const radix_key *primary, __global const radix_key *secondary, LIST_ARGS, uint level,
                uint begin_bit, KEY_ORDER_ARGS, uint medium_n, uint slots, __global uint *splits,
                __global uchar *cells, VALUE_KEY_ARGS)
{
    __local radix_key images[SAMPLE_KEYS], others[SAMPLE_KEYS], firsts[RADIX];
    __local ushort sorted[SAMPLE_KEYS], scratch[SAMPLE_KEYS];
    __local uint counts[RADIX > 256 ? RADIX : 256], mixed[RADIX];
    const uint share = SAMPLE_KEYS / RADIX, count = list_count(state, STATE_LARGE_COUNT(level), cap_large);
    for (uint j = get_group_id(0); j < count; j += get_num_groups(0)) {
        const seg_job job = large_list(LIST_PASS, level)[j];
        __global uint *split = splits + SPLIT_WORDS * j;
        split[0] = 0;
        split[3] = 0;
        const uint len = job.y - job.x;
        radix_key varying = 0;  /* the bits in which a sample key differs from the first */
        for (uint t = 0; t < SAMPLE_KEYS; ++t) {
            const uint at = job.x + mul_hi(sample_hash(t), len);
            const radix_key image = masked_image(key_in(KEYS_IN(WHERE(job)), value_keys, key_word, at), begin_bit,
                                                 job.z, KEY_ORDER);
            images[t] = image;
            varying |= image ^ images[0];
        }
        const uint top = KEY_BITS - (uint)clz(varying);  /* bits [0, top) of the masked images vary */
        if (!varying || (job.w & BY_DIGITS))
            continue;
        split[3] = begin_bit + top;  /* by digit, the one below the sample's highest varying bit */
        if (j >= slots || !digits_uneven(images, top, len, medium_n, counts, firsts, mixed))
            continue;

        /* The origin: amid the share of the sample that spans the fewest values. */
        sort_sample(images, others, counts);
        uint densest = 0;
        for (uint t = 1; t + share < SAMPLE_KEYS; ++t)
            if (images[t + share] - images[t] < images[densest + share] - images[densest])
                densest = t;
        const radix_key origin = images[densest + share / 2];
        for (uint t = 0; t < SAMPLE_KEYS; ++t)  /* in order, as the images are */
            sorted[t] = (ushort)cell_around(images[t], origin);
        /* Each run's bucket, and whether it is alone in it, in scratch: bucket | alone << 8. */
        uint bucket = 0;
        for (uint t = 0, previous_alone = 0; t < SAMPLE_KEYS;) {
            uint end = t + 1;
            while (end < SAMPLE_KEYS && sorted[end] == sorted[t])
                ++end;
            const uint alone = end - t > share;
            /* never below the run before's bucket, and above it next to a run alone */
            const uint b = max(t / share, t > 0 && (alone || previous_alone) ? bucket + 1 : bucket);
            bucket = min(b, (uint)RADIX - 1);
            for (uint u = t; u < end; ++u)
                scratch[u] = (ushort)(bucket | alone << 8);
            previous_alone = alone;
            t = end;
        }
        /* The table: each run's cell, and the cells up to it. */
        __global uchar *table = cells + (size_t)j * SLOT_BYTES;
        __global uint *ranges = (__global uint *)(table + CELLS);
        for (uint d = 0; d < RADIX; ++d)
            ranges[d] = NO_CELLS;
        uint cell = 0;
        for (uint t = 0; t < SAMPLE_KEYS; ++t) {
            const uint run_cell = sorted[t], own = scratch[t] & 0xFF;
            if (t > 0 && run_cell == sorted[t - 1])
                continue;
            /* cells before this run's: the previous run's bucket when this one's is its own */
            const uint gap = t > 0 && (scratch[t] >> 8) ? scratch[t - 1] & 0xFF : own;
            put_cells(table, ranges, cell, run_cell, gap);
            put_cells(table, ranges, run_cell, run_cell + 1, own);
            cell = run_cell + 1;
        }
        put_cells(table, ranges, cell, CELLS, scratch[SAMPLE_KEYS - 1] & 0xFF);
        split[1] = (uint)origin;
        split[2] = (uint)((ulong)origin >> 32);
        split[0] = j + 1;
    }
}
#endif

/* Folds a key's image into a block's OR and AND, and counts its top digit in `copy`. */
void count_image(radix_key image, digit_spec top, __local uint *copy, radix_key *any, radix_key *all)
{
    *any |= image;
    *all &= image;
    count_digit(copy, (uint)(image >> top.shift) & top.mask);
}

/* Counts the top digits of count keys into the COUNT_COPIES copies of counts (a key in turn
   to each with one work-item, a work-item's keys to its own copy with several), folding
   their images into *any and *all. */
void count_keys(__global const radix_key *keys, uint count, key_order order, digit_spec top, __local uint *counts,
                radix_key *any, radix_key *all)
{
#if WG == 1
    uint i = 0;
    for (; count - i >= COUNT_COPIES; i += COUNT_COPIES)  /* key i + c to copy c */
#pragma unroll
        for (uint c = 0; c < COUNT_COPIES; ++c)
            count_image(image_of(keys[i + c], order), top, counts + c * (RADIX + 1), any, all);
    for (; i < count; ++i)
        count_image(image_of(keys[i], order), top, counts, any, all);
#else
    const uint lid = get_local_id(0);
    __local uint *mine = counts + (lid % COUNT_COPIES) * (RADIX + 1);
    for (uint i = lid; i < count; i += WG)
        count_image(image_of(keys[i], order), top, mine, any, all);
#endif
}

/*
 * Each block counts the digits of its job's top digit position, into the job's part of the
 * scan table, digit-major: table[first block * RADIX + digit * blocks + block index]
 * (whether the job partitions by that digit or not: each job's offsets are taken relative
 * to its first entry, so a job's counts move no other job's), and the OR and AND of its keys'
 * images (bits[2 * block], bits[2 * block + 1]), from which seg_decide sees which digits
 * vary. Blocks past the level's, and holes, clear their part of the table, which is scanned
 * whole. Every group takes every
 * get_num_groups-th block: groups with nothing to do would keep POCL from running the
 * others side by side (it hands a thread consecutive groups). Barriers are never under a
 * branch (POCL miscompiles some that are): a hole counts no keys. Keys in the values
 * (key_word) are copied to the primary buffer a chunk at a time, each work-item the keys
 * it counts next.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_histogram(__global radix_key *primary, __global const radix_key *secondary, LIST_ARGS, uint level,
                   uint block_len, uint begin_bit, KEY_ORDER_ARGS,
                   __global const uint2 *blocks, uint max_blocks, __global const uint2 *job_blocks,
                   __global radix_key *bits, __global uint *table, VALUE_KEY_ARGS SPLIT_ARGS)
{
    __local uint counts[COUNT_COPIES * (RADIX + 1)];  /* copy-major, then digit */
    __local radix_key ors[WG], ands[WG];
    const uint lid = get_local_id(0), level_blocks = state[STATE_BLOCKS(level)];
    for (uint b = get_group_id(0); b < max_blocks; b += get_num_groups(0)) {
        const int hole = b >= level_blocks || blocks[b].x == NO_DIGIT;
        const uint2 block = hole ? (uint2)(0, 0) : blocks[b];
        const uint2 jb = hole ? (uint2)(b, 1) : job_blocks[block.x];  /* a hole: its own RADIX entries */
        const seg_job job = hole ? (seg_job)(0, 0, begin_bit + 1, 0) : large_list(LIST_PASS, level)[block.x];
        const uint begin = job.x + block.y * block_len, count = hole ? 0 : min(block_len, job.y - begin);
        const digit_spec top = top_digit(begin_bit, hole ? job.z : DIGIT_END(block.x, job.z), KEY_ORDER);
        __global const radix_key *keys = KEYS_IN(WHERE(job)) + begin;

        barrier(CLK_LOCAL_MEM_FENCE);  /* the previous block's counts and bits are read */
        for (uint i = lid; i < COUNT_COPIES * (RADIX + 1); i += WG)
            counts[i] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);  /* counters are zero before anyone counts */
        radix_key any = 0, all = ~(radix_key)0;
#ifdef SPLIT_BY_VALUE
        const value_split split = split_of(splits, cells, block.x, begin_bit, job.z);
#endif
        const uint chunk = key_word == NO_KEY_WORD ? count : VALUE_KEYS_CHUNK;
        for (uint from = 0; from < count; from += chunk) {
            const uint len = min(chunk, count - from);
            if (key_word != NO_KEY_WORD) {  /* (a pointer a chunk: indexed from the block, POCL's loop ran 2x slower) */
                __global const radix_key *src = value_keys + (size_t)(begin + from) * VALUE_KEYS + key_word;
                __global radix_key *dst = primary + begin + from;
                for (uint i = lid; i < len; i += WG)
                    dst[i] = src[(size_t)i * VALUE_KEYS];
            }
#ifdef SPLIT_BY_VALUE
            if (split.cells)
                count_by_value(keys + from, len, KEY_ORDER, split, counts, &any, &all);
            else
#endif
            count_keys(keys + from, len, KEY_ORDER, top, counts, &any, &all);
        }
        ors[lid] = any;
        ands[lid] = all;
        barrier(CLK_LOCAL_MEM_FENCE);  /* all keys counted */
        for (uint d = lid; d < RADIX; d += WG) {
            uint sum = 0;
            for (uint c = 0; c < COUNT_COPIES; ++c)
                sum += counts[c * (RADIX + 1) + d];
            table[jb.x * RADIX + d * jb.y + block.y] = sum;  /* a hole counted no keys */
        }
        if (lid == 0 && !hole) {
            for (uint i = 1; i < WG; ++i) {
                any |= ors[i];
                all &= ands[i];
            }
            bits[2 * b] = any;
            bits[2 * b + 1] = all;
        }
    }
}

/* How many of the RADIX digits of a job's counts (the table's rows, of `blocks` each) hold
   a key. noinline: inlined into seg_decide, its loop crashed oclgrind 21.10's check of
   uninitialised values. */
__attribute__((noinline)) uint digits_present(__global const uint *counts, uint blocks)
{
    uint present = 0;
    for (uint d = 0; d < RADIX; ++d) {
        uint any_key = 0;
        for (uint k = 0; k < blocks; ++k)
            any_key |= counts[d * blocks + k];
        present += any_key != 0;
    }
    return present;
}

/*
 * One work-item per large job: which of its bits vary, from its blocks' OR and AND. None
 * (all keys equal in the bits left): the job is done. Some in its top digit (top_digit):
 * it partitions by that digit, whose counts seg_histogram has put in the table (chosen[j]
 * = 0). Only lower ones: the job goes unmoved to the next level with the bits above its
 * highest that varies dropped, to be counted there (chosen[j] = NO_DIGIT, as for a done
 * job). A job of up to long_medium_n keys split by digit in which most digits occur is
 * sorted by the passes of a medium job instead (segments.c says where that pays).
 */
__kernel void seg_decide(LIST_ARGS, uint level, uint begin_bit, uint medium_n, uint long_medium_n, uint copy_chunk,
                         __global const uint2 *job_blocks, __global const radix_key *bits, __global uint *chosen,
                         __global const uint *table SPLIT_ARGS)
{
    const uint j = get_global_id(0);
    if (j >= list_count(state, STATE_LARGE_COUNT(level), cap_large))
        return;
    const seg_job job = large_list(LIST_PASS, level)[j];
    const uint2 jb = job_blocks[j];
    if (jb.y == 0)
        return;  /* a job past the planned blocks (overlapping offsets): left as it is */
    radix_key any = 0, all = ~(radix_key)0;
    for (uint k = 0; k < jb.y; ++k) {
        any |= bits[2 * (jb.x + k)];
        all &= bits[2 * (jb.x + k) + 1];
    }
    const uint width = job.z - begin_bit;
    const radix_key mask = width >= KEY_BITS ? ~(radix_key)0 : (((radix_key)1 << width) - 1);
    const radix_key varying = ((any ^ all) >> begin_bit) & mask;
    const uint highest = varying ? begin_bit + KEY_BITS - 1 - (uint)clz(varying) : begin_bit;  /* a bit */
    /* counted below DIGIT_END: a bit from there up that varies (the sample missed it) sends
       the job on unmoved, as one whose top digit does not vary */
    const uint end = DIGIT_END(j, job.z);
    uint pick = varying && highest < end && highest >= top_digit_shift(begin_bit, end) ? 0 : NO_DIGIT;
    int by_value = 0;
#ifdef SPLIT_BY_VALUE
    by_value = splits[SPLIT_WORDS * j] != 0;
    if (varying && by_value)
        pick = 0;  /* by value, whichever bits vary */
#endif
    /* A job within long_medium_n split by its top digit, not by value, in which most of that
       digit's values occur (not a few distinct keys, whose buckets a partition finds
       constant where passes would move every key once per digit): a medium job after all. */
    const uint present = pick == 0 && !by_value && job.y - job.x <= long_medium_n
                       ? digits_present(table + jb.x * RADIX, jb.y) : 0;
    const int passes = present >= RADIX / 2;
    if (passes)
        pick = NO_DIGIT;
    chosen[j] = pick;
    if (!varying)  /* done: only where it lies may need a copy */
        emit_job(LIST_PASS, level + 1, job.x, job.y, begin_bit, begin_bit, job.w, medium_n, copy_chunk);
    else if (passes)
        emit_job(LIST_PASS, level + 1, job.x, job.y, begin_bit, highest + 1, job.w, long_medium_n, copy_chunk);
    else if (pick == NO_DIGIT)  /* still large: to the next level, unmoved (by digit, if the sample misled) */
        emit_job(LIST_PASS, level + 1, job.x, job.y, begin_bit, highest + 1, job.w | (highest + 1 == job.z ? BY_DIGITS : 0),
                 medium_n, copy_chunk);
}

/*
 * Each block of a job that partitions moves its keys (and values) to the other buffers,
 * at the job's own range: a tile at a time, sorted by the chosen digit in local memory and
 * written run by run, after the keys of that digit from the job's earlier blocks (the
 * scanned table). The job's first block also puts its buckets on the lists, as jobs of
 * the next level with the bits below the digit left. Groups take blocks as in
 * seg_histogram.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_scatter(BUFFER_ARGS, LIST_ARGS, uint level, uint block_len, uint begin_bit, KEY_ORDER_ARGS,
                 uint medium_n, uint copy_chunk, __global const uint2 *blocks, __global const uint2 *job_blocks,
                 __global const uint *chosen, __global const uint *table SPLIT_ARGS)
{
    __local tile_scratch s;
    const uint lid = get_local_id(0), level_blocks = state[STATE_BLOCKS(level)];
    for (uint b = get_group_id(0); b < level_blocks; b += get_num_groups(0)) {
        /* A hole, or a job that does not move, moves no keys (no barrier under a branch). */
        const uint2 block = blocks[b];
        const int idle = block.x == NO_DIGIT || chosen[block.x] == NO_DIGIT;
        const seg_job job = idle ? (seg_job)(0, 0, begin_bit + 1, 0) : large_list(LIST_PASS, level)[block.x];
        const uint2 jb = idle ? (uint2)(0, 1) : job_blocks[block.x];
        const uint base = table[jb.x * RADIX], len = job.y - job.x;
        const digit_spec spec = top_digit(begin_bit, idle ? job.z : DIGIT_END(block.x, job.z), KEY_ORDER);
#ifdef SPLIT_BY_VALUE
        const value_split split = split_of(splits, cells, idle ? 0 : block.x, begin_bit, job.z);
#endif
        for (uint d = lid; d < RADIX && !idle; d += WG) {  /* digit_next[d]: this work-item's alone */
            s.digit_next[d] = job.x + table[jb.x * RADIX + d * jb.y + block.y] - base;
            if (block.y == 0) {
                const uint start = table[jb.x * RADIX + d * jb.y] - base;
                const uint stop = d + 1 < RADIX ? table[jb.x * RADIX + (d + 1) * jb.y] - base : len;
                uint end_bit = spec.shift, where = !WHERE(job);
#ifdef SPLIT_BY_VALUE
                if (split.cells && stop > start) {
                    end_bit = bucket_end_bit(split, d, begin_bit);
                    if (end_bit == job.z && stop - start > len / 2)
                        where |= BY_DIGITS;  /* the sample misled: digits next */
                }
#endif
                emit_job(LIST_PASS, level + 1, job.x + start, job.x + stop, begin_bit, end_bit, where, medium_n,
                         copy_chunk);
            }
        }

        const uint begin = job.x + block.y * block_len, count = idle ? 0 : min(block_len, job.y - begin);
#ifdef SPLIT_BY_VALUE
        if (split.cells && !idle)  /* one work-item: each key straight to its bucket's next slot */
            scatter_by_value(KEYS_IN(WHERE(job)) + begin, IF_VALUES(VALUES_IN(WHERE(job)) + begin,) count, KEY_ORDER,
                             split, s.digit_next, job.y, KEYS_IN(!WHERE(job)) IF_VALUES(, VALUES_IN(!WHERE(job))));
        else
#endif
        scatter_range(KEYS_IN(WHERE(job)) + begin, IF_VALUES(VALUES_IN(WHERE(job)) + begin,) count, spec, &s, job.y,
                      KEYS_IN(!WHERE(job)) IF_VALUES(, VALUES_IN(!WHERE(job))), 0, spec, 0);
    }
}

/* ---------------------------------------------------------------------------------
 * The classes that finish jobs: tiny, local, medium, copy
 * ------------------------------------------------------------------------------ */

/* One work-item per tiny job: each key's place is the number of keys before it in the
   order (smaller, or equal and earlier), counted in private memory; written to the
   primary buffers. */
__kernel void seg_tiny(BUFFER_ARGS, LIST_ARGS, uint begin_bit, KEY_ORDER_ARGS)
{
    const uint i = get_global_id(0);
    if (i >= list_count(state, STATE_COUNT(LIST_TINY), cap))
        return;
    const seg_job job = *LIST_AT(LIST_TINY, i);
    const uint len = min(job.y - job.x, (uint)TINY_N);
    radix_key keys[TINY_N], images[TINY_N];
    IF_VALUES(radix_value values[TINY_N];)
    __global const radix_key *src = KEYS_IN(WHERE(job)) + job.x;
    IF_VALUES(__global const radix_value *src_values = VALUES_IN(WHERE(job)) + job.x;)
    for (uint t = 0; t < len; ++t) {
        keys[t] = src[t];
        images[t] = masked_image(keys[t], begin_bit, job.z, KEY_ORDER);
        IF_VALUES(values[t] = src_values[t];)
    }
    for (uint t = 0; t < len; ++t) {
        uint place = 0;
        for (uint u = 0; u < len; ++u)
            place += images[u] < images[t] || (images[u] == images[t] && u < t);
        primary[job.x + place] = keys[t];
        IF_VALUES(primary_values[job.x + place] = values[t];)
    }
}

#if SMALL_N
/* Local jobs: a work-group sorts one at a time in local memory (local_sort or sort_tile) and
   writes it to the primary buffers. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_local(BUFFER_ARGS, LIST_ARGS, uint begin_bit, KEY_ORDER_ARGS, uint budget, uint most)
{
#if WG == 1
    __local radix_key keys_a[SMALL_N], keys_b[SMALL_N];
    IF_VALUES(__local radix_value values_a[SMALL_N], values_b[SMALL_N];)
    __local uint counters[RANK_COUNTERS];
#else
    __local tile_scratch s;  /* SMALL_N is at most a tile (tuning.c) */
    const uint first = get_local_id(0) * KPT;
#endif
    __local uint next;
    const uint count = list_count(state, STATE_COUNT(LIST_LOCAL), cap);
    for (uint j, spent = 0; (j = take_job(state, LIST_LOCAL, count, budget, most, spent, &next)) < count;
         spent += most) {
        const seg_job job = *LIST_AT(LIST_LOCAL, j);
        const uint len = min(job.y - job.x, (uint)SMALL_N);
        __global const radix_key *src = KEYS_IN(WHERE(job)) + job.x;
        IF_VALUES(__global const radix_value *src_values = VALUES_IN(WHERE(job)) + job.x;)
#if WG == 1
        for (uint t = 0; t < len; ++t) {
            keys_a[t] = src[t];
            IF_VALUES(values_a[t] = src_values[t];)
        }
        const int in_b = local_sort(keys_a, keys_b, IF_VALUES(values_a, values_b,) len, begin_bit, job.z, KEY_ORDER,
                                    counters);
        __local const radix_key *sorted = in_b ? keys_b : keys_a;
        IF_VALUES(__local const radix_value *sorted_values = in_b ? values_b : values_a;)
        for (uint t = 0; t < len; ++t) {
            primary[job.x + t] = sorted[t];
            IF_VALUES(primary_values[job.x + t] = sorted_values[t];)
        }
#else
        radix_key key[KPT];
        IF_VALUES(radix_value value[KPT];)
        load_tile(src, IF_VALUES(src_values,) len, key IF_VALUES(, value));
        sort_tile(key, IF_VALUES(value,) len, begin_bit, job.z, KEY_ORDER, &s);
        for (uint k = 0; k < KPT; ++k)
            if (first + k < len) {
                primary[job.x + first + k] = key[k];
                IF_VALUES(primary_values[job.x + first + k] = value[k];)
            }
#endif
    }
}
#endif

/*
 * Medium jobs: a work-group sorts one at a time by LSD digit passes over the job's bits
 * [begin_bit, job.z) (digits clipped at job.z, which need not lie on a digit boundary:
 * top_digit) between the job's ranges of the two buffers (which stay in a CPU core's
 * cache); a digit in which every key is the same is skipped. The result is copied to the
 * primary buffers if the last pass left it in the secondary ones.
 */
#if WG == 1
/* One work-item per group (CPUs): one read counts every digit of the job, then each pass
   that moves data puts each key straight to its slot in order, so stably; plain loops
   without barriers (the tile version costs POCL seconds to compile). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_medium(BUFFER_ARGS, LIST_ARGS, uint begin_bit, KEY_ORDER_ARGS, uint budget, uint most)
{
    __local uint next_slot[PASSES * RADIX];  /* pass p's counts, then slots, at p * RADIX */
    const uint count = list_count(state, STATE_COUNT(LIST_MEDIUM), cap);
    for (uint j, spent = 0; spent <= budget - most && (j = atomic_inc(&state[STATE_NEXT(LIST_MEDIUM)])) < count;
         spent += most) {
        const seg_job job = *LIST_AT(LIST_MEDIUM, j);
        const uint len = job.y - job.x, digits = digits_below(begin_bit, job.z);
        uint where = WHERE(job);
        for (uint i = 0; i < PASSES * RADIX; ++i)
            next_slot[i] = 0;
        __global const radix_key *keys = KEYS_IN(where) + job.x;
        for (uint t = 0; t < len; ++t) {
            const radix_key image = masked_image(keys[t], begin_bit, job.z, KEY_ORDER);
#pragma unroll
            for (uint p = 0; p < PASSES; ++p)  /* every pass's row: a loop the compiler unrolls */
                ++next_slot[p * RADIX + ((uint)(image >> (p * RADIX_BITS)) & (RADIX - 1))];
        }
        for (uint p = 0; p < digits; ++p) {
            const digit_spec spec = pass_digit(p, begin_bit, job.z, KEY_ORDER);
            __local uint *slot = next_slot + p * RADIX;
            if (counts_to_slots(slot, RADIX, len))
                continue;
            __global const radix_key *src = KEYS_IN(where) + job.x;
            __global radix_key *dst = KEYS_IN(!where) + job.x;
            IF_VALUES(__global const radix_value *src_values = VALUES_IN(where) + job.x;
                      __global radix_value *dst_values = VALUES_IN(!where) + job.x;)
            /* (slots past len: only overlapping jobs can count other keys than they move) */
            if (digits_in_lockstep_global(src, len, spec))
                scatter_by_lines_global(src, dst, IF_VALUES(src_values, dst_values,) len, len, spec, slot);
            else
                scatter_plain_global(src, dst, IF_VALUES(src_values, dst_values,) len, len, spec, slot);
            where = !where;
        }
        if (where)
            for (uint t = job.x; t < job.y; ++t) {
                primary[t] = secondary[t];
                IF_VALUES(primary_values[t] = secondary_values[t];)
            }
    }
}
#else
/* Several work-items: a tile at a time, as a global pass does. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_medium(BUFFER_ARGS, LIST_ARGS, uint begin_bit, KEY_ORDER_ARGS, uint budget, uint most)
{
    __local tile_scratch s;
    __local uint counts[PAD(RADIX)];
    __local uint next, trivial;
    const uint lid = get_local_id(0), count = list_count(state, STATE_COUNT(LIST_MEDIUM), cap);
    for (uint j, spent = 0; (j = take_job(state, LIST_MEDIUM, count, budget, most, spent, &next)) < count;
         spent += most) {
        const seg_job job = *LIST_AT(LIST_MEDIUM, j);
        const uint len = job.y - job.x;
        uint where = WHERE(job);
        for (uint p = 0, digits = digits_below(begin_bit, job.z); p < digits; ++p) {
            const digit_spec spec = pass_digit(p, begin_bit, job.z, KEY_ORDER);
            __global const radix_key *src = KEYS_IN(where) + job.x;
            IF_VALUES(__global const radix_value *src_values = VALUES_IN(where) + job.x;)
            /* Everyone has read trivial and counts of the pass before, and its keys are in
               global memory for the others to read (a global fence: the passes hand the
               job's keys from work-item to work-item). */
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            for (uint d = lid; d < RADIX; d += WG)
                counts[PAD(d)] = 0;
            if (lid == 0)
                trivial = 0;
            barrier(CLK_LOCAL_MEM_FENCE);  /* the counters are zero */
            for (uint t = lid; t < len; t += WG)
                atomic_inc(&counts[PAD(digit_of(src[t], spec))]);
            barrier(CLK_LOCAL_MEM_FENCE);  /* every key is counted */
            for (uint d = lid; d < RADIX; d += WG)
                if (counts[PAD(d)] == len)
                    trivial = 1;  /* one digit holds every key: one writer */
            group_exclusive_scan(counts, RADIX);  /* its barriers also publish trivial */
            if (!trivial) {  /* the same for every work-item */
                for (uint d = lid; d < RADIX; d += WG)
                    s.digit_next[d] = job.x + counts[PAD(d)];
                scatter_range(src, IF_VALUES(src_values,) len, spec, &s, job.y, KEYS_IN(!where)
                              IF_VALUES(, VALUES_IN(!where)), 0, spec, 0);
                where = !where;
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);  /* the last pass's keys are written */
        if (where)
            for (uint t = lid; t < len; t += WG) {
                primary[job.x + t] = secondary[job.x + t];
                IF_VALUES(primary_values[job.x + t] = secondary_values[job.x + t];)
            }
    }
}
#endif

/* Jobs with nothing left to sort whose keys lie in the secondary buffers: copied to the
   primary ones, a work-group per job at a time. */
__kernel void seg_copy(BUFFER_ARGS, LIST_ARGS, uint budget, uint most)
{
    __local uint next;
    const uint count = list_count(state, STATE_COUNT(LIST_COPY), cap), size = get_local_size(0);
    for (uint j, spent = 0; (j = take_job(state, LIST_COPY, count, budget, most, spent, &next)) < count;) {
        const seg_job job = *LIST_AT(LIST_COPY, j);
        spent += min((job.y - job.x) / size + 3, most);  /* its loops, at most `most` (0 without a budget) */
#if WG == 1
        /* CPUs run a group's work-items one after another: each copies a contiguous share,
           where with a stride every one of them would walk the whole job (4x slower on POCL). */
        const uint len = job.y - job.x, share = len / size + 1;
        const ulong from = min((ulong)get_local_id(0) * share, (ulong)len), to = min(from + share, (ulong)len);
        for (uint t = job.x + (uint)from; t < job.x + (uint)to; ++t) {
#else
        for (uint t = loop_start(job.x, get_local_id(0), job.y); t < job.y; t = loop_next(t, size, job.y)) {
#endif
            primary[t] = secondary[t];
            IF_VALUES(primary_values[t] = secondary_values[t];)
        }
    }
}
