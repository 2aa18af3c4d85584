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
    __local radix_key keys_a[SMALL_N], keys_b[SMALL_N];
    IF_VALUES(__local radix_value values_a[SMALL_N], values_b[SMALL_N];)
    __local uint counters[RANK_RADIX * WG];
    __local uint moved;
    const uint lid = get_local_id(0), chunk = (n + WG - 1) / WG;

    for (uint t = lid; t < n; t += WG) {
        keys_a[t] = keys[t];
#if VALUE_SIZE == 4
        values_a[t] = argsort ? t : values[t];
#elif VALUE_SIZE == 8
        if (argsort) {  /* a u64 index, low word first (little-endian device) */
            values_a[t].x = t;
            values_a[t].y = 0;
        } else {
            values_a[t] = values[t];
        }
#elif VALUE_SIZE
        values_a[t] = values[t];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* everything is loaded */

    int in_a = 1;
    for (uint shift = begin_bit; shift < end_bit; shift += RANK_BITS) {
        const digit_spec sub = { pos_xor, neg_xor, shift, (1u << min((uint)RANK_BITS, end_bit - shift)) - 1 };
        if (in_a ? rank_round(keys_a, keys_b, IF_VALUES(values_a, values_b,) n, chunk, sub, counters, &moved, 0)
                 : rank_round(keys_b, keys_a, IF_VALUES(values_b, values_a,) n, chunk, sub, counters, &moved, 0))
            in_a = !in_a;
    }

    __local const radix_key *sorted = in_a ? keys_a : keys_b;
    IF_VALUES(__local const radix_value *sorted_values = in_a ? values_a : values_b;)
    for (uint t = lid; t < n; t += WG) {
        if (!argsort)
            keys[t] = sorted[t];
        IF_VALUES(values[t] = sorted_values[t];)
    }
}
#endif
