/* Command-line helpers shared by the benchmarks. */
#include "bench.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Accepts 16777216, 2^24, 16M, 64K, 1G. */
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

int parse_type(const char *item, clradix_key_type *type)
{
    for (int t = 0; t < TYPE_COUNT; ++t)
        if (!strcmp(item, type_name((clradix_key_type)t))) {
            *type = (clradix_key_type)t;
            return 1;
        }
    return 0;
}

int parse_value_size(const char *item, size_t *value_size)
{
    char *end;
    const unsigned long v = strtoul(item, &end, 10);
    if (*end || end == item || (v != 0 && v != 4 && v != 8 && v != 16))
        return 0;
    *value_size = v;
    return 1;
}

int parse_dist(const char *item, bench_dist *dist)
{
    for (int d = 0; d < DIST_COUNT; ++d)
        if (!strcmp(item, dist_name((bench_dist)d))) {
            *dist = (bench_dist)d;
            return 1;
        }
    return 0;
}

int for_each_item(const char *list, int (*add)(void *context, const char *item), void *context)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save))
        if (!add(context, item))
            return 0;
    return 1;
}
