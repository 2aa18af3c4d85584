/*
 * Downsweep of one digit pass: each work-group re-reads its block tile by tile, sorts the
 * tile by digit in local memory (stably, by ranking: see rank_round), and writes every
 * key to
 *   offsets[digit * groups + group]            first slot of the digit for this block
 *   + keys of that digit from earlier tiles     (digit_next keeps the running slot)
 *   + its place in the tile's run of that digit.
 * Writing the sorted tile run by run turns the global writes into runs of consecutive
 * addresses: coalesced on GPUs, and on CPUs one stream at a time instead of RADIX.
 */

#if FUSED
/*
 * Counts the next pass's digits of the tile's keys [begin, begin + count), written to
 * out[slot .. slot + count), by the block of the next pass that each slot falls into.
 * (No division: the few blocks are stepped through, and oclgrind cannot follow the
 * freeze instruction that compilers emit for a division by a variable.)
 */
void count_next(__local const radix_key *tile, uint begin, uint count, uint slot, uint block_len, digit_spec next,
                __local uint *next_counts)
{
    uint block = 0, block_begin = 0;
    while (slot - block_begin >= block_len) {
        ++block;
        block_begin += block_len;
    }
    for (uint t = 0; t < count; ++t, ++slot) {
        if (slot - block_begin == block_len) {
            ++block;
            block_begin += block_len;
        }
#if WG == 1
        ++next_counts[digit_of(tile[PAD(begin + t)], next) * MAX_GROUPS + block];
#else
        atomic_inc(&next_counts[digit_of(tile[PAD(begin + t)], next) * MAX_GROUPS + block]);
#endif
    }
}
#endif

/*
 * Pass `pass` (see PLAN_* in common.cl): its first eight key arguments are the buffers it
 * may read or write; offsets is the scanned count table; with FUSED, partials receives
 * what this group wrote for each block of the next pass that moves data.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_scatter(__global const radix_key *input, __global radix_key *first, __global radix_key *second,
                   IF_VALUES(__global const radix_value *input_values, __global radix_value *first_values,
                             __global radix_value *second_values,)
                   uint n, uint block_len, uint pass, uint begin_bit, uint end_bit, KEY_ORDER_ARGS,
                   __global const uint *plan, __global const uint *offsets, __global uint *partials)
{
    __local radix_key tile_a[PAD(TILE)], tile_b[PAD(TILE)];
    IF_VALUES(__local radix_value values_a[PAD(TILE)], values_b[PAD(TILE)];)
    __local uint counters[PAD(RANK_COUNTERS)];
    __local uint digit_next[RADIX];     /* output slot of the block's next key of each digit */
    __local uint run_begin[PAD(RADIX)]; /* where each digit's run starts in the sorted tile */
    __local uint moved;
#if FUSED
    __local uint next_counts[RADIX * MAX_GROUPS];
#endif

    const uint j = plan[PLAN_PASS + pass];
    if (j == SKIPPED)
        return;
    const uint lid = get_local_id(0), group = get_group_id(0), groups = get_num_groups(0);
    const uint count = block_count(n, block_len);
    const digit_spec spec = pass_digit(pass, begin_bit, end_bit, KEY_ORDER);
    __global const radix_key *src = SOURCE(j, input, first, second) + group * block_len;
    __global radix_key *dst = TARGET(j, first, second);
    IF_VALUES(__global const radix_value *src_values = SOURCE(j, input_values, first_values, second_values)
                                                       + group * block_len;
              __global radix_value *dst_values = TARGET(j, first_values, second_values);)

    for (uint d = lid; d < RADIX; d += WG)
        digit_next[d] = offsets[d * groups + group];
#if FUSED
    const uint next_pass = plan[PLAN_NEXT + pass];
    const digit_spec next = pass_digit(next_pass == SKIPPED ? 0 : next_pass, begin_bit, end_bit, KEY_ORDER);
    for (uint i = lid; i < RADIX * MAX_GROUPS; i += WG)
        next_counts[i] = 0;
#endif

    for (uint tile = 0, tiles = tiles_in(count); tile < tiles; ++tile) {
        const uint offset = tile * TILE, valid = min((uint)TILE, count - offset);
        barrier(CLK_LOCAL_MEM_FENCE);  /* the previous tile is written out */
        for (uint t = lid; t < valid; t += WG) {
            tile_a[PAD(t)] = src[offset + t];
            IF_VALUES(values_a[PAD(t)] = src_values[offset + t];)
        }
        barrier(CLK_LOCAL_MEM_FENCE);  /* the tile is loaded: work-items rank keys others loaded */

        /* Rank rounds, lowest bits first, between the two tile buffers. */
        const int in_b = rank_tile(tile_a, tile_b, IF_VALUES(values_a, values_b,) valid, spec, counters, &moved,
                                   run_begin);
        __local const radix_key *sorted = in_b ? tile_b : tile_a;
        IF_VALUES(__local const radix_value *sorted_values = in_b ? values_b : values_a;)

#if WG == 1
        /* One work-item: copy each digit's run as a block. */
        for (uint d = 0; d < RADIX; ++d) {
            const uint begin = run_begin[PAD(d)], length = (d + 1 < RADIX ? run_begin[PAD(d + 1)] : valid) - begin;
            __global radix_key *out = dst + digit_next[d];
            for (uint t = 0; t < length; ++t) {
                out[t] = sorted[begin + t];
                IF_VALUES(dst_values[digit_next[d] + t] = sorted_values[begin + t];)
            }
#if FUSED
            if (next_pass != SKIPPED)
                count_next(sorted, begin, length, digit_next[d], block_len, next, next_counts);
#endif
            digit_next[d] += length;
        }
#else
        for (uint t = lid; t < valid; t += WG) {
            const radix_key key = sorted[PAD(t)];
            const uint d = digit_of(key, spec), slot = digit_next[d] + (t - run_begin[PAD(d)]);
            dst[slot] = key;
            IF_VALUES(dst_values[slot] = sorted_values[PAD(t)];)
#if FUSED
            if (next_pass != SKIPPED)
                count_next(sorted, t, 1, slot, block_len, next, next_counts);
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);  /* everyone has read digit_next and run_begin */
        for (uint d = lid; d < RADIX; d += WG)
            digit_next[d] += (d + 1 < RADIX ? run_begin[PAD(d + 1)] : valid) - run_begin[PAD(d)];
#endif
    }

#if FUSED
    barrier(CLK_LOCAL_MEM_FENCE);  /* every key is counted */
    if (next_pass != SKIPPED)
        for (uint d = lid; d < RADIX; d += WG)
            for (uint b = 0; b < groups; ++b)
                partials[(group * RADIX + d) * groups + b] = next_counts[d * MAX_GROUPS + b];
#endif
}
