/* The device's own copy bandwidth, measured by a plain copy kernel, as the yardstick for
   how close a sort comes to the memory limit. */
#include "bench.h"

#include <stdlib.h>

static const char *copy_source =
    "__kernel void copy(__global const uint4 *src, __global uint4 *dst)\n"
    "{\n"
    "    dst[get_global_id(0)] = src[get_global_id(0)];\n"
    "}\n";

double copy_bandwidth(cl_context context, cl_device_id device, cl_command_queue queue, size_t bytes)
{
    enum { RUNS = 7 };
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    if (bytes > max_alloc)
        bytes = (size_t)max_alloc;
    bytes &= ~(size_t)(16 * 256 - 1);  /* whole work-groups of uint4 */
    if (bytes == 0)
        return -1;

    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &copy_source, NULL, &err);
    if (err != CL_SUCCESS || clBuildProgram(program, 1, &device, NULL, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(program);
        return -1;
    }
    cl_kernel kernel = clCreateKernel(program, "copy", &err);
    cl_mem src = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem dst = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    double result = -1;
    if (kernel && src && dst) {
        const cl_uint zero = 0;
        clEnqueueFillBuffer(queue, src, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
        clEnqueueFillBuffer(queue, dst, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
        clSetKernelArg(kernel, 0, sizeof src, &src);
        clSetKernelArg(kernel, 1, sizeof dst, &dst);
        const size_t global = bytes / 16, local = 256;
        double times[RUNS];
        int ok = 1;
        for (int run = -1; run < RUNS && ok; ++run) {  /* run -1 warms up */
            clFinish(queue);
            const double t0 = seconds();
            ok = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL) == CL_SUCCESS
                && clFinish(queue) == CL_SUCCESS;
            if (run >= 0)
                times[run] = seconds() - t0;
        }
        if (ok) {
            result = 2.0 * (double)bytes / sort_times(times, RUNS) * 1e-9;
        }
    }
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    if (kernel)
        clReleaseKernel(kernel);
    clReleaseProgram(program);
    return result;
}
