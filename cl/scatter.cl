/*
 * Downsweep of one digit pass: each work-group re-reads its block tile by tile, orders the
 * tile by digit in local memory (stably, by ranking: scatter_tile), and writes every key to
 *   offsets[digit * groups + group]            first slot of the digit for this block
 *   + keys of that digit from earlier tiles     (digit_next keeps the running slot)
 *   + its place in the tile's run of that digit.
 * Writing the ordered tile run by run turns the global writes into runs of consecutive
 * addresses: coalesced on GPUs, and on CPUs one stream at a time instead of RADIX.
 */

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
    __local tile_scratch s;
#if FUSED
    __local uint next_counts[RADIX * MAX_GROUPS];
#endif

    const uint j = plan[PLAN_PASS + pass];
    if (j == SKIPPED)
        return;
    const uint lid = get_local_id(0), group = get_group_id(0), groups = get_num_groups(0);
    const digit_spec spec = pass_digit(pass, begin_bit, end_bit, KEY_ORDER);
    __global const radix_key *src = SOURCE(j, input, first, second) + group * block_len;
    IF_VALUES(__global const radix_value *src_values = SOURCE(j, input_values, first_values, second_values)
                                                       + group * block_len;)

    for (uint d = lid; d < RADIX; d += WG)
        s.digit_next[d] = offsets[d * groups + group];
#if FUSED
    const uint next_pass = plan[PLAN_NEXT + pass];
    const digit_spec next = pass_digit(next_pass == SKIPPED ? 0 : next_pass, begin_bit, end_bit, KEY_ORDER);
    for (uint i = lid; i < RADIX * MAX_GROUPS; i += WG)
        next_counts[i] = 0;  /* (scatter_tile reaches a barrier before it counts) */
    __local uint *counting = next_pass == SKIPPED ? 0 : next_counts;
#else
    const digit_spec next = spec;
    __local uint *counting = 0;
#endif
    scatter_range(src, IF_VALUES(src_values,) block_count(n, block_len), spec, &s, n, TARGET(j, first, second)
                  IF_VALUES(, TARGET(j, first_values, second_values)), counting, next, block_len);

#if FUSED
    barrier(CLK_LOCAL_MEM_FENCE);  /* every key is counted */
    if (next_pass != SKIPPED)
        for (uint d = lid; d < RADIX; d += WG)
            for (uint b = 0; b < groups; ++b)
                partials[(group * RADIX + d) * groups + b] = next_counts[d * MAX_GROUPS + b];
#endif
}
