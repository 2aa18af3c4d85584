/*
 * Randomized sorts: key type, n, distribution, bit range, direction, keys, pairs or
 * argsort, and API flavour drawn at random, each checked against the oracle. CI runs a
 * fixed seed and count; CLRADIX_RANDOM_SEED and CLRADIX_RANDOM_CASES run others, and a
 * failure prints the seed and the case to repeat it.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

static void setup(void) { open_dev(NULL); }

static unsigned long setting(const char *name, unsigned long fallback)
{
    const char *text = getenv(name);
    return text && *text ? strtoul(text, NULL, 0) : fallback;
}

START_TEST(test_random_sorts)
{
    const unsigned long seed = setting("CLRADIX_RANDOM_SEED", 20261130), cases = setting("CLRADIX_RANDOM_CASES", 300);
    uint64_t state = seed;
    char msg[256], name[64];
    for (unsigned long c = 0; c < cases; ++c) {
        const clradix_key_type type = (clradix_key_type)(rng_next(&state) % 6);
        const unsigned width = key_bytes_of(type) * 8;
        const dist d = (dist)(rng_next(&state) % DIST_COUNT);
        const size_t n = (size_t)(rng_next(&state) % ((uint64_t)1 << (rng_next(&state) % 19)));  /* up to 2^18 */
        clradix_options options = { 0, 0, (int)(rng_next(&state) % 2) };
        if (rng_next(&state) % 2) {  /* a bit range, empty ones included */
            options.begin_bit = (unsigned)(rng_next(&state) % (width + 1));
            options.end_bit = options.begin_bit + (unsigned)(rng_next(&state) % (width - options.begin_bit + 1));
            if (options.end_bit == 0)
                options.begin_bit = 0;  /* (0, 0) is every bit */
        }
        static const size_t value_sizes[] = { 4, 8, 16 };
        const sort_kind kind = (sort_kind)(rng_next(&state) % 3);
        const sort_call call = { rng_next(&state) % 2 ? API_HOST : API_DEVICE, kind,
                                 kind == SORT_KEYS ? 0 : value_sizes[rng_next(&state) % (kind == SORT_ARGSORT ? 2 : 3)] };
        const int failed = sort_case(&dev, &call, type, d, n, &options, c ^ seed, msg, sizeof msg);
        ck_assert_msg(!failed,
                      "seed %lu case %lu: type %d dist %s n=%zu bits [%u, %u) %s %s: %s "
                      "(repeat: CLRADIX_RANDOM_SEED=%lu CLRADIX_RANDOM_CASES=%lu)",
                      seed, c, type, dist_name(d), n, options.begin_bit, options.end_bit,
                      options.descending ? "descending" : "ascending", sort_call_name(&call, name, sizeof name), msg, seed,
                      c + 1);
    }
    printf("random: %lu sorts from seed %lu checked\n", cases, seed);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("random");
    TCase *tc = tcase_create("random");
    tcase_add_checked_fixture(tc, setup, close_dev);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_random_sorts);
    suite_add_tcase(s, tc);
    return run_device_suite(s, "test_random");
}
