/* out[0] = x after |iters| LCG steps from 1: a serial chain whose run time grows with iters. */
extern "C" __global__ void busy(unsigned* out, int iters) {
  unsigned x = 1;
  for (int i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  out[0] = x;
}
