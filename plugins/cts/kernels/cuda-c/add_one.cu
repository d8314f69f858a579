/* buf[0] += 1; one work item. */
extern "C" __global__ void add_one(int* buf) { buf[0] += 1; }
