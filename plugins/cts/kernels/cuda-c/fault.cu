/* Faults: a device-side trap, which the driver reports as a sticky launch failure. */
extern "C" __global__ void fault() { __trap(); }
