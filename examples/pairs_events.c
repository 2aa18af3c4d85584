/*
 * Key-value sort of device buffers inside an application's own OpenCL work: the sort
 * waits for the application's uploads through its wait list, and the application's own
 * kernel waits for the sort through the event it returns. Nothing blocks until the end.
 */
#include <clradix.h>
#include <stdio.h>
#include <stdlib.h>

/* The application's kernel: 1 where a run of equal keys starts. */
static const char *source =
    "__kernel void run_starts(__global const uint *keys, __global uint *starts, uint n)\n"
    "{\n"
    "    const uint i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        starts[i] = i == 0 || keys[i] != keys[i - 1];\n"
    "}\n";

int main(void)
{
    enum { N = 100000 };
    cl_uint *keys = malloc(N * sizeof *keys), *ids = malloc(N * sizeof *ids), *starts = malloc(N * sizeof *starts);
    for (cl_uint i = 0; i < N; ++i) {
        keys[i] = (i * 2654435761u) % 1000;  /* 1000 distinct values */
        ids[i] = i;
    }

    /* The application's context and queue, on the default device. */
    cl_device_id device;
    clradix_status status = clradix_device_find(NULL, &device);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "no device: %s\n", clradix_status_string(status));
        return 1;
    }
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    clBuildProgram(program, 1, &device, NULL, NULL, NULL);
    cl_kernel kernel = clCreateKernel(program, "run_starts", &err);
    cl_mem key_buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof *keys, NULL, &err);
    cl_mem id_buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof *ids, NULL, &err);
    cl_mem start_buffer = clCreateBuffer(context, CL_MEM_WRITE_ONLY, N * sizeof *starts, NULL, &err);

    clradix_sorter *sorter;
    status = clradix_sorter_create(context, device, &sorter);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix: %s\n", clradix_status_string(status));
        return 1;
    }

    /* Upload without waiting, sort after the uploads, find runs after the sort. */
    cl_event uploaded[2], sorted, found;
    clEnqueueWriteBuffer(queue, key_buffer, CL_FALSE, 0, N * sizeof *keys, keys, 0, NULL, &uploaded[0]);
    clEnqueueWriteBuffer(queue, id_buffer, CL_FALSE, 0, N * sizeof *ids, ids, 0, NULL, &uploaded[1]);
    status = clradix_sort_pairs(sorter, queue, CLRADIX_U32, key_buffer, id_buffer, sizeof *ids, N, NULL,
                                2, uploaded, &sorted);
    if (status != CLRADIX_SUCCESS) {
        fprintf(stderr, "clradix: %s\n", clradix_status_string(status));
        return 1;
    }
    const cl_uint n = N;
    const size_t global = N;
    clSetKernelArg(kernel, 0, sizeof key_buffer, &key_buffer);
    clSetKernelArg(kernel, 1, sizeof start_buffer, &start_buffer);
    clSetKernelArg(kernel, 2, sizeof n, &n);
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 1, &sorted, &found);

    /* Only now wait: read the runs, the sorted keys and their ids. */
    clEnqueueReadBuffer(queue, start_buffer, CL_TRUE, 0, N * sizeof *starts, starts, 1, &found, NULL);
    clEnqueueReadBuffer(queue, key_buffer, CL_TRUE, 0, N * sizeof *keys, keys, 0, NULL, NULL);
    clEnqueueReadBuffer(queue, id_buffer, CL_TRUE, 0, N * sizeof *ids, ids, 0, NULL, NULL);
    cl_uint distinct = 0, ok = 1;
    for (cl_uint i = 0; i < N; ++i) {
        distinct += starts[i];
        ok &= keys[i] == (ids[i] * 2654435761u) % 1000;               /* each id still with its key */
        ok &= i == 0 || keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && ids[i - 1] < ids[i]);  /* stable */
    }
    printf("%u keys, %u distinct; sorted with their ids: %s\n", (unsigned)N, (unsigned)distinct, ok ? "yes" : "NO");

    /* The events returned belong to the caller. */
    clReleaseEvent(uploaded[0]);
    clReleaseEvent(uploaded[1]);
    clReleaseEvent(sorted);
    clReleaseEvent(found);
    clradix_sorter_release(sorter);
    clReleaseMemObject(key_buffer);
    clReleaseMemObject(id_buffer);
    clReleaseMemObject(start_buffer);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(keys);
    free(ids);
    free(starts);
    return ok && distinct == 1000 ? 0 : 1;
}
