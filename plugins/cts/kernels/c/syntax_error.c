/* Does not compile: the error's message must carry the compiler's log. */
int32_t syntax_error(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) {
  this is not C;
}
