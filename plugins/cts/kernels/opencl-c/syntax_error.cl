/* Does not compile: the error's message must carry the build log. */
__kernel void syntax_error(__global int* out) { this is not OpenCL C; }
