/*
 * Upsweep of one digit pass: each work-group counts the digits of its contiguous block
 * of keys and writes the counts digit-major: table[digit * groups + group].
 */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_histogram(__global const radix_key *keys, uint n, uint block_len,
                     uint shift, uint digit_mask, radix_key pos_xor, radix_key neg_xor,
                     __global uint *table)
{
    __local uint counts[HIST_COPIES * RADIX];  /* copy-major: counts[copy * RADIX + digit] */
    const uint lid = get_local_id(0), group = get_group_id(0), groups = get_num_groups(0);
    const digit_spec spec = { pos_xor, neg_xor, shift, digit_mask };
    const uint count = block_count(n, block_len);
    __global const radix_key *block = keys + group * block_len;
    __local uint *mine = counts + (lid % HIST_COPIES) * RADIX;

    for (uint i = lid; i < HIST_COPIES * RADIX; i += WG)
        counts[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);  /* counters are zero before anyone counts */

    const uint tiles = tiles_in(count);
    for (uint tile = 0; tile < tiles; ++tile) {
        const uint begin = tile * TILE, valid = min((uint)TILE, count - begin);
        for (uint k = 0; k < KPT; ++k) {
            const uint i = k * WG + lid;  /* neighbouring work-items read neighbouring keys */
            if (i < valid) {
                const uint d = digit_of(block[begin + i], spec);
#if HIST_COPIES == WG
                ++mine[d];  /* a copy of its own: no other work-item touches it */
#else
                atomic_inc(&mine[d]);
#endif
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* all keys counted */

    for (uint d = lid; d < RADIX; d += WG) {
        uint sum = 0;
        for (uint c = 0; c < HIST_COPIES; ++c)
            sum += counts[c * RADIX + d];
        table[d * groups + group] = sum;
    }
}
