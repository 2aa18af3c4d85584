/* Argsort: fills the values with their indices 0 .. n-1 before the first pass. */
#if VALUE_SIZE == 4 || VALUE_SIZE == 8
__kernel void radix_iota(__global radix_value *values, uint n)
{
    const uint i = get_global_id(0);  /* one index per work-item: the fastest copy loop on CPUs too */
    if (i >= n)
        return;
#if VALUE_SIZE == 4
    values[i] = i;
#else
    /* A u64 index in the device's byte order. Stored as two words, since oclgrind takes
       the vector (uint2)(i, 0) for a partly uninitialised value. */
    __global uint *words = (__global uint *)(values + i);
    words[INDEX_LOW_WORD] = i;
    words[1 - INDEX_LOW_WORD] = 0;
#endif
}
#endif
