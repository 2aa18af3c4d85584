/*
 * oclgrind 21.10's false reports, with plain OpenCL (no clradix): a 4-byte buffer is
 * released, a larger one takes its address, a kernel fills it, and another kernel copies
 * it to local memory. oclgrind --uninitialized then reports every element past the first
 * as uninitialised. tests/oclgrind-check.sh runs this to say whether kernel_check still
 * needs to hold buffer releases (see kernel_check.c).
 */
#include <CL/cl.h>

#include <stdio.h>

static const char *source =
    "__kernel void fill(__global uint *out) { out[get_global_id(0)] = get_global_id(0); }\n"
    "__kernel void stage(__global const uint *in, __global uint *out) {\n"
    "    __local uint tile[64];\n"
    "    const uint i = get_local_id(0);\n"
    "    tile[i] = in[get_global_id(0)];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = tile[63 - i];\n"
    "}\n";

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS
        || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
        return 1;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (err != CL_SUCCESS || clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS)
        return 1;
    cl_kernel fill = clCreateKernel(program, "fill", &err), stage = clCreateKernel(program, "stage", &err);

    cl_uint word = 1, data[256];
    clReleaseMemObject(clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &word, &err));
    cl_mem filled = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof data, NULL, &err);  /* the address reused */
    cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
    const size_t global = 256, local = 64;
    clSetKernelArg(fill, 0, sizeof filled, &filled);
    clEnqueueNDRangeKernel(queue, fill, 1, NULL, &global, &local, 0, NULL, NULL);
    clSetKernelArg(stage, 0, sizeof filled, &filled);
    clSetKernelArg(stage, 1, sizeof out, &out);
    clEnqueueNDRangeKernel(queue, stage, 1, NULL, &global, &local, 0, NULL, NULL);
    err = clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL);
    printf("oclgrind-reuse: out[0] = %u (want 63)\n", data[0]);

    clReleaseMemObject(filled);
    clReleaseMemObject(out);
    clReleaseKernel(fill);
    clReleaseKernel(stage);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return err == CL_SUCCESS && data[0] == 63 ? 0 : 1;
}
