/*
 * Prints, for every GPU row of the built-in tuning table, the shape each program variant
 * really gets on a device with 32, 48 and 64 KiB of local memory (work-groups of up to
 * 1024): tile (work-items x keys each), the digits whose counters a tile's ranking holds at
 * once (in parentheses where that is fewer than all 256, which then take several rounds of
 * counting), the largest single-launch sort, and the local memory its largest kernel
 * declares. docs/tuning.md's table is this output
 * (tests/tuning-table-check.sh compares them); test_gpu_rows checks it against the
 * programs a device builds.
 */
#include "testing.h"

#include <stdio.h>
#include <string.h>

static const unsigned value_sizes[] = { 0, 4, 8, 16 };
static const cl_ulong local_sizes[] = { 32 * 1024, 48 * 1024, 64 * 1024 };

int main(void)
{
    printf("| rows | local memory | keys | keys only | 4-byte values | 8-byte values | 16-byte values |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    clradix_tuning row;
    const char *devices;
    for (unsigned r = 0; clradix_tuning_row(r, &row, &devices) == CLRADIX_SUCCESS; ++r) {
        if (!strstr(devices, "GPU"))
            continue;
        /* Rows with the same parameters share one line. */
        clradix_tuning earlier;
        const char *earlier_devices;
        int repeated = 0;
        for (unsigned e = 0; e < r && clradix_tuning_row(e, &earlier, &earlier_devices) == CLRADIX_SUCCESS; ++e)
            repeated |= !memcmp(&earlier, &row, sizeof row);
        if (repeated)
            continue;
        char names[256] = "";
        for (unsigned o = r; clradix_tuning_row(o, &earlier, &earlier_devices) == CLRADIX_SUCCESS; ++o)
            if (!memcmp(&earlier, &row, sizeof row))
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", *names ? ", " : "",
                         earlier_devices);
        for (size_t l = 0; l < sizeof local_sizes / sizeof local_sizes[0]; ++l)
            for (unsigned key_bytes = 4; key_bytes <= 8; key_bytes += 4) {
                printf("| %s (%u x %u) | %llu KiB | %u-bit |", names, row.work_group_size, row.keys_per_item,
                       (unsigned long long)(local_sizes[l] / 1024), key_bytes * 8);
                for (size_t v = 0; v < sizeof value_sizes / sizeof value_sizes[0]; ++v) {
                    clradix_tuning shape;
                    unsigned digits;
                    size_t bytes;
                    if (clradix_testing_fit(&row, local_sizes[l], 1024, 1, key_bytes, value_sizes[v], &shape, &digits,
                                            &bytes)
                        != CLRADIX_SUCCESS) {
                        printf(" does not fit |");
                        continue;
                    }
                    char counted[32] = "";
                    if (digits < 1u << shape.radix_bits)
                        snprintf(counted, sizeof counted, " (%u)", digits);
                    printf(" %u x %u%s, %u, %.1f KiB |", shape.work_group_size, shape.keys_per_item, counted,
                           shape.small_n > 1 ? shape.small_n : 0, bytes / 1024.0);
                }
                printf("\n");
            }
    }
    return 0;
}
