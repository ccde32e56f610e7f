// The command target: long-running processes speaking JSON lines on stdin and stdout,
// one per pool worker, each answering one question at a time.
//
// A process that exits, closes its stdout or stops answering (timeout) is killed with
// its process group and started again for the next attempt; the failed attempt is
// retried by the run loop. stderr of every process is appended to one file.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "ragmeter/run.h"
#include "run/json_select.h"

namespace ragmeter {
namespace {

using Clock = std::chrono::steady_clock;

struct Process {
  pid_t pid = -1;
  int in = -1;   // its stdin (we write)
  int out = -1;  // its stdout (we read)
  int err = -1;  // its stderr (we read, non-blocking, and copy to the stderr file)
  std::string buffer;    // bytes read past the last line
  std::string err_tail;  // the last bytes of its own stderr, for the message when it dies
};

constexpr std::size_t kStderrTailBytes = 2000;

std::string exit_text(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

class CommandTarget final : public BlockingTarget {
 public:
  explicit CommandTarget(CommandTargetOptions options)
      : options_(std::move(options)), processes_(static_cast<std::size_t>(options_.processes)) {
    if (!options_.stderr_path.empty()) {
      stderr_fd_ = open(options_.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
  }

  ~CommandTarget() override {
    for (Process& p : processes_) stop(p, /*gently=*/true);
    if (stderr_fd_ >= 0) close(stderr_fd_);
  }

  TargetOutcome answer(const TargetRequest& request, int worker) override {
    Process& process = processes_[static_cast<std::size_t>(worker)];
    if (process.pid < 0) {
      if (Status s = start(process); !s.ok()) return target_failure("process_died", s.message(), true);
    }
    nlohmann::ordered_json line = {{"id", request.id},
                                   {"index", request.index},
                                   {"question", request.question},
                                   {"row", *request.row}};
    if (request.messages != nullptr) line["messages"] = *request.messages;
    std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (!write_all(process.in, text)) return died(process, "before reading the question");
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(options_.timeout_seconds));
    std::string reply;
    while (true) {
      std::size_t newline = process.buffer.find('\n');
      if (newline != std::string::npos) {
        reply = process.buffer.substr(0, newline);
        process.buffer.erase(0, newline + 1);
        break;
      }
      if (process.buffer.size() > options_.max_reply_bytes) {
        std::string seen = run::truncate_for_message(process.buffer);
        stop(process, false);
        return target_failure("reply_too_large", "the reply line is longer than " +
                                                     std::to_string(options_.max_reply_bytes) +
                                                     " bytes: " + seen);
      }
      if (cancelled_.load()) {  // the run stopped: the answer in progress is not waited for
        stop(process, false);
        return target_failure("interrupted", "the run was interrupted while the command answered");
      }
      int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         deadline - Clock::now()).count());
      if (wait_ms <= 0) {
        stop(process, false);
        ++restarts_;
        return target_failure("timeout", "the command gave no reply line within " +
                                             std::to_string(options_.timeout_seconds) +
                                             " s; it was killed and will be started again", true);
      }
      pollfd poll_fds[2] = {{process.out, POLLIN, 0}, {process.err, POLLIN, 0}};
      int ready = poll(poll_fds, process.err >= 0 ? 2 : 1, std::min(wait_ms, kCancelCheckMs));
      if (ready < 0 && errno != EINTR) return died(process, "(poll failed)");
      if (ready <= 0) continue;
      if (process.err >= 0 && poll_fds[1].revents != 0) drain_stderr(process);
      if (poll_fds[0].revents == 0) continue;
      char chunk[65536];
      ssize_t n = read(process.out, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return died(process, "before answering");
      process.buffer.append(chunk, static_cast<std::size_t>(n));
    }
    if (!reply.empty() && reply.back() == '\r') reply.pop_back();
    return answer_from_reply(reply, options_.selectors);
  }

  std::string identity() const override {
    return nlohmann::ordered_json({{"kind", "command"},
                                   {"command", options_.command},
                                   {"answer", options_.selectors.answer},
                                   {"contexts", options_.selectors.contexts},
                                   {"context_text", options_.selectors.context_text},
                                   {"context_id", options_.selectors.context_id}})
        .dump();
  }

  void cancel() override { cancelled_.store(true); }

  nlohmann::ordered_json diagnostics() const override {
    nlohmann::ordered_json out = {{"command", options_.command},
                                  {"processes", options_.processes},
                                  {"restarts", restarts_.load()}};
    if (!options_.stderr_path.empty()) {
      out["stderr_file"] = options_.stderr_path;
      out["stderr_tail"] = stderr_tail();
    }
    return out;
  }

 private:
  // The last 2,000 bytes of the stderr file (all processes').
  std::string stderr_tail() const {
    std::ifstream file(options_.stderr_path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    std::string all = text.str();
    return all.size() <= kStderrTailBytes ? all : all.substr(all.size() - kStderrTailBytes);
  }

  // Copies what the process has written to its stderr so far to the stderr file, keeping
  // its own last bytes: processes share the file, so the file's last line may be another's.
  void drain_stderr(Process& process) {
    if (process.err < 0) return;
    char chunk[65536];
    while (true) {
      ssize_t n = read(process.err, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // EAGAIN: nothing more now; 0: closed
      write_all(stderr_fd_, std::string(chunk, static_cast<std::size_t>(n)));
      process.err_tail.append(chunk, static_cast<std::size_t>(n));
      if (process.err_tail.size() > kStderrTailBytes) {
        process.err_tail.erase(0, process.err_tail.size() - kStderrTailBytes);
      }
    }
  }

  void close_stderr(Process& process) {
    drain_stderr(process);
    if (process.err >= 0) close(process.err);
    process.err = -1;
  }

  Status start(Process& process) {
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) return unavailable(std::string("pipe: ") + std::strerror(errno));
    if (pipe2(from_child, O_CLOEXEC) != 0) {
      close(to_child[0]);
      close(to_child[1]);
      return unavailable(std::string("pipe: ") + std::strerror(errno));
    }
    int err_pipe[2] = {-1, -1};
    if (stderr_fd_ >= 0 && pipe2(err_pipe, O_CLOEXEC) != 0) {
      for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
      return unavailable(std::string("pipe: ") + std::strerror(errno));
    }
    int err = stderr_fd_ >= 0 ? err_pipe[1] : open("/dev/null", O_WRONLY | O_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) {  // the child: only async-signal-safe calls until exec
      setpgid(0, 0);
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      dup2(err, 2);
      execl("/bin/sh", "sh", "-c", options_.command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(err);
    close(to_child[0]);
    close(from_child[1]);
    if (pid < 0) {
      close(to_child[1]);
      close(from_child[0]);
      if (err_pipe[0] >= 0) close(err_pipe[0]);
      return unavailable(std::string("fork: ") + std::strerror(errno));
    }
    process.pid = pid;
    process.in = to_child[1];
    process.out = from_child[0];
    process.err = err_pipe[0];
    if (process.err >= 0) fcntl(process.err, F_SETFL, fcntl(process.err, F_GETFL) | O_NONBLOCK);
    process.buffer.clear();
    process.err_tail.clear();
    return ok_status();
  }

  // Ends the process (gently: closes its stdin and waits up to two seconds first) and returns
  // the last bytes of its own stderr.
  std::string stop(Process& process, bool gently) {
    if (process.in >= 0) close(process.in);
    if (process.pid >= 0) {
      int status = 0;
      bool reaped = false;
      if (gently) {
        for (int i = 0; i < 200 && !reaped; ++i) {
          reaped = waitpid(process.pid, &status, WNOHANG) == process.pid;
          if (!reaped) usleep(10000);
        }
      }
      if (!reaped) {
        kill(-process.pid, SIGKILL);
        kill(process.pid, SIGKILL);
        waitpid(process.pid, &status, 0);
      }
    }
    if (process.out >= 0) close(process.out);
    close_stderr(process);  // after it ended: what it wrote is in the pipe
    std::string tail = std::move(process.err_tail);
    process = Process{};
    return tail;
  }

  TargetOutcome died(Process& process, const std::string& when) {
    // The process may still be running with its stdout closed: end it either way.
    if (process.in >= 0) close(process.in);
    process.in = -1;
    int status = 0;
    pid_t pid = process.pid;
    std::string how = "closed its stdout";
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        how = exit_text(status);
        process.pid = -1;
        break;
      }
      usleep(10000);
    }
    const std::string own_tail = stop(process, false);
    ++restarts_;
    std::string tail = options_.stderr_path.empty() ? "" : "; stderr ends: " + run::truncate_for_message(last_line(own_tail), 300);
    return target_failure("process_died", "the command " + how + " " + when +
                                              "; it will be started again" + tail, true);
  }

  static std::string last_line(std::string tail) {
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
    std::size_t start = tail.rfind('\n');
    return start == std::string::npos ? tail : tail.substr(start + 1);
  }

  static bool write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      ssize_t n = write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  CommandTargetOptions options_;
  std::vector<Process> processes_;
  int stderr_fd_ = -1;
  std::atomic<std::int64_t> restarts_{0};
  std::atomic<bool> cancelled_{false};
  static constexpr int kCancelCheckMs = 100;  // a waiting answer looks at cancelled_ this often
};

}  // namespace

StatusOr<std::unique_ptr<Target>> make_command_target(const CommandTargetOptions& options) {
  if (options.command.empty()) return invalid_argument("the target command is empty");
  if (options.processes < 1) return invalid_argument("the command target needs at least one process");
  // A process that dies while we write to it must not end ragmeter with SIGPIPE: the
  // write fails with EPIPE instead, and the attempt is retried.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, nullptr);
  auto target = std::make_shared<CommandTarget>(options);
  return make_pooled_target(std::move(target), options.processes);
}

}  // namespace ragmeter
