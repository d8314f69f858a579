/* Each work item writes group id x,y,z and local id x,y,z (6 ints) at its linear global id. */
__kernel void index3d(__global int* out) {
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  __global int* e = out + 6 * (x + get_global_size(0) * (y + get_global_size(1) * z));
  e[0] = (int)get_group_id(0); e[1] = (int)get_group_id(1); e[2] = (int)get_group_id(2);
  e[3] = (int)get_local_id(0); e[4] = (int)get_local_id(1); e[5] = (int)get_local_id(2);
}
