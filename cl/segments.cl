/*
 * The segmented-sort engine: many independent sorts (segments) in a number of launches
 * that does not depend on how many there are or how large each is. Every segment becomes
 * a job [begin, end) with the bits [begin_bit, job end bit) still to sort, whose keys
 * lie in the primary buffers (the caller's) or the secondary ones (temporaries). Jobs
 * are binned by size on the device into lists, one per class:
 *   tiny    up to TINY_N keys: one work-item each, ranked by counting in private memory;
 *   local   up to SMALL_N keys: one work-group each, sorted in local memory;
 *   medium  up to medium_n keys (a kernel argument, about a core's cache): one work-group
 *           each, digit passes between the job's ranges of the two buffers;
 *   large   the rest: all large jobs of a level are partitioned together, every job cut
 *           into blocks that work-groups count and scatter in parallel (as a global pass),
 *           by its most significant digit that varies; each bucket is a job of the next
 *           level with fewer bits left, binned again. A level per digit at most;
 *   copy    jobs with nothing left to sort whose keys lie in the secondary buffers, in
 *           pieces of at most copy_chunk keys (a kernel argument).
 * Lists are filled with atomic counters, so a list's order varies from run to run, but
 * jobs never overlap and each is sorted stably, so the result does not. The host sizes
 * every list and table for the worst case and never reads them.
 *
 * Jobs are uint4: x begin, y end, z the end of the bits left to sort, w 1 when the keys
 * lie in the secondary buffers.
 */
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
   one on the list of `level`. Jobs past a list's capacity are dropped: only offsets that
   overlap (decreasing ones) make more jobs than the host planned for, and their result is
   unspecified. */
void emit_job(LIST_ARGS, uint level, uint begin, uint end, uint begin_bit, uint end_bit, uint where, uint medium_n,
              uint copy_chunk)
{
    const uint len = end - begin, done = len < 2 || end_bit <= begin_bit;
    if (len == 0 || (done && !where))
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
                    : len <= medium_n || level >= PASSES ? LIST_MEDIUM : LIST_LARGE;
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
#define KEYS_IN(where) ((where) ? secondary : primary)
#define VALUES_IN(where) ((where) ? secondary_values : primary_values)

/* Clears the state (words of it) before anything else: a kernel rather than
   clEnqueueFillBuffer, whose zeros oclgrind 21.10 takes for uninitialised memory. */
__kernel void seg_start(__global uint *state, uint words)
{
    for (uint i = get_local_id(0); i < words; i += get_local_size(0))
        state[i] = 0;
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

/* Folds a key's image into a block's OR and AND, and counts its top digit in `copy`. */
void count_image(radix_key image, digit_spec top, __local uint *copy, radix_key *any, radix_key *all)
{
    *any |= image;
    *all &= image;
    count_digit(copy, (uint)(image >> top.shift) & top.mask);
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
 * branch (POCL miscompiles some that are): a hole counts no keys.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_histogram(__global const radix_key *primary, __global const radix_key *secondary, LIST_ARGS, uint level,
                   uint block_len, uint begin_bit, KEY_ORDER_ARGS,
                   __global const uint2 *blocks, uint max_blocks, __global const uint2 *job_blocks,
                   __global radix_key *bits, __global uint *table)
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
        const digit_spec top = top_digit(begin_bit, job.z, KEY_ORDER);
        __global const radix_key *keys = KEYS_IN(job.w) + begin;

        barrier(CLK_LOCAL_MEM_FENCE);  /* the previous block's counts and bits are read */
        for (uint i = lid; i < COUNT_COPIES * (RADIX + 1); i += WG)
            counts[i] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);  /* counters are zero before anyone counts */
        radix_key any = 0, all = ~(radix_key)0;
#if WG == 1
        uint i = 0;
        for (; count - i >= COUNT_COPIES; i += COUNT_COPIES)  /* key i + c to copy c */
#pragma unroll
            for (uint c = 0; c < COUNT_COPIES; ++c)
                count_image(image_of(keys[i + c], KEY_ORDER), top, counts + c * (RADIX + 1), &any, &all);
        for (; i < count; ++i)
            count_image(image_of(keys[i], KEY_ORDER), top, counts, &any, &all);
#else
        __local uint *mine = counts + (lid % COUNT_COPIES) * (RADIX + 1);
        for (uint i = lid; i < count; i += WG)
            count_image(image_of(keys[i], KEY_ORDER), top, mine, &any, &all);
#endif
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

/*
 * One work-item per large job: which of its bits vary, from its blocks' OR and AND. None
 * (all keys equal in the bits left): the job is done. Some in its top digit (top_digit):
 * it partitions by that digit, whose counts seg_histogram has put in the table (chosen[j]
 * = 0). Only lower ones: the job goes unmoved to the next level with the bits above its
 * highest that varies dropped, to be counted there (chosen[j] = NO_DIGIT, as for a done
 * job).
 */
__kernel void seg_decide(LIST_ARGS, uint level, uint begin_bit, uint medium_n, uint copy_chunk,
                         __global const uint2 *job_blocks, __global const radix_key *bits, __global uint *chosen)
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
    const uint pick = varying && highest >= top_digit_shift(begin_bit, job.z) ? 0 : NO_DIGIT;
    chosen[j] = pick;
    if (!varying)  /* done: only where it lies may need a copy */
        emit_job(LIST_PASS, level + 1, job.x, job.y, begin_bit, begin_bit, job.w, medium_n, copy_chunk);
    else if (pick == NO_DIGIT)  /* still large: to the next level, unmoved */
        emit_job(LIST_PASS, level + 1, job.x, job.y, begin_bit, highest + 1, job.w, medium_n, copy_chunk);
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
                 __global const uint *chosen, __global const uint *table)
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
        const digit_spec spec = top_digit(begin_bit, job.z, KEY_ORDER);
        for (uint d = lid; d < RADIX && !idle; d += WG) {  /* digit_next[d]: this work-item's alone */
            s.digit_next[d] = job.x + table[jb.x * RADIX + d * jb.y + block.y] - base;
            if (block.y == 0) {
                const uint start = table[jb.x * RADIX + d * jb.y] - base;
                const uint stop = d + 1 < RADIX ? table[jb.x * RADIX + (d + 1) * jb.y] - base : len;
                emit_job(LIST_PASS, level + 1, job.x + start, job.x + stop, begin_bit, spec.shift, !job.w, medium_n,
                         copy_chunk);
            }
        }

        const uint begin = job.x + block.y * block_len, count = idle ? 0 : min(block_len, job.y - begin);
        scatter_range(KEYS_IN(job.w) + begin, IF_VALUES(VALUES_IN(job.w) + begin,) count, spec, &s, job.y,
                      KEYS_IN(!job.w) IF_VALUES(, VALUES_IN(!job.w)), 0, spec, 0);
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
    __global const radix_key *src = KEYS_IN(job.w) + job.x;
    IF_VALUES(__global const radix_value *src_values = VALUES_IN(job.w) + job.x;)
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
        __global const radix_key *src = KEYS_IN(job.w) + job.x;
        IF_VALUES(__global const radix_value *src_values = VALUES_IN(job.w) + job.x;)
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
        uint where = job.w;
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
        uint where = job.w;
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
