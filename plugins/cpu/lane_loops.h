// lane_loops.h: which loops of a tg-uops program the interpreter runs as SIMT lane loops, and which
// values become registers of kLanes lanes there.
//
// A RANGE is a reduce loop when an ASSIGN inside it (at any depth) updates a DEFINE_ACC defined outside
// it; otherwise it is parallel: its iterations are independent, so kLanes of them can run side by side,
// each op once over a block of lanes. A lane loop is a parallel RANGE whose enclosing RANGEs are all
// parallel: of the chain from a deepest such RANGE outwards, the one that fills the most lanes of a
// block (its constant trip count, capped at kLanes; a run-time bound counts as full), the deepest of
// equals (a 3x3 window or a batch split innermost would fill a few lanes of 64). Loops nested inside
// a lane loop run as ordinary loops around the lane ops; their bounds must be uniform. A lane loop that
// does not fit (a nested loop's bound or a value used after the loop differs per lane) falls back to
// its enclosing parallel RANGE, then to none: the program then runs one lane at a time.
//
// Inside a lane loop a value is varying (one per lane) when it depends on the loop's index or on a
// per-lane variable (a DEFINE_ACC inside the loop); otherwise uniform, computed once per block and, when
// a lane op reads it, broadcast into a lane register.
#ifndef TG_PLUGINS_CPU_LANE_LOOPS_H_
#define TG_PLUGINS_CPU_LANE_LOOPS_H_

#include <cstdint>
#include <vector>

#include "plugins/cpu/uop_program.h"

namespace tg_cpu::uops {

struct LaneLoops {
  std::vector<int32_t> end_of;     // for a RANGE: its END's line
  std::vector<int32_t> lane_loop;  // the lane loop whose body holds the line (a RANGE's own line counts), or -1
  std::vector<uint8_t> varying;    // a register of kLanes lanes
  std::vector<uint8_t> lane_op;    // runs once per block over the lanes (varying values and STOREs in a lane loop)
  std::vector<uint8_t> stride1;    // varying integer that is lane 0's value + the lane number
  std::vector<uint8_t> broadcast;  // uniform value read by a lane op: it also gets a lane register
  std::vector<int32_t> loops;      // the lane loops' RANGE lines, in order
};

// |program| parsed (ParseProgram's checks hold).
LaneLoops FindLaneLoops(const Program& program);

// The index source of a lane op's operand list: for LOAD and STORE, the INDEX's index and gate stand in
// for the INDEX line. Returns the sources the op reads as values (the buffer excluded).
std::vector<uint32_t> ValueSources(const Program& program, uint32_t line);

}  // namespace tg_cpu::uops

#endif  // TG_PLUGINS_CPU_LANE_LOOPS_H_
