/* out = {a + b, a, b}: an int and a long argument. */
__kernel void scalars(__global long* out, int a, long b) {
  out[0] = a + b;
  out[1] = a;
  out[2] = b;
}
