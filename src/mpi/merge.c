/* The final merge on the host: what a rank receives is one sorted run per source rank, in
   rank order; rounds of stable two-way merges of neighbouring runs (the left run wins
   ties, so equal keys stay in (rank, position) order) join them. */
#include "mpi_internal.h"

static inline void copy_element(char *to, const char *from, size_t size)
{
    switch (size) {  /* constant sizes, so each copy is a move or two */
    case 1: *to = *from; break;
    case 2: memcpy(to, from, 2); break;
    case 4: memcpy(to, from, 4); break;
    case 8: memcpy(to, from, 8); break;
    default: memcpy(to, from, 16); break;
    }
}

/* Merges runs a and b (b right after a) of keys (and values) into the same place of
   keys_to (values_to). */
static void merge_two(const key_order *o, size_t value_size, merge_run a, merge_run b, const char *keys, const char *values,
                      char *keys_to, char *values_to)
{
    const size_t kb = o->key_bytes, a_end = a.first + a.count, b_end = b.first + b.count;
    size_t i = a.first, j = b.first, to = a.first;
    if (a.count && b.count) {
        uint64_t image_a = range_image(o, keys, i), image_b = range_image(o, keys, j);
        for (;; ++to) {
            const int take_b = image_b < image_a;
            const size_t from = take_b ? j : i;
            copy_element(keys_to + to * kb, keys + from * kb, kb);
            if (value_size)
                copy_element(values_to + to * value_size, values + from * value_size, value_size);
            if (take_b) {
                if (++j == b_end)
                    break;
                image_b = range_image(o, keys, j);
            } else {
                if (++i == a_end)
                    break;
                image_a = range_image(o, keys, i);
            }
        }
        ++to;
    }
    /* One run is used up: the rest of the other follows as it is. */
    const size_t rest = i < a_end ? i : j, rest_count = i < a_end ? a_end - i : b_end - j;
    memcpy(keys_to + to * kb, keys + rest * kb, rest_count * kb);
    if (value_size)
        memcpy(values_to + to * value_size, values + rest * value_size, rest_count * value_size);
}

#ifdef CLRADIX_TESTING
#include "mpi_testing.h"
static int testing_final_sort;
void clradix_mpi_testing_final_sort(int how)
{
    testing_final_sort = how;
}
#endif

int host_merge_for(cl_device_id device)
{
#ifdef CLRADIX_TESTING
    if (testing_final_sort)
        return testing_final_sort == 1;
#endif
    cl_device_type type = 0;
    return clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
           (type & CL_DEVICE_TYPE_CPU);
}

unsigned merge_rounds(const uint64_t *run_count, int runs)
{
    unsigned nonempty = 0, rounds = 0;
    for (int r = 0; r < runs; ++r)
        nonempty += run_count[r] != 0;
    while (nonempty > 1u << rounds)
        ++rounds;
    return rounds;
}

void merge_runs(const key_order *o, size_t value_size, const uint64_t *run_count, int runs, merge_run *list,
                void *keys, void *values, void *keys_spare, void *values_spare)
{
    size_t count = 0, first = 0;
    for (int r = 0; r < runs; ++r) {
        if (run_count[r])
            list[count++] = (merge_run){ first, (size_t)run_count[r] };
        first += (size_t)run_count[r];
    }
    char *from_keys = keys, *from_values = values, *to_keys = keys_spare, *to_values = values_spare;
    while (count > 1) {
        size_t merged = 0;
        for (size_t k = 0; k < count; k += 2) {
            if (k + 1 < count) {
                merge_two(o, value_size, list[k], list[k + 1], from_keys, from_values, to_keys, to_values);
                list[merged++] = (merge_run){ list[k].first, list[k].count + list[k + 1].count };
            } else {  /* the odd one out moves as it is */
                memcpy(to_keys + list[k].first * o->key_bytes, from_keys + list[k].first * o->key_bytes,
                       list[k].count * o->key_bytes);
                if (value_size)
                    memcpy(to_values + list[k].first * value_size, from_values + list[k].first * value_size,
                           list[k].count * value_size);
                list[merged++] = list[k];
            }
        }
        count = merged;
        char *swap = from_keys;
        from_keys = to_keys;
        to_keys = swap;
        swap = from_values;
        from_values = to_values;
        to_values = swap;
    }
}
