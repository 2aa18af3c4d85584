/* An application built against an installed clradix (see tests/install-check.sh). */
#include <clradix.h>

#include <stdio.h>

int main(void)
{
    if (clradix_version() != CLRADIX_VERSION_NUMBER) {
        fprintf(stderr, "consumer: built against %d, runs with %u\n", CLRADIX_VERSION_NUMBER, clradix_version());
        return 1;
    }
    clradix_sorter *sorter;
    clradix_status status = clradix_sorter_create(NULL, NULL, &sorter);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "consumer: %s\n", clradix_status_string(status));
        return status == CLRADIX_ERROR_UNSUPPORTED ? 77 : 1;  /* 77: no device, a skip */
    }
    int keys[] = { 5, -3, 9, 0, -3 };
    unsigned ids[] = { 0, 1, 2, 3, 4 };
    status = clradix_sort_pairs_host(sorter, NULL, CLRADIX_I32, keys, ids, sizeof ids[0], 5, NULL);
    clradix_sorter_release(sorter);
    const int sorted = keys[0] == -3 && keys[1] == -3 && keys[2] == 0 && keys[3] == 5 && keys[4] == 9 && ids[0] == 1
        && ids[1] == 4 && ids[2] == 3 && ids[3] == 0 && ids[4] == 2;
    printf("consumer: clradix %d.%d.%d: %s\n", CLRADIX_VERSION_MAJOR, CLRADIX_VERSION_MINOR, CLRADIX_VERSION_PATCH,
           status == CLRADIX_SUCCESS && sorted ? "sorted" : "WRONG");
    return status == CLRADIX_SUCCESS && sorted ? 0 : 1;
}
