/*
 * Exclusive scan of the digit-count table, which turns counts into the first output
 * slot of every (digit, group). Multi-level: radix_scan scans tiles of 2 * SCAN_WG
 * entries and writes each tile's total to tile_sums; the host scans tile_sums the same
 * way, and radix_scan_add adds each tile's scanned total back to its entries.
 */
#define SCAN_TILE (2 * SCAN_WG)

__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
void radix_scan(__global uint *data, uint count, __global uint *tile_sums)
{
    __local uint tile[PAD(SCAN_TILE)];
    const uint lid = get_local_id(0), base = get_group_id(0) * SCAN_TILE;

    for (uint k = lid; k < SCAN_TILE; k += SCAN_WG)
        tile[PAD(k)] = base + k < count ? data[base + k] : 0;
    const uint total = group_exclusive_scan(tile, SCAN_TILE);
    for (uint k = lid; k < SCAN_TILE; k += SCAN_WG)
        if (base + k < count)
            data[base + k] = tile[PAD(k)];
    if (lid == 0)
        tile_sums[get_group_id(0)] = total;
}

__kernel __attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
void radix_scan_add(__global uint *data, uint count, __global const uint *tile_offsets)
{
    const uint base = get_group_id(0) * SCAN_TILE, add = tile_offsets[get_group_id(0)];
    for (uint k = get_local_id(0); k < SCAN_TILE; k += SCAN_WG)
        if (base + k < count)
            data[base + k] += add;
}
