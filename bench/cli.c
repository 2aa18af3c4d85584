/* Command-line helpers shared by the benchmarks. */
#include "bench.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int parse_size(const char *text, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text)
        return 0;
    if (*end == '^') {
        const unsigned long long base = v;
        unsigned long long e = strtoull(end + 1, &end, 10);
        if (e > 40)
            return 0;
        for (v = 1; e--;)
            v *= base;
    } else if (*end && strchr("kKmMgG", *end)) {
        v <<= toupper((unsigned char)*end) == 'K' ? 10 : toupper((unsigned char)*end) == 'M' ? 20 : 30;
        ++end;
    }
    if (*end)
        return 0;
    *out = (size_t)v;
    return 1;
}
