/*
 * Small arrays in one launch: a single work-group loads all n <= SMALL_N keys (and
 * values) into local memory, runs every pass there as RANK_BITS-wide ranking rounds
 * (a round in which every key has the same digit moves nothing), and writes the result
 * back. Argsort starts the values as the indices and leaves the keys where they were.
 */
#if SMALL_N
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_sort_small(__global radix_key *keys, IF_VALUES(__global radix_value *values,)
                      uint n, uint begin_bit, uint end_bit, radix_key pos_xor, radix_key neg_xor, uint argsort)
{
    __local radix_key keys_a[PAD(SMALL_N)], keys_b[PAD(SMALL_N)];
    IF_VALUES(__local radix_value values_a[PAD(SMALL_N)], values_b[PAD(SMALL_N)];)
    __local uint counters[PAD(RANK_RADIX * WG)];
    __local uint moved;
    const uint lid = get_local_id(0), chunk = (n + WG - 1) / WG;

    for (uint t = lid; t < n; t += WG) {
        keys_a[PAD(t)] = keys[t];
#if VALUE_SIZE == 4
        values_a[PAD(t)] = argsort ? t : values[t];
#elif VALUE_SIZE == 8
        if (argsort) {  /* a u64 index in the device's byte order, word by word (see radix_iota) */
            __local uint *words = (__local uint *)&values_a[PAD(t)];
            words[INDEX_LOW_WORD] = t;
            words[1 - INDEX_LOW_WORD] = 0;
        } else {
            values_a[PAD(t)] = values[t];
        }
#elif VALUE_SIZE
        values_a[PAD(t)] = values[t];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* everything is loaded */

    /* Ranking rounds between the two buffers: a round that moves the keys swaps the roles. */
    __local radix_key *sorted = keys_a, *spare = keys_b;
    IF_VALUES(__local radix_value *sorted_values = values_a, *spare_values = values_b;)
    for (uint shift = begin_bit; shift < end_bit; shift += RANK_BITS) {
        const digit_spec sub = { pos_xor, neg_xor, shift, (1u << min((uint)RANK_BITS, end_bit - shift)) - 1 };
        if (rank_round(sorted, spare, IF_VALUES(sorted_values, spare_values,) n, chunk, sub, counters, &moved, 0)) {
            __local radix_key *swap = sorted;
            sorted = spare;
            spare = swap;
            IF_VALUES(__local radix_value *swap_values = sorted_values; sorted_values = spare_values;
                      spare_values = swap_values;)
        }
    }

    for (uint t = lid; t < n; t += WG) {
        if (!argsort)
            keys[t] = sorted[PAD(t)];
        IF_VALUES(values[t] = sorted_values[PAD(t)];)
    }
}
#endif
