/*
 * Downsweep of one digit pass: each work-group re-reads its block tile by tile and
 * writes every key to
 *   offsets[digit * groups + group]           first slot of the digit for this block
 *   + keys of that digit in earlier tiles      (digit_next keeps the running slot)
 *   + its stable rank among the tile's keys of that digit.
 * Ranks come from counting, never from comparing keys: each work-item counts the digits
 * of its KPT consecutive keys in its own column of counters[digit][work_item]; an
 * exclusive scan of the counters, digit-major, gives each (digit, work-item) the rank of
 * its first key in the tile, and the work-item's running count ranks the others.
 */

#if SCATTER == 1
/* Ranks the tile's keys and writes each straight to its slot. src and dst point at the tile's
   first key; the tile holds valid keys. */
void scatter_tile_direct(__global const radix_key *src_keys, __global radix_key *dst_keys,
                         IF_VALUES(__global const radix_value *src_values, __global radix_value *dst_values,)
                         uint valid, digit_spec spec,
                         __local uint *counters, __local uint *digit_next, __local uint *digit_base)
{
    const uint lid = get_local_id(0);
    for (uint d = 0; d < RADIX; ++d)
        counters[d * WG + lid] = 0;
    for (uint k = 0; k < KPT; ++k) {
        const uint t = lid * KPT + k;
        if (t < valid)
            ++counters[digit_of(src_keys[t], spec) * WG + lid];
    }
    group_exclusive_scan(counters, RADIX * WG);

    /* Only the owner of digit d (d % WG == lid) touches digit_next[d]. */
    for (uint d = lid; d < RADIX; d += WG) {
        const uint begin = counters[d * WG], end = d + 1 < RADIX ? counters[(d + 1) * WG] : valid;
        digit_base[d] = digit_next[d] - begin;  /* slot of the tile's first key of d, less its rank */
        digit_next[d] += end - begin;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* digit_base is complete */

    for (uint k = 0; k < KPT; ++k) {
        const uint t = lid * KPT + k;
        if (t < valid) {
            const radix_key key = src_keys[t];
            const uint d = digit_of(key, spec);
            const uint slot = digit_base[d] + counters[d * WG + lid]++;
            dst_keys[slot] = key;
            IF_VALUES(dst_values[slot] = src_values[t];)
        }
    }
}

#else
/* Sorts the tile by digit in local memory (RANK_ROUNDS stable rounds of RANK_BITS, lowest
   first), then writes it out digit run by digit run. */
void scatter_tile_sorted(__global const radix_key *src_keys, __global radix_key *dst_keys,
                         IF_VALUES(__global const radix_value *src_values, __global radix_value *dst_values,)
                         uint valid, digit_spec spec,
                         __local radix_key *tile_keys, IF_VALUES(__local radix_value *tile_values,)
                         __local uint *counters, __local uint *digit_next,
                         __local uint *digit_begin, __local uint *digit_end)
{
    const uint lid = get_local_id(0);
    for (uint t = lid; t < valid; t += WG) {
        tile_keys[t] = src_keys[t];
        IF_VALUES(tile_values[t] = src_values[t];)
    }

    for (uint round = 0; round < RANK_ROUNDS; ++round) {
        const digit_spec sub = { spec.pos_xor, spec.neg_xor, spec.shift + round * RANK_BITS,
                                 (spec.mask >> (round * RANK_BITS)) & (RANK_RADIX - 1) };
        radix_key keys[KPT];
        IF_VALUES(radix_value values[KPT];)
        uint sub_digit[KPT], rank[KPT];

        for (uint s = 0; s < RANK_RADIX; ++s)
            counters[s * WG + lid] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);  /* the tile (loaded, or reordered last round) is complete */

        /* Positions past valid are never counted: nothing of the tile lies there. */
        for (uint k = 0; k < KPT; ++k) {
            const uint t = lid * KPT + k;
            if (t < valid) {
                keys[k] = tile_keys[t];
                IF_VALUES(values[k] = tile_values[t];)
                sub_digit[k] = digit_of(keys[k], sub);
                rank[k] = counters[sub_digit[k] * WG + lid]++;
            }
        }
        group_exclusive_scan(counters, RANK_RADIX * WG);  /* also: everyone has read the tile */

        for (uint k = 0; k < KPT; ++k) {
            const uint t = lid * KPT + k;
            if (t < valid) {
                const uint slot = counters[sub_digit[k] * WG + lid] + rank[k];
                tile_keys[slot] = keys[k];
                IF_VALUES(tile_values[slot] = values[k];)
            }
        }
    }

    for (uint d = lid; d < RADIX; d += WG)
        digit_begin[d] = digit_end[d] = 0;  /* digits absent from the tile have no keys */
    barrier(CLK_LOCAL_MEM_FENCE);  /* the tile is sorted and the bounds are cleared */

    for (uint t = lid; t < valid; t += WG) {
        const uint d = digit_of(tile_keys[t], spec);
        if (t == 0 || digit_of(tile_keys[t - 1], spec) != d)
            digit_begin[d] = t;
        if (t == valid - 1 || digit_of(tile_keys[t + 1], spec) != d)
            digit_end[d] = t + 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* every digit's bounds are known */

    for (uint t = lid; t < valid; t += WG) {
        const radix_key key = tile_keys[t];
        const uint d = digit_of(key, spec);
        const uint slot = digit_next[d] + (t - digit_begin[d]);
        dst_keys[slot] = key;
        IF_VALUES(dst_values[slot] = tile_values[t];)
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* the tile and digit_next were read before they change */

    for (uint d = lid; d < RADIX; d += WG)
        digit_next[d] += digit_end[d] - digit_begin[d];
}
#endif

/* The first eight arguments are the histogram's. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_scatter(__global const radix_key *src_keys, uint n, uint block_len,
                   uint shift, uint digit_mask, radix_key pos_xor, radix_key neg_xor,
                   __global const uint *offsets, __global radix_key *dst_keys
                   IF_VALUES(, __global const radix_value *src_values, __global radix_value *dst_values))
{
#if SCATTER == 1
    __local uint counters[RADIX * WG];
    __local uint digit_base[RADIX];
#else
    __local radix_key tile_keys[TILE];
    IF_VALUES(__local radix_value tile_values[TILE];)
    __local uint counters[RANK_RADIX * WG];
    __local uint digit_begin[RADIX], digit_end[RADIX];  /* each digit's run in the sorted tile */
#endif
    __local uint digit_next[RADIX];  /* output slot of the block's next key of each digit */

    const digit_spec spec = { pos_xor, neg_xor, shift, digit_mask };
    const uint lid = get_local_id(0), group = get_group_id(0), groups = get_num_groups(0);
    const uint count = block_count(n, block_len);

    for (uint d = lid; d < RADIX; d += WG)
        digit_next[d] = offsets[d * groups + group];

    const uint tiles = tiles_in(count);
    for (uint tile = 0; tile < tiles; ++tile) {
        const uint begin = group * block_len + tile * TILE, valid = min((uint)TILE, count - tile * TILE);
#if SCATTER == 1
        scatter_tile_direct(src_keys + begin, dst_keys, IF_VALUES(src_values + begin, dst_values,)
                            valid, spec, counters, digit_next, digit_base);
#else
        scatter_tile_sorted(src_keys + begin, dst_keys, IF_VALUES(src_values + begin, dst_values,)
                            valid, spec, tile_keys, IF_VALUES(tile_values,) counters, digit_next,
                            digit_begin, digit_end);
#endif
    }
}
