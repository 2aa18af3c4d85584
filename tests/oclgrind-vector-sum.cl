/*
 * oclgrind 21.10 crashes (segmentation fault) under --uninitialized on the sum of a
 * vector's components, which LLVM makes a vector reduction; without the plugin it prints
 * out[0] = 28. Plain OpenCL C, no clradix:
 *     oclgrind-kernel --uninitialized tests/oclgrind-vector-sum.sim
 * cl/topk.cl therefore tests vectors with any() and all() only (which it handles).
 */
__kernel void vector_sum(__global const uint *in, __global uint *out)
{
    const uint8 v = vload8(0, in);
    out[0] = v.s0 + v.s1 + v.s2 + v.s3 + v.s4 + v.s5 + v.s6 + v.s7;
}
