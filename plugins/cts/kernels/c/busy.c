/* out[0] = x after |iters| steps of x = x * 1664525 + 1013904223 from x = 1: a serial chain the
 * compiler cannot shorten, so the run time grows with iters (timing checks). */
int32_t busy(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  (void)w;
  uint32_t x = 1;
  int32_t iters = (int32_t)d->scalars[0];
  for (int32_t i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  ((uint32_t*)d->buffers[0])[0] = x;
  return 0;
}
