/*
 * Upsweeps: each work-group counts the digits of its contiguous block of keys in local
 * counters and writes the counts digit-major, table[digit * groups + group], so that
 * one exclusive scan of the table gives each (digit, group) its first output slot.
 */

/* Sub-histograms lie one word further apart than their size, so that the same digit of
   different copies falls in different banks of GPU local memory. */
#define COPY_STRIDE(size) ((size) + 1)

/*
 * Before the first pass: one read of the keys counts the digits of every pass of the
 * sort, as each block's table for every pass, table_all[pass * RADIX * groups + digit *
 * groups + group], from which radix_plan decides which passes run and the first pass
 * that runs takes its table.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_histogram_all(__global const radix_key *keys, uint n, uint block_len, uint begin_bit, uint end_bit,
                         KEY_ORDER_ARGS, __global uint *table_all)
{
#define STRIDE_ALL COPY_STRIDE(PASSES * RADIX)
    __local uint counts[HIST_COPIES * STRIDE_ALL];  /* copy-major, then pass, then digit */
    const uint lid = get_local_id(0), group = get_group_id(0), groups = get_num_groups(0);
    const uint count = block_count(n, block_len), passes = (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS;
    __global const radix_key *block = keys + group * block_len;
    __local uint *mine = counts + (lid % HIST_COPIES) * STRIDE_ALL;

    for (uint i = lid; i < HIST_COPIES * STRIDE_ALL; i += WG)
        counts[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);  /* counters are zero before anyone counts */

    /* Passes past this sort's range count into their digit 0, which nobody reads, so that
       the loop below has a constant trip count and no branch. */
    uint shift[PASSES], mask[PASSES];
    for (uint p = 0; p < PASSES; ++p) {
        const digit_spec spec = pass_digit(min(p, passes - 1), begin_bit, end_bit, KEY_ORDER);
        shift[p] = spec.shift;
        mask[p] = p < passes ? spec.mask : 0;
    }
    for (uint tile = 0, tiles = tiles_in(count); tile < tiles; ++tile) {
        const uint begin = tile * TILE, valid = min((uint)TILE, count - begin);
        for (uint k = 0; k < KPT; ++k) {
            const uint i = k * WG + lid;  /* neighbouring work-items read neighbouring keys */
            if (i < valid) {
                const radix_key image = image_of(block[begin + i], KEY_ORDER);
#pragma unroll
                for (uint p = 0; p < PASSES; ++p)
                    count_digit(mine + p * RADIX, (uint)(image >> shift[p]) & mask[p]);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* all keys counted */

    for (uint i = lid; i < passes * RADIX; i += WG) {
        uint sum = 0;
        for (uint c = 0; c < HIST_COPIES; ++c)
            sum += counts[c * STRIDE_ALL + i];
        table_all[i * groups + group] = sum;  /* i = pass * RADIX + digit */
    }
}

/*
 * Upsweep of pass `pass` when it is not the first to move data and the scatter before it
 * did not count for it (FUSED 0): reads the keys where the previous pass left them.
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_histogram(__global const radix_key *first, __global const radix_key *second, uint n, uint block_len,
                     uint pass, uint begin_bit, uint end_bit, KEY_ORDER_ARGS,
                     __global const uint *plan, __global uint *table)
{
    const uint j = plan[PLAN_PASS + pass];
    if (j == SKIPPED || j == 0)
        return;  /* nothing to do, or radix_scan_pass reads radix_histogram_all's counts */

    __local uint counts[HIST_COPIES * COPY_STRIDE(RADIX)];  /* copy-major, then digit */
    const uint lid = get_local_id(0), group = get_group_id(0), groups = get_num_groups(0);
    const uint count = block_count(n, block_len);
    const digit_spec spec = pass_digit(pass, begin_bit, end_bit, KEY_ORDER);
    __global const radix_key *block = SOURCE(j, first, first, second) + group * block_len;
    __local uint *mine = counts + (lid % HIST_COPIES) * COPY_STRIDE(RADIX);

    for (uint i = lid; i < HIST_COPIES * COPY_STRIDE(RADIX); i += WG)
        counts[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);  /* counters are zero before anyone counts */

    for (uint tile = 0, tiles = tiles_in(count); tile < tiles; ++tile) {
        const uint begin = tile * TILE, valid = min((uint)TILE, count - begin);
        for (uint k = 0; k < KPT; ++k) {
            const uint i = k * WG + lid;
            if (i < valid)
                count_digit(mine, digit_of(block[begin + i], spec));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* all keys counted */

    for (uint d = lid; d < RADIX; d += WG) {
        uint sum = 0;
        for (uint c = 0; c < HIST_COPIES; ++c)
            sum += counts[c * COPY_STRIDE(RADIX) + d];
        table[d * groups + group] = sum;
    }
}
