/* out = {a + b, a, b}: an i32 arrives widened to int64_t in scalars[], an i64 as is. */
int32_t scalars(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  (void)w;
  int64_t* out = (int64_t*)d->buffers[0];
  int32_t a = (int32_t)d->scalars[0];
  int64_t b = d->scalars[1];
  out[0] = a + b;
  out[1] = d->scalars[0]; /* not re-narrowed: checks the widening itself */
  out[2] = b;
  return 0;
}
