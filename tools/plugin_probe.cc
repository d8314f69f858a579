// plugin_probe.cc: fork, load one plugin in the child, stream its report back over a pipe.
#include "tools/plugin_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sstream>

#include "runtime/device_registry.h"
#include "tools/devices_command.h"

namespace tg::tools {
namespace {

// The child's last line on the report pipe. A report without it was cut short by a crash, even when
// the process then exited normally (sanitizers turn SIGSEGV into exit(1)).
constexpr char kEndMarker[] = "\n#tg-probe-end ";

[[noreturn]] void RunChild(const std::string& path, int report_fd, int stderr_fd) {
  dup2(stderr_fd, STDERR_FILENO);
  std::ostringstream out;
  bool has_devices = false;
  {
    runtime::DeviceRegistry registry({path});
    std::vector<runtime::PluginReport> reports = registry.Plugins();
    PrintDevices(reports, out);
    for (const runtime::PluginReport& r : reports) has_devices |= !r.devices.empty();
  }  // devices closed and the plugin shut down: a crash there is a crash too
  out << kEndMarker << (has_devices ? "devices" : "none") << "\n";
  std::string text = out.str();
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(report_fd, text.data() + done, text.size() - done);
    if (n <= 0) _exit(3);
    done += static_cast<size_t>(n);
  }
  _exit(0);  // no static destructors or atexit handlers of a half-understood plugin
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Reads both pipes until they close or |deadline| passes. Returns false on timeout.
bool Drain(int report_fd, int stderr_fd, double deadline, std::string* report, std::string* err) {
  pollfd fds[2] = {{report_fd, POLLIN, 0}, {stderr_fd, POLLIN, 0}};
  std::string* sinks[2] = {report, err};
  int open_count = 2;
  while (open_count > 0) {
    int wait_ms = static_cast<int>((deadline - Now()) * 1000);
    if (wait_ms <= 0) return false;
    int ready = poll(fds, 2, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return ready == 0 ? false : true;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;
        --open_count;
      } else if (sinks[i]->size() < (1 << 20)) {  // a chatty plugin cannot exhaust our memory
        sinks[i]->append(buf, static_cast<size_t>(n));
      }
    }
  }
  return true;
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\n \t");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* name = strsignal(sig);
    return "was killed by signal " + std::to_string(sig) + " (" + (name ? name : "unknown") + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status)) + " before finishing its report";
  return "ended abnormally (wait status " + std::to_string(status) + ")";
}

}  // namespace

ProbeResult ProbePlugin(const std::string& path, int timeout_seconds) {
  ProbeResult r;
  r.path = path;
  int report_pipe[2], stderr_pipe[2];
  if (pipe2(report_pipe, O_CLOEXEC) != 0) return r.failure = std::string("pipe: ") + strerror(errno), r;
  if (pipe2(stderr_pipe, O_CLOEXEC) != 0) {
    close(report_pipe[0]), close(report_pipe[1]);
    return r.failure = std::string("pipe: ") + strerror(errno), r;
  }
  fflush(nullptr);  // nothing buffered may be printed twice
  pid_t pid = fork();
  if (pid == 0) {
    close(report_pipe[0]), close(stderr_pipe[0]);
    RunChild(path, report_pipe[1], stderr_pipe[1]);
  }
  close(report_pipe[1]), close(stderr_pipe[1]);
  if (pid < 0) {
    close(report_pipe[0]), close(stderr_pipe[0]);
    return r.failure = std::string("fork: ") + strerror(errno), r;
  }
  std::string report, err;
  bool finished = Drain(report_pipe[0], stderr_pipe[0], Now() + timeout_seconds, &report, &err);
  close(report_pipe[0]), close(stderr_pipe[0]);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.last_words = LastLine(err);
  size_t marker = report.rfind(kEndMarker);
  if (!finished) {
    r.failure = "did not finish within " + std::to_string(timeout_seconds) + " s (killed)";
  } else if (marker == std::string::npos || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.failure = DescribeExit(status);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) r.failure = "exited without finishing its report";
  } else {
    r.completed = true;
    r.has_devices = report.compare(marker + strlen(kEndMarker), 7, "devices") == 0;
    r.report = report.substr(0, marker);  // the marker starts with the newline after the last line
  }
  return r;
}

std::string CrashedBlock(const ProbeResult& r) {
  std::string name = r.path.substr(r.path.rfind('/') + 1);
  std::string out = name + "  [crashed]\n  path: " + r.path +
                    "\n  reason: the probe process " + r.failure +
                    " (the plugin crashed while being loaded, initialized or queried)\n";
  if (!r.last_words.empty()) out += "  last stderr line: " + r.last_words + "\n";
  return out;
}

}  // namespace tg::tools
