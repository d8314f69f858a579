/* Faults: a device-side trap, which the runtime reports as a sticky launch failure. */
extern "C" __global__ void fault() { __builtin_trap(); }
