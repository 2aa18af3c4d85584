/*
 * Small arrays in one launch: a single work-group loads all n <= SMALL_N keys (and
 * values) into local memory, runs every pass there as RANK_BITS-wide ranking rounds
 * (a round in which every key has the same digit moves nothing), and writes the result
 * back. Argsort starts the values as the indices and leaves the keys where they were.
 */
#if SMALL_N
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_sort_small(__global radix_key *keys, IF_VALUES(__global radix_value *values,)
                      uint n, uint begin_bit, uint end_bit, KEY_ORDER_ARGS, uint argsort)
{
    __local radix_key keys_a[PAD(SMALL_N)], keys_b[PAD(SMALL_N)];
    IF_VALUES(__local radix_value values_a[PAD(SMALL_N)], values_b[PAD(SMALL_N)];)
    __local uint counters[PAD(RANK_COUNTERS)];
    __local uint moved;
    const uint lid = get_local_id(0);

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

    const int in_b = local_sort(keys_a, keys_b, IF_VALUES(values_a, values_b,) n, begin_bit, end_bit, KEY_ORDER,
                                counters, &moved);
    __local const radix_key *sorted = in_b ? keys_b : keys_a;
    IF_VALUES(__local const radix_value *sorted_values = in_b ? values_b : values_a;)

    for (uint t = lid; t < n; t += WG) {
        if (!argsort)
            keys[t] = sorted[PAD(t)];
        IF_VALUES(values[t] = sorted_values[PAD(t)];)
    }
}
#endif
