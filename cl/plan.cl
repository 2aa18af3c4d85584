/*
 * The decisions that depend on the data, made on the device (see PLAN_* in common.cl):
 * which passes run, where each table comes from, and whether the result must be copied
 * back to the caller's buffers at the end.
 */

/*
 * One work-item per pass and digit: whether that digit holds all n keys, its counts summed
 * over the blocks of radix_histogram_all's table (one work-item per digit rather than a
 * group's loop over them all: where loops are budgeted, loops.c, blocks are many).
 */
__kernel void radix_trivial(__global const uint *table_all, uint n, uint passes, uint groups, __global uint *plan)
{
    const uint i = get_global_id(0);  /* pass * RADIX + digit */
    if (i >= passes * RADIX)
        return;
    __global const uint *counts = table_all + i * groups;
    uint total = 0;
    for (uint g = 0; g < groups; ++g)
        total += counts[g];
    plan[PLAN_TRIVIAL + i] = total == n;
}

/*
 * One work-group: a pass in which one digit holds all n keys changes nothing and is
 * skipped (radix_trivial has marked that digit).
 */
__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
void radix_plan(uint passes, __global uint *plan)
{
    __local uint trivial[PASSES];
    const uint lid = get_local_id(0);
    for (uint p = lid; p < PASSES; p += SCAN_WG)
        trivial[p] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);  /* the flags are clear */
    for (uint p = 0; p < passes; ++p)
        for (uint d = lid; d < RADIX; d += SCAN_WG)
            if (plan[PLAN_TRIVIAL + p * RADIX + d])
                trivial[p] = 1;  /* at most one digit of a pass holds every key: one writer */
    barrier(CLK_LOCAL_MEM_FENCE);  /* every pass is judged */
    if (lid != 0)
        return;
    uint executed = 0, previous = SKIPPED;
    for (uint p = 0; p < passes; ++p) {
        plan[PLAN_PASS + p] = trivial[p] ? SKIPPED : executed;
        plan[PLAN_NEXT + p] = SKIPPED;
        if (!trivial[p]) {
            if (previous != SKIPPED)
                plan[PLAN_NEXT + previous] = p;
            previous = p;
            ++executed;
        }
    }
    plan[PLAN_COUNT] = executed;
}

/* Entry i of pass `pass`'s count table (j: its index among executed passes), before its
   scan: for the first pass that moves data, its blocks' counts from radix_histogram_all;
   for later ones with FUSED, the sum over the previous scatter's groups of what each
   counted for the blocks it wrote (partials[source group * count + i]), else what
   radix_histogram counted into table. */
uint pass_count(uint i, uint j, uint pass, uint groups, __global const uint *table_all,
                __global const uint *partials, __global const uint *table)
{
    const uint count = RADIX * groups;
    if (j == 0)
        return table_all[pass * count + i];
#if FUSED
    uint sum = 0;
    for (uint source = 0; source < groups; ++source)
        sum += partials[source * count + i];
    return sum;
#else
    return table[i];
#endif
}

/*
 * Pass `pass`'s count table, digit-major, turned into the first output slot of every
 * (digit, group) by one exclusive scan, in one launch of one work-group (raking: each
 * work-item sums a contiguous share of the entries, one scan of those sums, each pushes
 * its prefix through its share). Nothing for a skipped pass.
 */
__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
void radix_scan_pass(uint pass, uint groups, __global const uint *plan, __global const uint *table_all,
                     __global const uint *partials, __global uint *table)
{
    __local uint sums[PAD(SCAN_WG)];
    const uint j = plan[PLAN_PASS + pass];
    /* (No return before the barriers of the scan: POCL 3.1 miscompiles this kernel with one.) */
    const uint count = j == SKIPPED ? 0 : RADIX * groups, lid = get_local_id(0);
    const uint share = (count + SCAN_WG - 1) / SCAN_WG;
    const uint first = min(lid * share, count), last = min(first + share, count);
    uint sum = 0;
    for (uint i = first; i < last; ++i)
        sum += pass_count(i, j, pass, groups, table_all, partials, table);
    sums[PAD(lid)] = sum;
    group_exclusive_scan(sums, SCAN_WG);
    uint prefix = sums[PAD(lid)];
    for (uint i = first; i < last; ++i) {
        const uint c = pass_count(i, j, pass, groups, table_all, partials, table);
        table[i] = prefix;
        prefix += c;
    }
}

/*
 * After the last pass: executed pass j writes temporary 1 when j is even, so an odd
 * number of passes leaves the result there, and it is copied to the caller's buffers
 * (the keys unless copy_keys is 0: argsort leaves them where they were). A grid of a few
 * keys per work-item strides over them: often there is nothing to copy.
 */
__kernel void radix_copy_back(__global const uint *plan, uint n, uint copy_keys,
                              __global const radix_key *sorted_keys, __global radix_key *keys
                              IF_VALUES(, __global const radix_value *sorted_values, __global radix_value *values))
{
    if (plan[PLAN_COUNT] % 2 == 0)
        return;
    const uint step = get_global_size(0);
    for (uint i = loop_start(0, get_global_id(0), n); i < n; i = loop_next(i, step, n)) {
        if (copy_keys)
            keys[i] = sorted_keys[i];
        IF_VALUES(values[i] = sorted_values[i];)
    }
}
