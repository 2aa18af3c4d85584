/*
 * Small arrays in one launch: a single work-group loads all n <= SMALL_N keys (and
 * values), sorts them by every pass's digit in local memory (local_sort or sort_tile; a
 * digit in which every key is the same moves nothing), and writes the result back.
 * Argsort starts the values as the indices and leaves the keys where they were.
 */
#if SMALL_N
/* Value t of an argsort: index t, as a 4- or 8-byte index in the device's byte order. */
#if VALUE_SIZE == 4
radix_value index_value(uint t)
{
    return t;
}
#elif VALUE_SIZE == 8
radix_value index_value(uint t)
{
    return INDEX_LOW_WORD == 0 ? (radix_value)(t, 0) : (radix_value)(0, t);  /* element 0 lies first */
}
#endif

#if VALUE_SIZE == 4 || VALUE_SIZE == 8
#define LOAD_VALUE(values, t) (argsort ? index_value(t) : (values)[t])
#else
#define LOAD_VALUE(values, t) ((values)[t])
#endif

#if WG == 1
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_sort_small(__global radix_key *keys, IF_VALUES(__global radix_value *values,)
                      uint n, uint begin_bit, uint end_bit, KEY_ORDER_ARGS, uint argsort)
{
    __local radix_key keys_a[SMALL_N], keys_b[SMALL_N];
    IF_VALUES(__local radix_value values_a[SMALL_N], values_b[SMALL_N];)
    __local uint counters[RANK_COUNTERS];
    for (uint t = 0; t < n; ++t) {
        keys_a[t] = keys[t];
        IF_VALUES(values_a[t] = LOAD_VALUE(values, t);)
    }
    const int in_b = local_sort(keys_a, keys_b, IF_VALUES(values_a, values_b,) n, begin_bit, end_bit, KEY_ORDER,
                                counters);
    __local const radix_key *sorted = in_b ? keys_b : keys_a;
    IF_VALUES(__local const radix_value *sorted_values = in_b ? values_b : values_a;)
    for (uint t = 0; t < n; ++t) {
        if (!argsort)
            keys[t] = sorted[t];
        IF_VALUES(values[t] = sorted_values[t];)
    }
}
#else
/* Several work-items: SMALL_N is at most a tile (tuning.c), sorted as one (sort_tile). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_sort_small(__global radix_key *keys, IF_VALUES(__global radix_value *values,)
                      uint n, uint begin_bit, uint end_bit, KEY_ORDER_ARGS, uint argsort)
{
    __local tile_scratch s;
    const uint first = get_local_id(0) * KPT;
    radix_key key[KPT];
    IF_VALUES(radix_value value[KPT];)
    load_tile(keys, IF_VALUES(values,) n, key IF_VALUES(, value));
#if VALUE_SIZE == 4 || VALUE_SIZE == 8
    if (argsort)  /* the values are the indices */
        for (uint k = 0; k < KPT; ++k)
            value[k] = index_value(first + k);
#endif
    sort_tile(key, IF_VALUES(value,) n, begin_bit, end_bit, KEY_ORDER, &s);
    for (uint k = 0; k < KPT; ++k)
        if (first + k < n) {
            if (!argsort)
                keys[first + k] = key[k];
            IF_VALUES(values[first + k] = value[k];)
        }
}
#endif
#endif
