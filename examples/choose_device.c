/*
 * Choosing a device: lists every OpenCL device in clradix's numbering (the one
 * CLRADIX_DEVICE and clradix-bench use) and sorts on the one named by the first
 * argument, an index or part of "platform device" (default: the default device).
 */
#include <clradix.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    cl_uint count = 0;
    clradix_device_list(0, NULL, &count);
    cl_device_id *devices = malloc((count ? count : 1) * sizeof *devices);
    clradix_device_list(count, devices, &count);
    for (cl_uint i = 0; i < count; ++i) {
        char name[256] = "";
        clGetDeviceInfo(devices[i], CL_DEVICE_NAME, sizeof name - 1, name, NULL);
        printf("%u: %s\n", (unsigned)i, name);
    }
    free(devices);

    cl_device_id device;
    clradix_status status = clradix_device_find(argc > 1 ? argv[1] : NULL, &device);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "no device %s: %s\n", argc > 1 ? argv[1] : "(default)", clradix_status_string(status));
        return 1;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    clradix_sorter *sorter;
    status = clradix_sorter_create(context, device, &sorter);  /* the sorter retains context and device */
    clReleaseContext(context);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix: %s\n", clradix_status_string(status));
        return 1;
    }
    long long keys[] = { 4000000000LL, -2, 77, -9000000000LL };
    status = clradix_sort_keys_host(sorter, NULL, CLRADIX_I64, keys, 4, NULL);
    char name[256] = "";
    clGetDeviceInfo(clradix_sorter_device(sorter), CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    printf("sorted on %s: %lld %lld %lld %lld\n", name, keys[0], keys[1], keys[2], keys[3]);
    clradix_sorter_release(sorter);
    return status == CLRADIX_SUCCESS ? 0 : 1;
}
