/* out[global id] = local id + 1000 * group id, dimension 0; launched with the largest block. */
extern "C" __global__ void max_group(int* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x + 1000 * blockIdx.x;
}
