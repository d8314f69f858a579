/* Fails: a "c" kernel reports a fault by returning nonzero (here 7, from one work item). */
int32_t fault(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  (void)d, (void)w;
  return 7;
}
