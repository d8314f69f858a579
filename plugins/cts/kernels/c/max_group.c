/* out[global id] = local id + 1000 * group id, dimension 0; launched with the largest group. */
int32_t max_group(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  int32_t* out = (int32_t*)d->buffers[0];
  for (uint32_t l = 0; l < d->group_size[0]; ++l) {
    out[w->group_id[0] * d->group_size[0] + l] = (int32_t)(l + 1000 * w->group_id[0]);
  }
  return 0;
}
