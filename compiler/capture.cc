#include "compiler/capture.h"

#include "ir/error.h"

namespace tg::compiler {
namespace {

thread_local std::vector<ScheduleItem>* capture_target = nullptr;

}  // namespace

CaptureScope::CaptureScope() {
  if (capture_target != nullptr) throw Error("capture: a capture is already running on this thread");
  capture_target = &items_;
}

CaptureScope::~CaptureScope() { capture_target = nullptr; }

bool Capturing() { return capture_target != nullptr; }

void RecordForCapture(const ScheduleItem& item) {
  if (capture_target != nullptr) capture_target->push_back(item);
}

}  // namespace tg::compiler
