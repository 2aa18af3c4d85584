/* Sorts an array on the default OpenCL device: CLRADIX_DEVICE, else the first GPU, else the first device. */
#include <clradix.h>
#include <stdio.h>

int main(void)
{
    float keys[] = { 3.5f, -1.0f, 2.25f, -7.5f, 0.0f };
    clradix_sorter *sorter = NULL;
    clradix_status status = clradix_sorter_create(NULL, NULL, &sorter);
    if (status == CLRADIX_SUCCESS)
        status = clradix_sort_keys_host(sorter, NULL, CLRADIX_F32, keys, 5, NULL);
    clradix_sorter_release(sorter);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix: %s\n", clradix_status_string(status));
        return 1;
    }
    for (int i = 0; i < 5; ++i)
        printf("%g ", keys[i]);  /* -7.5 -1 0 2.25 3.5 */
    printf("\n");
    return 0;
}
