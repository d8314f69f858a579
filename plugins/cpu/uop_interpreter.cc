// uop_interpreter.cc: translating a tg-uops program into steps (registers, loop jumps, broadcasts) and
// the loop that runs them.
#include "plugins/cpu/uop_interpreter.h"

#include <algorithm>
#include <cstring>

#include "plugins/cpu/lane_loops.h"

namespace tg_cpu::uops {

class StepBuilder {
 public:
  explicit StepBuilder(UopKernel* k) : k_(k), p_(k->program_), loops_(FindLaneLoops(p_)) {}
  tg_error* Build();

 private:
  uint32_t Slot(uint32_t line) const { return 8 * Root(line); }
  // The lane register a lane op reads |line| from: its own, or its broadcast copy.
  uint32_t LaneReg(uint32_t line) const { return lane_reg_[Root(line)]; }
  uint32_t Root(uint32_t line) const { return alias_[line]; }
  void Coalesce();
  std::vector<uint32_t> EntrySplats(uint32_t lane_loop) const;
  void AllocateLaneRegisters();
  void Emit(Step s) { k_->steps_.push_back(s); }
  void Splat(uint32_t line) {
    Step s{StepKind::kSplat};
    s.dst = LaneReg(line), s.a = Slot(line), s.bytes = static_cast<uint8_t>(DTypeBytes(p_.code[line].dtype));
    Emit(s);
  }
  tg_error* EmitLine(uint32_t line);
  tg_error* EmitAlu(uint32_t line, bool lanes);
  void EmitMemory(uint32_t line, bool lanes);

  UopKernel* k_;
  const Program& p_;
  LaneLoops loops_;
  std::vector<uint32_t> alias_;    // the line whose registers a line shares (accumulators)
  std::vector<uint32_t> lane_reg_;
  std::vector<uint32_t> loop_start_;  // RANGE line -> its first step
  std::vector<uint8_t> skip_;         // ASSIGNs made free by Coalesce
};

// An accumulator's update computed straight into the accumulator: acc = ADD(acc, x) followed by
// ASSIGN(acc, that) needs no copy when nothing else reads the sum and nothing reads acc in between.
void StepBuilder::Coalesce() {
  const size_t n = p_.code.size();
  alias_.resize(n);
  skip_.assign(n, 0);
  std::vector<uint32_t> uses(n, 0);
  for (size_t i = 0; i < n; ++i) {
    alias_[i] = static_cast<uint32_t>(i);
    for (int k = 0; k < p_.code[i].num_src; ++k) ++uses[p_.code[i].src[k]];
  }
  for (size_t i = 0; i < n; ++i) {
    const Instr& in = p_.code[i];
    if (in.op == Op::kASSIGN || in.op == Op::kREDUCE) alias_[i] = alias_[in.src[0]];
    if (in.op != Op::kASSIGN) continue;
    const uint32_t acc = alias_[in.src[0]], v = in.src[1];
    const Instr& value = p_.code[v];
    bool ok = v > acc && uses[v] == 1 && alias_[v] == v && loops_.varying[v] == loops_.varying[acc] &&
              value.op != Op::kDEFINE_ACC && value.op != Op::kLOAD && value.op != Op::kRANGE &&
              value.op != Op::kCONST && !loops_.broadcast[v];
    for (size_t j = v + 1; ok && j < i; ++j) {  // straight code, and acc unread, between the two
      const Instr& mid = p_.code[j];
      ok = mid.op != Op::kRANGE && mid.op != Op::kEND;
      for (int k = 0; ok && k < mid.num_src; ++k) ok = alias_[mid.src[k]] != acc;
    }
    if (!ok) continue;
    alias_[v] = acc;
    skip_[i] = 1;
  }
}

// The uniform values from before |lane_loop| that its lane ops read: broadcast once per entry.
std::vector<uint32_t> StepBuilder::EntrySplats(uint32_t lane_loop) const {
  std::vector<uint32_t> roots;
  for (int32_t i = lane_loop; i < loops_.end_of[lane_loop]; ++i) {
    const Op op = p_.code[i].op;
    if (!loops_.lane_op[i] || op == Op::kDEFINE_ACC || op == Op::kASSIGN) continue;
    for (uint32_t s : ValueSources(p_, i))
      if (s < lane_loop && std::find(roots.begin(), roots.end(), Root(s)) == roots.end()) roots.push_back(Root(s));
  }
  return roots;
}

// Registers of kLanes lanes, 64-byte aligned, after the uniform slots.
void StepBuilder::AllocateLaneRegisters() {
  size_t offset = (8 * p_.code.size() + 63) & ~size_t{63};
  lane_reg_.assign(p_.code.size(), Step::kNone);
  std::vector<uint8_t> needed(p_.code.size(), 0);
  for (size_t i = 0; i < p_.code.size(); ++i)
    if (loops_.varying[i] || loops_.broadcast[i]) needed[Root(i)] = 1;
  for (size_t i = 0; i < p_.code.size(); ++i) {
    if (!needed[i]) continue;
    lane_reg_[i] = static_cast<uint32_t>(offset);
    offset += (kLanes * std::max<size_t>(DTypeBytes(p_.code[i].dtype), 1) + 63) & ~size_t{63};
  }
  k_->scratch_bytes_ = offset;
}

tg_error* StepBuilder::Build() {
  Coalesce();
  AllocateLaneRegisters();
  loop_start_.assign(p_.code.size(), 0);
  for (uint32_t i = 0; i < p_.code.size(); ++i)
    if (tg_error* e = EmitLine(i)) return e;
  k_->lane_loops_ = loops_.loops;
  return nullptr;
}

tg_error* StepBuilder::EmitLine(uint32_t line) {
  const Instr& in = p_.code[line];
  const bool lanes = loops_.lane_op[line];
  const uint8_t bytes = static_cast<uint8_t>(DTypeBytes(in.dtype));
  Step s{StepKind::kConst};
  s.dst = Slot(line), s.bytes = bytes, s.imm = in.arg;
  switch (in.op) {
    case Op::kCONST: break;
    case Op::kDEFINE_GLOBAL:
      s.kind = StepKind::kBuffer;
      k_->buffers_needed_ = std::max<uint32_t>(k_->buffers_needed_, static_cast<uint32_t>(in.arg) + 1);
      break;
    case Op::kDEFINE_VAR:
      s.kind = StepKind::kVar;
      k_->scalars_needed_ = std::max<uint32_t>(k_->scalars_needed_, static_cast<uint32_t>(in.arg) + 1);
      break;
    case Op::kSPECIAL: s.kind = StepKind::kSpecial, s.bytes = static_cast<uint8_t>(DTypeBytes(in.dtype)); break;
    case Op::kINDEX: case Op::kREDUCE: return nullptr;  // read through by LOAD / STORE; the accumulator itself
    case Op::kLOAD: case Op::kSTORE: EmitMemory(line, lanes); return nullptr;
    case Op::kDEFINE_ACC: case Op::kASSIGN: {
      if (skip_[line]) return nullptr;
      const uint32_t from = in.src[in.op == Op::kASSIGN ? 1 : 0];
      if (lanes && !loops_.varying[from]) {  // a uniform start or update, broadcast straight in
        s.kind = StepKind::kSplat, s.dst = LaneReg(line), s.a = Slot(from);
      } else {
        s.kind = StepKind::kCopy;
        s.dst = lanes ? LaneReg(line) : Slot(line), s.a = lanes ? LaneReg(from) : Slot(from);
        s.bytes = 0, s.imm = lanes ? kLanes * bytes : bytes;
      }
      break;
    }
    case Op::kRANGE: {
      s.a = Slot(in.src[0]);
      if (loops_.lane_loop[line] == static_cast<int32_t>(line)) {
        for (uint32_t j : EntrySplats(line)) Splat(j);
        s.kind = StepKind::kLaneBegin, s.dst = LaneReg(line);
      } else {
        s.kind = StepKind::kRange, s.bytes = static_cast<uint8_t>(DTypeBytes(in.dtype));
      }
      loop_start_[line] = static_cast<uint32_t>(k_->steps_.size());
      Emit(s);
      if (s.kind == StepKind::kRange && loops_.broadcast[line]) Splat(line);
      return nullptr;
    }
    case Op::kEND: {
      const uint32_t range = in.src[0];
      const Step& begin = k_->steps_[loop_start_[range]];
      s = begin;
      s.kind = begin.kind == StepKind::kLaneBegin ? StepKind::kLaneEnd : StepKind::kEnd;
      s.jump = loop_start_[range] + 1;
      Emit(s);
      k_->steps_[loop_start_[range]].jump = static_cast<uint32_t>(k_->steps_.size());
      return nullptr;
    }
    default: return EmitAlu(line, lanes);
  }
  Emit(s);
  if (loops_.broadcast[line] && loops_.lane_loop[line] >= 0) Splat(line);  // inside a lane loop: per block
  return nullptr;
}

tg_error* StepBuilder::EmitAlu(uint32_t line, bool lanes) {
  const Instr& in = p_.code[line];
  Step s{StepKind::kAlu};
  s.lanes = lanes;
  const DType s0 = p_.code[in.src[0]].dtype, s1 = in.num_src > 1 ? p_.code[in.src[1]].dtype : s0;
  s.alu = FindAluKernel(in.op, in.dtype, s0, s1);
  if (s.alu == nullptr) {
    return MakeError(TG_CODE_INTERNAL, std::string("program_compile: tg-uops has no kernel for ") + OpName(in.op) +
                                           " of " + DTypeName(in.dtype) + " from " + DTypeName(s0));
  }
  uint32_t* operand[3] = {&s.a, &s.b, &s.c};
  for (int k = 0; k < in.num_src; ++k) *operand[k] = lanes ? LaneReg(in.src[k]) : Slot(in.src[k]);
  s.dst = lanes ? LaneReg(line) : Slot(line);
  Emit(s);
  if (!lanes && loops_.broadcast[line] && loops_.lane_loop[line] >= 0) Splat(line);
  return nullptr;
}

void StepBuilder::EmitMemory(uint32_t line, bool lanes) {
  const Instr& in = p_.code[line];
  const Instr& index = p_.code[in.src[0]];
  const bool store = in.op == Op::kSTORE;
  const Instr& gate = p_.code[index.src[2]];
  const bool always = gate.op == Op::kCONST && gate.arg == 1;
  Step s{store ? (lanes ? StepKind::kStoreLanes : StepKind::kStore) : (lanes ? StepKind::kLoadLanes : StepKind::kLoad)};
  s.bytes = static_cast<uint8_t>(DTypeBytes(index.dtype));
  s.index = p_.code[index.src[1]].dtype;
  s.a = Slot(index.src[0]);
  auto reg = [&](uint32_t l) { return lanes ? LaneReg(l) : Slot(l); };
  s.b = reg(index.src[1]);
  s.c = always ? Step::kNone : reg(index.src[2]);
  s.dst = store ? reg(in.src[1]) : reg(line);
  s.stride1 = lanes && loops_.stride1[index.src[1]];
  if (lanes && store) s.scatter = FindScatter(s.bytes, s.index);
  if (lanes && !store) s.gather = FindGather(s.bytes, s.index);
  Emit(s);
  if (!store && !lanes && loops_.broadcast[line] && loops_.lane_loop[line] >= 0) Splat(line);
}

tg_error* UopKernel::Build(std::string_view text, std::unique_ptr<UopKernel>* out) {
  auto k = std::make_unique<UopKernel>();
  if (tg_error* e = ParseProgram(text, &k->program_)) return e;
  StepBuilder builder(k.get());
  if (tg_error* e = builder.Build()) return e;
  *out = std::move(k);
  return nullptr;
}

namespace {

// A worker's registers, grown to the largest program it ran (never per op or block).
char* Scratch(size_t bytes) {
  thread_local std::unique_ptr<char[]> buffer;
  thread_local size_t size = 0;
  if (size < bytes + 64) {
    size = std::max(bytes + 64, 2 * size);
    buffer.reset(new char[size]());
  }
  return reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(buffer.get()) + 63) & ~uintptr_t{63});
}

int64_t ReadIndex(const char* p, DType dtype) {
  if (dtype == DType::ki64) {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}

// One element of 1, 2, 4 or 8 bytes, copied at a fixed size (a move, not a call to memcpy).
void CopyElement(void* dst, const void* src, size_t bytes) {
  switch (bytes) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
  }
}

void Iota(char* reg, int32_t first) {
  int32_t* lanes = reinterpret_cast<int32_t*>(reg);
  for (size_t i = 0; i < kLanes; ++i) lanes[i] = first + static_cast<int32_t>(i);
}

}  // namespace

int32_t UopKernel::Run(const tg_c_dispatch_state* d, const tg_c_workgroup_state* w) const {
  char* r = Scratch(scratch_bytes_);
  auto i32 = [r](uint32_t off) -> int32_t& { return *reinterpret_cast<int32_t*>(r + off); };
  auto i64 = [r](uint32_t off) -> int64_t& { return *reinterpret_cast<int64_t*>(r + off); };
  auto ptr = [r](uint32_t off) { return *reinterpret_cast<char**>(r + off); };
  int32_t chunk = 0;  // the lane loop's first index in this block (lane loops do not nest)
  size_t active = kLanes;
  const Step* steps = steps_.data();
  for (size_t pc = 0, n = steps_.size(); pc < n;) {
    const Step& s = steps[pc++];
    switch (s.kind) {
      case StepKind::kConst: memcpy(r + s.dst, &s.imm, 8); break;
      case StepKind::kBuffer: memcpy(r + s.dst, &d->buffers[s.imm], sizeof(void*)); break;
      case StepKind::kVar: i32(s.dst) = static_cast<int32_t>(d->scalars[s.imm]); break;
      case StepKind::kSpecial:
        if (s.bytes == 8) i64(s.dst) = w->group_id[s.imm];
        else i32(s.dst) = static_cast<int32_t>(w->group_id[s.imm]);
        break;
      case StepKind::kAlu:
        s.alu(r + s.dst, r + s.a, s.b == Step::kNone ? nullptr : r + s.b, s.c == Step::kNone ? nullptr : r + s.c,
              s.lanes ? kLanes : 1);
        break;
      case StepKind::kCopy: memmove(r + s.dst, r + s.a, static_cast<size_t>(s.imm)); break;
      case StepKind::kSplat: SplatLanes(r + s.dst, r + s.a, s.bytes); break;
      case StepKind::kLoad: {
        if (s.c == Step::kNone || r[s.c]) CopyElement(r + s.dst, ptr(s.a) + ReadIndex(r + s.b, s.index) * s.bytes, s.bytes);
        else memset(r + s.dst, 0, s.bytes);
        break;
      }
      case StepKind::kStore:
        if (s.c == Step::kNone || r[s.c]) CopyElement(ptr(s.a) + ReadIndex(r + s.b, s.index) * s.bytes, r + s.dst, s.bytes);
        break;
      case StepKind::kLoadLanes: case StepKind::kStoreLanes: {
        const uint8_t* gate = s.c == Step::kNone ? nullptr : reinterpret_cast<const uint8_t*>(r + s.c);
        if (s.stride1 && (gate == nullptr || AllOn(gate, active))) {
          char* mem = ptr(s.a) + ReadIndex(r + s.b, s.index) * s.bytes;
          if (s.kind == StepKind::kLoadLanes) CopyLanes(r + s.dst, mem, active * s.bytes);
          else CopyLanes(mem, r + s.dst, active * s.bytes);
        } else if (s.kind == StepKind::kLoadLanes) {
          s.gather(r + s.dst, ptr(s.a), r + s.b, gate, active);
        } else {
          s.scatter(ptr(s.a), r + s.b, r + s.dst, gate, active);
        }
        break;
      }
      case StepKind::kRange:
        if (s.bytes == 8) {
          i64(s.dst) = 0;
          if (i64(s.a) <= 0) pc = s.jump;
        } else {
          i32(s.dst) = 0;
          if (i32(s.a) <= 0) pc = s.jump;
        }
        break;
      case StepKind::kEnd:
        if (s.bytes == 8 ? ++i64(s.dst) < i64(s.a) : ++i32(s.dst) < i32(s.a)) pc = s.jump;
        break;
      case StepKind::kLaneBegin:
        chunk = 0;
        if (i32(s.a) <= 0) {
          pc = s.jump;
          break;
        }
        active = std::min<size_t>(kLanes, static_cast<size_t>(i32(s.a)));
        Iota(r + s.dst, 0);
        break;
      case StepKind::kLaneEnd:
        chunk += static_cast<int32_t>(kLanes);
        if (chunk < i32(s.a)) {
          active = std::min<size_t>(kLanes, static_cast<size_t>(i32(s.a) - chunk));
          Iota(r + s.dst, chunk);
          pc = s.jump;
        }
        break;
    }
  }
  return 0;
}

}  // namespace tg_cpu::uops
