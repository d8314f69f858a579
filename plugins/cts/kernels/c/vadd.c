/* out[i] = a[i] + b[i] for i < n. The CTS puts TG_C_DIALECT_PRELUDE (tg_plugin.h) in front. */
int32_t vadd(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  float* out = (float*)d->buffers[0];
  const float* a = (const float*)d->buffers[1];
  const float* b = (const float*)d->buffers[2];
  int32_t n = (int32_t)d->scalars[0];
  for (uint32_t l = 0; l < d->group_size[0]; ++l) {
    int64_t i = (int64_t)w->group_id[0] * d->group_size[0] + l;
    if (i < n) out[i] = a[i] + b[i];
  }
  return 0;
}
