/* Each work item writes group id x,y,z and local id x,y,z (6 ints) at its linear global id. */
extern "C" __global__ void index3d(int* out) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, gx = gridDim.x * blockDim.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y, gy = gridDim.y * blockDim.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  int* e = out + 6 * (x + gx * (y + gy * z));
  e[0] = blockIdx.x; e[1] = blockIdx.y; e[2] = blockIdx.z;
  e[3] = threadIdx.x; e[4] = threadIdx.y; e[5] = threadIdx.z;
}
