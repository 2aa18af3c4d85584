/* The device finder the driver-bug reproducers share (the tests/ files named *-repro.c):
   plain OpenCL, so that a reproducer and this header are all a driver's authors need. */
#ifndef REPRO_DEVICE_H
#define REPRO_DEVICE_H

#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

/* The first device whose "platform device" contains wanted; prints its name. */
static int find_device(const char *wanted, cl_device_id *device)
{
    cl_platform_id platforms[16];
    cl_uint platform_count = 0;
    if (clGetPlatformIDs(16, platforms, &platform_count) != CL_SUCCESS)
        return 0;
    for (cl_uint p = 0; p < platform_count && p < 16; ++p) {
        cl_device_id devices[16];
        cl_uint count = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &count) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < count && d < 16; ++d) {
            char name[512] = "", device_name[256] = "";
            clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, 255, name, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof device_name - 1, device_name, NULL);
            strcat(strcat(name, " "), device_name);
            if (strstr(name, wanted)) {
                printf("device: %s\n", name);
                *device = devices[d];
                return 1;
            }
        }
    }
    return 0;
}

#endif
