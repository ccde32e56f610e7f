#include "stop_signal.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "exit_codes.h"

namespace ragmeter::cli {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_immediate{false};

// The temporaries of uncommitted OutputFiles, for the handlers to remove: fixed storage
// and lock-free states, since a handler may only read and unlink.
constexpr int kSlots = 16;
constexpr std::size_t kPathBytes = 4096;
enum : int { kFree, kFilling, kListed };
char g_temporaries[kSlots][kPathBytes];
std::atomic<int> g_slot_state[kSlots];

void remove_temporaries() {
  for (int i = 0; i < kSlots; ++i) {
    if (g_slot_state[i].load() == kListed) unlink(g_temporaries[i]);
  }
}

void on_stop_signal(int) {
  if (g_immediate.load() || g_stop.exchange(true)) {
    remove_temporaries();
    _exit(kExitInterrupted);
  }
}

// The slot now listing `path`, or -1 (no free slot, or a path too long to list: the file
// is still removed by its OutputFile's destructor, only not by a signal).
int list_temporary(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slot_state[i].compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_temporaries[i], path.c_str(), path.size() + 1);
    g_slot_state[i].store(kListed);
    return i;
  }
  return -1;
}

void unlist_temporary(int slot) {
  if (slot >= 0) g_slot_state[slot].store(kFree);
}

}  // namespace

void install_stop_handlers(StopMode mode) {
  g_immediate.store(mode == StopMode::kImmediate);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

const std::atomic<bool>& stop_flag() { return g_stop; }
bool stop_requested() { return g_stop.load(); }

ClientCanceller::ClientCanceller(std::initializer_list<llm::Client*> clients) {
  for (llm::Client* client : clients) {
    if (client != nullptr) clients_.push_back(client);
  }
}

void ClientCanceller::poll() {
  if (!stop_requested() || done_.exchange(true)) return;
  for (llm::Client* client : clients_) client->cancel();
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  std::error_code error;
  const auto status = std::filesystem::status(path_, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    direct_ = true;  // a device or a pipe (/dev/stdout): written as it is, not replaced
    errno = 0;
    out_.open(path_, std::ios::binary);
    if (!out_.is_open()) open_errno_ = errno != 0 ? errno : EIO;
    return;
  }
  temporary_ = path_ + ".tmp-" + std::to_string(getpid());
  slot_ = list_temporary(temporary_);
  errno = 0;
  out_.open(temporary_, std::ios::binary);
  if (!out_.is_open()) open_errno_ = errno != 0 ? errno : EIO;
}

OutputFile::~OutputFile() {
  if (committed_ || direct_) return;
  if (out_.is_open()) out_.close();
  std::remove(temporary_.c_str());
  unlist_temporary(slot_);
}

Status OutputFile::commit() {
  out_.close();
  if (open_errno_ != 0) {
    if (!direct_) {
      unlist_temporary(slot_);
      committed_ = true;  // nothing was created
    }
    return invalid_argument("cannot write " + path_ + ": " + std::strerror(open_errno_));
  }
  if (direct_) return out_ ? ok_status() : unavailable("cannot write " + path_);
  if (!out_ || std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    std::remove(temporary_.c_str());
    unlist_temporary(slot_);
    committed_ = true;  // nothing left to remove
    return unavailable("cannot write " + path_);
  }
  unlist_temporary(slot_);
  committed_ = true;
  return ok_status();
}

}  // namespace ragmeter::cli
