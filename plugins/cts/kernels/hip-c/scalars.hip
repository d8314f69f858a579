/* out = {a + b, a, b}: an int and a long long argument. */
extern "C" __global__ void scalars(long long* out, int a, long long b) {
  out[0] = a + b;
  out[1] = a;
  out[2] = b;
}
