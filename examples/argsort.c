/* Argsort: the order of an array as indices, the array itself left as it is. */
#include <clradix.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    const double prices[] = { 19.99, 4.50, 12.00, 4.50, 7.25 };
    const char *const items[] = { "lamp", "mug", "book", "pen", "cup" };
    uint32_t order[5];
    clradix_sorter *sorter = NULL;
    clradix_status status = clradix_sorter_create(NULL, NULL, &sorter);
    if (status == CLRADIX_SUCCESS)  /* 4-byte indices; equal prices keep their input order */
        status = clradix_argsort_host(sorter, NULL, CLRADIX_F64, prices, order, sizeof order[0], 5, NULL);
    clradix_sorter_release(sorter);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix: %s\n", clradix_status_string(status));
        return 1;
    }
    for (int i = 0; i < 5; ++i)
        printf("%-5s %6.2f\n", items[order[i]], prices[order[i]]);  /* mug, pen, cup, book, lamp */
    return 0;
}
