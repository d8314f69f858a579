// child_call.cc: fork, two pipes (the result; the child's stdout and stderr), poll with a deadline,
// waitpid.
#include "plugins/hip/child_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>

namespace tg_hip {
namespace {

using Clock = std::chrono::steady_clock;
using End = ChildCallResult::End;

constexpr size_t kOutputKept = 4096;  // enough for the last words of a dying library

// Both ends close on exec, so a process another thread spawns meanwhile cannot hold them open.
struct Pipe {
  int read = -1, write = -1;
  bool Open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0], write = fds[1];
    return true;
  }
  ~Pipe() {
    if (read >= 0) close(read);
    if (write >= 0) close(write);
  }
  void CloseWrite() {
    if (write >= 0) close(write);
    write = -1;
  }
};

void WriteAll(int fd, const std::string& bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += size_t(n);
  }
}

// The child: the result pipe carries "Y", or "N" and |body|'s message; nothing else writes to it,
// so a child that dies before the end leaves it short.
[[noreturn]] void RunChild(const std::function<std::string()>& body, int result_fd, int output_fd) {
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // an expected crash should not leave a core file behind
  dup2(output_fd, STDOUT_FILENO);
  dup2(output_fd, STDERR_FILENO);
  std::string failure;
  try {
    failure = body();
    if (failure.empty()) WriteAll(result_fd, "Y");
  } catch (const std::exception& e) {
    failure = std::string("exception: ") + e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  if (!failure.empty()) WriteAll(result_fd, "N" + failure);
  _exit(0);  // not exit(): the host's atexit handlers and static destructors belong to the parent
}

// Appends what |fd| has to |*into|; false at end of file or on an error.
bool ReadSome(int fd, std::string* into) {
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  into->append(buf, size_t(n));
  return true;
}

void KeepTail(std::string* s) {
  if (s->size() > kOutputKept) s->erase(0, s->size() - kOutputKept);
}

// What |fd| holds now, without waiting for more: what the child wrote before it ended is in the
// pipe already.
void Drain(int fd, std::string* into) {
  if (fcntl(fd, F_SETFL, O_NONBLOCK) != 0) return;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    into->append(buf, size_t(n));
    KeepTail(into);
  }
}

// Reads both pipes until the result pipe's end of file (the child ended or closed it) or
// |deadline|; false at the deadline. The output pipe is read too, so a talkative child never blocks
// on a full pipe; a grandchild may hold it open, so its end of file is not waited for.
bool Collect(int result_fd, int output_fd, Clock::time_point deadline, std::string* result, std::string* output) {
  pollfd fds[2] = {{result_fd, POLLIN, 0}, {output_fd, POLLIN, 0}};
  while (fds[0].fd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    int n = poll(fds, 2, int(std::min<long long>(left, 1000 * 1000)));
    if (n < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2 && n > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      if (!ReadSome(fds[i].fd, i == 0 ? result : output)) fds[i].fd = -1;
    }
    KeepTail(output);
  }
  Drain(output_fd, output);
  return true;
}

// The child's wait status; -1 when it cannot be had (SIGCHLD ignored by the host: already reaped).
int Reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

ChildCallResult Interpret(const std::string& result, bool finished, int wait_status) {
  ChildCallResult r;
  if (!result.empty() && result[0] == 'Y') return r.end = End::kSucceeded, r;
  if (!result.empty() && result[0] == 'N') return r.end = End::kFailed, r.message = result.substr(1), r;
  if (!finished) return r.end = End::kTimedOut, r;
  if (wait_status != -1 && WIFSIGNALED(wait_status)) return r.end = End::kSignaled, r.status = WTERMSIG(wait_status), r;
  r.end = End::kExited;
  r.status = wait_status != -1 && WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  return r;
}

}  // namespace

ChildCallResult CallInChild(const std::function<std::string()>& body, std::chrono::milliseconds timeout,
                            std::shared_mutex* fork_lock) {
  Pipe result, output;
  if (!result.Open() || !output.Open()) {
    ChildCallResult r;
    r.message = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  pid_t pid = -1;
  {
    std::unique_lock<std::shared_mutex> lock;
    if (fork_lock != nullptr) lock = std::unique_lock<std::shared_mutex>(*fork_lock);
    pid = fork();
    if (pid == 0) RunChild(body, result.write, output.write);
  }
  if (pid < 0) {
    ChildCallResult r;
    r.message = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  result.CloseWrite();  // the child's copies are the only writers left: their end is the child's
  output.CloseWrite();
  std::string result_bytes, output_bytes;
  bool finished = Collect(result.read, output.read, Clock::now() + timeout, &result_bytes, &output_bytes);
  if (!finished) kill(pid, SIGKILL);
  ChildCallResult r = Interpret(result_bytes, finished, Reap(pid));
  r.output = std::move(output_bytes);
  return r;
}

}  // namespace tg_hip
