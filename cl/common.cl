/*
 * Definitions shared by the radix-sort kernels. The host prepends this file to each
 * kernel file and sets the shape of the code with -D build options:
 *   KEY_BITS    32 or 64: width of a key
 *   VALUE_SIZE  0 (keys only), 4, 8 or 16: bytes of the value moved with each key
 *   RADIX_BITS  1..8: bits sorted per pass (RADIX digits)
 *   WG          work-items per group of the histogram and scatter kernels, a power of two
 *   KPT         keys each work-item ranks per tile (a tile is WG * KPT keys)
 *   RANK_BITS   1..RADIX_BITS: bits of the digit ranked per round inside a tile
 *   HIST_COPIES sub-histograms per work-group, a power of two up to WG; work-item i counts
 *               into copy i % HIST_COPIES, with local atomics unless it owns its copy
 *   SCATTER     1: write each key straight to its slot (one rank round, RANK_BITS ==
 *               RADIX_BITS); 2: sort each tile by digit in local memory first, so
 *               writes go out in runs of consecutive addresses
 *   SCAN_WG     work-items per group of the table scan, a power of two
 * What varies per call (digit shift and width, key transform, direction) comes in as
 * kernel arguments, so one program serves every key type of one width.
 */
#if !defined(KEY_BITS) || (KEY_BITS != 32 && KEY_BITS != 64)
#error "KEY_BITS must be 32 or 64"
#endif
#if !defined(VALUE_SIZE) || (VALUE_SIZE != 0 && VALUE_SIZE != 4 && VALUE_SIZE != 8 && VALUE_SIZE != 16)
#error "VALUE_SIZE must be 0, 4, 8 or 16"
#endif
#if !defined(RADIX_BITS) || RADIX_BITS < 1 || RADIX_BITS > 8
#error "RADIX_BITS must be 1..8"
#endif
#if !defined(WG) || WG < 1 || (WG & (WG - 1)) != 0
#error "WG must be a power of two"
#endif
#if !defined(KPT) || KPT < 1
#error "KPT must be at least 1"
#endif
#if !defined(RANK_BITS) || RANK_BITS < 1 || RANK_BITS > RADIX_BITS
#error "RANK_BITS must be 1..RADIX_BITS"
#endif
#if !defined(HIST_COPIES) || HIST_COPIES < 1 || HIST_COPIES > WG || (HIST_COPIES & (HIST_COPIES - 1)) != 0
#error "HIST_COPIES must be a power of two up to WG"
#endif
#if !defined(SCATTER) || (SCATTER != 1 && SCATTER != 2) || (SCATTER == 1 && RANK_BITS != RADIX_BITS)
#error "SCATTER must be 1 (with RANK_BITS == RADIX_BITS) or 2"
#endif
#if !defined(SCAN_WG) || SCAN_WG < 1 || (SCAN_WG & (SCAN_WG - 1)) != 0
#error "SCAN_WG must be a power of two"
#endif

#define RADIX (1u << RADIX_BITS)
#define TILE (WG * KPT)
#define RANK_RADIX (1u << RANK_BITS)
#define RANK_ROUNDS ((RADIX_BITS + RANK_BITS - 1) / RANK_BITS)

#if KEY_BITS == 32
typedef uint radix_key;
#else
typedef ulong radix_key;
#endif

/* Values are only moved, never interpreted: vectors of uint avoid needing 64-bit integers. */
#if VALUE_SIZE == 4
typedef uint radix_value;
#elif VALUE_SIZE == 8
typedef uint2 radix_value;
#elif VALUE_SIZE == 16
typedef uint4 radix_value;
#endif

/* Arguments that exist only when values move with the keys. */
#if VALUE_SIZE
#define IF_VALUES(...) __VA_ARGS__
#else
#define IF_VALUES(...)
#endif

/*
 * How a pass reads the digit of a key. The key is first mapped to an unsigned image
 * whose unsigned order is the wanted order: image = key ^ (sign bit set ? neg_xor :
 * pos_xor) (signed: flip the sign bit; float: flip every bit of negatives, the sign bit
 * of others; descending: flip every bit as well). Keys themselves move unchanged.
 */
typedef struct digit_spec {
    radix_key pos_xor, neg_xor;
    uint shift, mask;
} digit_spec;

uint digit_of(radix_key key, digit_spec spec)
{
    const radix_key image = key ^ ((key >> (KEY_BITS - 1)) ? spec.neg_xor : spec.pos_xor);
    return (uint)(image >> spec.shift) & spec.mask;
}

/* Number of TILE-sized pieces of a block of count keys, without overflowing uint. */
uint tiles_in(uint count)
{
    return count / TILE + (count % TILE != 0);
}

/* Keys of the block that this work-group handles: block_len from group * block_len on. */
uint block_count(uint n, uint block_len)
{
    uint begin = get_group_id(0) * block_len;
    return min(block_len, n - begin);
}

/*
 * Exclusive prefix sum of data[0 .. count) in local memory (Blelloch: up-sweep builds
 * partial sums in a tree, down-sweep pushes prefixes back down), returning the total.
 * count is a power of two; every work-item of the group must call it. It starts and ends
 * with a barrier, so data written before the call is seen, and the result after it.
 */
uint group_exclusive_scan(__local uint *data, uint count)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    uint offset = 1;
    for (uint pairs = count >> 1; pairs > 0; pairs >>= 1, offset <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);  /* the previous level's sums are complete */
        for (uint p = lid; p < pairs; p += size) {
            uint right = offset * (2 * p + 2) - 1;
            data[right] += data[right - offset];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* the root holds the total */
    const uint total = data[count - 1];
    barrier(CLK_LOCAL_MEM_FENCE);  /* everyone read the total before the root is cleared */
    if (lid == 0)
        data[count - 1] = 0;
    for (uint pairs = 1; pairs < count; pairs <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);  /* the level above is pushed down */
        for (uint p = lid; p < pairs; p += size) {
            uint right = offset * (2 * p + 2) - 1;
            uint left_sum = data[right - offset];
            data[right - offset] = data[right];
            data[right] += left_sum;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  /* the prefixes are complete */
    return total;
}
