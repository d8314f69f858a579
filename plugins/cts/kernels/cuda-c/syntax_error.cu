/* Does not compile: the error's message must carry NVRTC's log. */
extern "C" __global__ void syntax_error(int* out) { this is not CUDA; }
