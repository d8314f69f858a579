/* out[global id] = local id + 1000 * group id, dimension 0; launched with the largest group. */
__kernel void max_group(__global int* out) {
  out[get_global_id(0)] = (int)(get_local_id(0) + 1000 * get_group_id(0));
}
