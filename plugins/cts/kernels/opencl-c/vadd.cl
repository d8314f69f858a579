/* out[i] = a[i] + b[i] for i < n. */
__kernel void vadd(__global float* out, __global const float* a, __global const float* b, int n) {
  int i = (int)get_global_id(0);
  if (i < n) out[i] = a[i] + b[i];
}
