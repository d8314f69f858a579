/* out[i] = a[i] + b[i] for i < n. */
extern "C" __global__ void vadd(float* out, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
