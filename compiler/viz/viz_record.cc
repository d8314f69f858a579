#include "compiler/viz/viz_record.h"

#include <cstdlib>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "compiler/codegen/codegen.h"
#include "compiler/viz/viz_page.h"

namespace tg::viz {
namespace {

struct Records {
  std::mutex mu;
  VizSnapshot snapshot;
  bool exit_hook = false;
};

Records& Global() {
  static Records* records = new Records();  // never destroyed: read by the exit hook
  return *records;
}

void WritePageAtExit() { WriteVizPage(); }

// The buffers of |schedule| in order of first use, with their uses and which share memory.
std::vector<BufferRecord> BufferRecords(const compiler::Schedule& schedule, std::vector<ItemRecord>& items) {
  std::vector<BufferRecord> buffers;
  absl::flat_hash_map<const UOp*, int> index;
  absl::flat_hash_map<const void*, int> block_of;
  absl::flat_hash_map<int, int> users_of_block;
  for (size_t i = 0; i < schedule.items.size(); ++i) {
    for (const UOpRef& b : schedule.items[i].buffers) {
      auto [it, fresh] = index.try_emplace(b.get(), static_cast<int>(buffers.size()));
      if (fresh) {
        const BufferArg& a = b->arg_as<BufferArg>();
        BufferRecord r;
        r.id = a.id, r.device = a.device, r.dtype = b->dtype().name(), r.numel = a.size;
        r.bytes = a.size * static_cast<int64_t>(b->dtype().itemsize());
        const void* storage = a.storage ? a.storage.get() : static_cast<const void*>(b.get());
        r.block = block_of.try_emplace(storage, static_cast<int>(block_of.size())).first->second;
        ++users_of_block[r.block];
        r.first_use = static_cast<int>(i);
        buffers.push_back(r);
      }
      buffers[it->second].last_use = static_cast<int>(i);
      items[i].buffers.push_back(it->second);
    }
  }
  for (BufferRecord& r : buffers) r.shared = users_of_block[r.block] > 1;
  return buffers;
}

}  // namespace

void RecordRealize(const std::vector<UOpRef>& roots) {
  if (!Recording()) return;
  int realize = RewriteTrace::Global().BeginRealize();
  Records& records = Global();
  std::lock_guard<std::mutex> lock(records.mu);
  if (!records.exit_hook && VizFromEnvironment()) records.exit_hook = std::atexit(WritePageAtExit) == 0;
  if (realize > kMaxRealizes) {
    ++records.snapshot.dropped;
    return;
  }
  records.snapshot.graphs.push_back({RewriteTrace::Global().NextSeq(), realize, TraceGraph(UOp::Sink(roots))});
}

void RecordSchedule(const compiler::Schedule& schedule) {
  if (!Recording()) return;
  ScheduleRecord r;
  r.realize = RewriteTrace::Global().CurrentRealize();
  if (r.realize > kMaxRealizes || schedule.items.empty()) return;
  for (const compiler::ScheduleItem& item : schedule.items) {
    bool kernel = item.kind == compiler::ScheduleItem::Kind::kKernel;
    r.items.push_back({kernel ? "kernel" : "copy", kernel ? compiler::KernelName(item.ast) : "copy", item.device, {}});
  }
  r.buffers = BufferRecords(schedule, r.items);
  r.seq = RewriteTrace::Global().NextSeq();
  Records& records = Global();
  std::lock_guard<std::mutex> lock(records.mu);
  records.snapshot.schedules.push_back(std::move(r));
}

void RecordKernel(const std::string& name, const std::string& device, const std::vector<std::string>& opts,
                  const runtime::KernelSource& source, const runtime::LaunchDims& dims) {
  if (!Recording()) return;
  KernelRecord r{RewriteTrace::Global().NextSeq(), RewriteTrace::Global().CurrentRealize(), name, device,
                 source.dialect, source.source, opts, dims};
  Records& records = Global();
  std::lock_guard<std::mutex> lock(records.mu);
  records.snapshot.kernels.push_back(std::move(r));
}

VizSnapshot Snapshot() {
  Records& records = Global();
  VizSnapshot out;
  {
    std::lock_guard<std::mutex> lock(records.mu);
    out = records.snapshot;
  }
  out.passes = RewriteTrace::Global().Steps();
  out.dropped += RewriteTrace::Global().DroppedSteps();
  return out;
}

void ClearRecords() {
  Records& records = Global();
  std::lock_guard<std::mutex> lock(records.mu);
  records.snapshot = VizSnapshot();
  RewriteTrace::Global().Clear();
}

}  // namespace tg::viz
