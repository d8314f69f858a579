/* buf[0] += 1; one work item. */
__kernel void add_one(__global int* buf) { buf[0] += 1; }
