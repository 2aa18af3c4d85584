/*
 * An application that includes clradix.h before anything else and wants OpenCL 2.0 or
 * later: the header must not choose its OpenCL version for it (it once defined
 * CL_TARGET_OPENCL_VERSION as 120, which hid these declarations). Built with
 * -Werror=implicit-function-declaration, so a hidden declaration fails the build.
 */
#undef CL_TARGET_OPENCL_VERSION  /* the project's own builds define it: this one must not */
#include <clradix.h>

#include <stdio.h>

int main(void)
{
    /* Declared by <CL/cl.h> from OpenCL 2.0 on. */
    cl_command_queue (*create_queue)(cl_context, cl_device_id, const cl_queue_properties *, cl_int *) =
        clCreateCommandQueueWithProperties;
    printf("clradix.h leaves CL_TARGET_OPENCL_VERSION to the application (%d): %s\n", CL_TARGET_OPENCL_VERSION,
           create_queue ? "2.0 declarations visible" : "?");
    return CL_TARGET_OPENCL_VERSION >= 200 ? 0 : 1;
}
