/* Each work item writes group id x,y,z and local id x,y,z (6 ints) at its linear global id. */
int32_t index3d(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  int32_t* out = (int32_t*)d->buffers[0];
  uint32_t gx = d->num_groups[0] * d->group_size[0], gy = d->num_groups[1] * d->group_size[1];
  for (uint32_t lz = 0; lz < d->group_size[2]; ++lz)
    for (uint32_t ly = 0; ly < d->group_size[1]; ++ly)
      for (uint32_t lx = 0; lx < d->group_size[0]; ++lx) {
        uint32_t x = w->group_id[0] * d->group_size[0] + lx;
        uint32_t y = w->group_id[1] * d->group_size[1] + ly;
        uint32_t z = w->group_id[2] * d->group_size[2] + lz;
        int32_t* e = out + 6 * (x + gx * (y + gy * z));
        e[0] = (int32_t)w->group_id[0]; e[1] = (int32_t)w->group_id[1]; e[2] = (int32_t)w->group_id[2];
        e[3] = (int32_t)lx; e[4] = (int32_t)ly; e[5] = (int32_t)lz;
      }
  return 0;
}
