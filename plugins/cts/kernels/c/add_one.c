/* buf[0] += 1; one work item. 1000 of these in a row count launches that ran in order. */
int32_t add_one(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  (void)w;
  ((int32_t*)d->buffers[0])[0] += 1;
  return 0;
}
