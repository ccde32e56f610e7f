// The libcurl transport: one multi handle, one loop thread, epoll.
//
// The loop drives libcurl through curl_multi_socket_action with its own epoll set
// rather than curl_multi_poll + curl_multi_perform: perform visits every transfer on
// every wake-up (a poll() per idle transfer), which at 1024 requests in flight costs
// far more CPU than the requests themselves; socket_action only touches the sockets
// that are ready. An eventfd wakes the loop for work posted from other threads.
#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "llm/http_transport.h"

namespace ragmeter::llm {
namespace {

using Clock = std::chrono::steady_clock;

struct Transfer {
  CURL* easy = nullptr;
  bool active = false;
  std::uint64_t id = 0;  // of the current exchange; 0 when idle
  HttpRequest request;
  HttpResponse response;
  curl_slist* header_list = nullptr;
  HttpTransport::Callback done;
  char error_buffer[CURL_ERROR_SIZE] = {};
};

struct PendingSend {  // a send() from another thread, for the loop to start
  HttpRequest request;
  HttpTransport::Callback done;
  std::uint64_t id = 0;
};

struct Timer {
  Clock::time_point due;
  std::uint64_t sequence = 0;  // keeps tasks with equal deadlines in submission order
  HttpTransport::Task task;
};

// std::push_heap keeps the greatest element first; the earliest timer must be first.
bool runs_later(const Timer& a, const Timer& b) {
  return a.due != b.due ? a.due > b.due : a.sequence > b.sequence;
}

std::string lower_ascii(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  transfer->response.body.append(data, size * count);
  if (transfer->request.on_data) transfer->request.on_data(std::string_view(data, size * count));
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  std::string_view line = trim(std::string_view(data, size * count));
  if (line.starts_with("HTTP/")) {
    transfer->response.headers.clear();  // a new response (after 100 Continue, say)
  } else if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    transfer->response.headers[lower_ascii(trim(line.substr(0, colon)))] =
        std::string(trim(line.substr(colon + 1)));
  }
  return size * count;
}

// So that max_connections sockets fit: never above the hard limit.
void raise_open_files_limit(int max_connections) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  rlim_t wanted = static_cast<rlim_t>(max_connections) + 256;
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= wanted) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(const CurlTransportOptions& options) : options_(options) {}
  ~CurlTransport() override;

  Status init();
  std::uint64_t send(HttpRequest request, Callback done) override;
  void cancel(std::uint64_t id) override;
  void schedule(double delay_seconds, Task task) override;

 private:
  static int on_socket(CURL* easy, curl_socket_t socket, int what, void* user, void* socket_data);
  static int on_timer(CURLM* multi, long timeout_ms, void* user);

  bool on_loop_thread() const;
  void wake();
  void run();
  int wait_milliseconds() const;
  void take_incoming();
  void start(HttpRequest request, Callback done, std::uint64_t id);
  Transfer* idle_transfer();
  void set_up_handle(Transfer& transfer);
  void configure(Transfer& transfer);
  void finish_transfers();
  void run_due_timers();
  void add_timer(Timer timer);

  CurlTransportOptions options_;
  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::thread loop_;
  std::atomic<bool> stopping_{false};

  // Loop thread only.
  std::vector<std::unique_ptr<Transfer>> transfers_;  // every transfer ever made
  std::vector<Transfer*> idle_;                       // reusable, easy handle kept
  std::vector<Timer> timers_;                         // a heap, earliest first
  std::optional<Clock::time_point> curl_due_;
  std::unordered_map<std::uint64_t, Transfer*> running_;  // by exchange id

  // Guarded by mutex_: work posted from other threads.
  std::mutex mutex_;
  std::vector<PendingSend> incoming_sends_;
  std::vector<Timer> incoming_timers_;
  bool wake_pending_ = false;
  std::uint64_t next_sequence_ = 0;
  std::atomic<std::uint64_t> next_id_{1};
};

thread_local const CurlTransport* current_loop = nullptr;

Status CurlTransport::init() {
  static std::once_flag global_init;
  static CURLcode global_result = CURLE_OK;
  std::call_once(global_init, [] { global_result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (global_result != CURLE_OK) {
    return unavailable(std::string("libcurl init failed: ") + curl_easy_strerror(global_result));
  }
  raise_open_files_limit(options_.max_connections);
  multi_ = curl_multi_init();
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (multi_ == nullptr || epoll_fd_ < 0 || wake_fd_ < 0) {
    return unavailable(std::string("cannot set up the HTTP event loop: ") + std::strerror(errno));
  }
  epoll_event wake_event{};
  wake_event.events = EPOLLIN;
  wake_event.data.fd = wake_fd_;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake_event);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlTransport::on_socket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlTransport::on_timer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(options_.max_connections));
  loop_ = std::thread([this] { run(); });
  return ok_status();
}

CurlTransport::~CurlTransport() {
  if (loop_.joinable()) {
    stopping_.store(true);
    wake();
    loop_.join();
  }
  for (auto& transfer : transfers_) {
    if (transfer->active) curl_multi_remove_handle(multi_, transfer->easy);
    curl_easy_cleanup(transfer->easy);
    curl_slist_free_all(transfer->header_list);
  }
  if (multi_ != nullptr) curl_multi_cleanup(multi_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool CurlTransport::on_loop_thread() const { return current_loop == this; }

void CurlTransport::wake() {
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(wake_fd_, &one, sizeof(one));
}

std::uint64_t CurlTransport::send(HttpRequest request, Callback done) {
  std::uint64_t id = next_id_.fetch_add(1);
  if (on_loop_thread()) {
    start(std::move(request), std::move(done), id);
    return id;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  incoming_sends_.push_back({std::move(request), std::move(done), id});
  if (!std::exchange(wake_pending_, true)) wake();
  return id;
}

// Removing a running easy handle closes its connection: libcurl cannot reuse one whose
// response was not read to the end.
void CurlTransport::cancel(std::uint64_t id) {
  auto found = running_.find(id);
  if (found == running_.end()) return;
  Transfer* transfer = found->second;
  running_.erase(found);
  curl_multi_remove_handle(multi_, transfer->easy);
  transfer->active = false;
  transfer->id = 0;
  HttpResponse response = std::move(transfer->response);
  response.status = 0;
  response.cancelled = true;
  response.error = "cancelled by the client";
  Callback done = std::move(transfer->done);
  transfer->request = HttpRequest{};
  idle_.push_back(transfer);
  schedule(0, [done = std::move(done), response = std::move(response)]() mutable {
    done(std::move(response));
  });
}

void CurlTransport::schedule(double delay_seconds, Task task) {
  auto delay = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(0.0, delay_seconds)));
  Timer timer{Clock::now() + delay, 0, std::move(task)};
  std::lock_guard<std::mutex> lock(mutex_);
  timer.sequence = next_sequence_++;
  if (on_loop_thread()) {
    add_timer(std::move(timer));
    return;
  }
  incoming_timers_.push_back(std::move(timer));
  if (!std::exchange(wake_pending_, true)) wake();
}

int CurlTransport::on_socket(CURL*, curl_socket_t socket, int what, void* user, void* socket_data) {
  auto* self = static_cast<CurlTransport*>(user);
  if (what == CURL_POLL_REMOVE) {
    epoll_ctl(self->epoll_fd_, EPOLL_CTL_DEL, socket, nullptr);
    return 0;
  }
  epoll_event event{};
  event.data.fd = socket;
  if (what & CURL_POLL_IN) event.events |= EPOLLIN;
  if (what & CURL_POLL_OUT) event.events |= EPOLLOUT;
  // socket_data marks sockets already in the epoll set; the fallbacks cover a descriptor
  // number reused before libcurl told us about the old socket's removal.
  int operation = socket_data != nullptr ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(self->epoll_fd_, operation, socket, &event) != 0) {
    operation = errno == EEXIST ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    epoll_ctl(self->epoll_fd_, operation, socket, &event);
  }
  if (socket_data == nullptr) curl_multi_assign(self->multi_, socket, self);
  return 0;
}

int CurlTransport::on_timer(CURLM*, long timeout_ms, void* user) {
  auto* self = static_cast<CurlTransport*>(user);
  if (timeout_ms < 0) {
    self->curl_due_.reset();
  } else {
    self->curl_due_ = Clock::now() + std::chrono::milliseconds(timeout_ms);
  }
  return 0;
}

void CurlTransport::run() {
  current_loop = this;
  std::vector<epoll_event> events(256);
  while (!stopping_.load()) {
    int ready = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                           wait_milliseconds());
    int running = 0;
    for (int i = 0; i < ready; ++i) {
      int fd = events[i].data.fd;
      if (fd == wake_fd_) {
        std::uint64_t count = 0;
        [[maybe_unused]] ssize_t got = read(wake_fd_, &count, sizeof(count));
        continue;
      }
      std::uint32_t flags = events[i].events;
      int mask = 0;
      if (flags & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) mask |= CURL_CSELECT_IN;
      if (flags & EPOLLOUT) mask |= CURL_CSELECT_OUT;
      if (flags & EPOLLERR) mask |= CURL_CSELECT_ERR;
      curl_multi_socket_action(multi_, fd, mask, &running);
    }
    if (curl_due_ && Clock::now() >= *curl_due_) {
      curl_due_.reset();
      curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    take_incoming();
    finish_transfers();
    run_due_timers();
  }
}

int CurlTransport::wait_milliseconds() const {
  std::optional<Clock::time_point> due = curl_due_;
  if (!timers_.empty() && (!due || timers_.front().due < *due)) due = timers_.front().due;
  if (!due) return 1000;
  auto remaining = std::chrono::ceil<std::chrono::milliseconds>(*due - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(remaining, 0, 1000));
}

void CurlTransport::take_incoming() {
  std::vector<PendingSend> sends;
  std::vector<Timer> timers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sends.swap(incoming_sends_);
    timers.swap(incoming_timers_);
    wake_pending_ = false;
  }
  for (auto& send : sends) start(std::move(send.request), std::move(send.done), send.id);
  for (auto& timer : timers) add_timer(std::move(timer));
}

// Reuses an idle easy handle when there is one: its connection and TLS session caches
// live in the multi handle, but init and teardown still cost.
Transfer* CurlTransport::idle_transfer() {
  if (idle_.empty()) {
    transfers_.push_back(std::make_unique<Transfer>());
    Transfer* transfer = transfers_.back().get();
    transfer->easy = curl_easy_init();
    if (transfer->easy != nullptr) set_up_handle(*transfer);
    return transfer;
  }
  // Not curl_easy_reset: configure() sets every option that differs between requests,
  // and a reset would free and reallocate the handle's buffers each time.
  Transfer* transfer = idle_.back();
  idle_.pop_back();
  return transfer;
}

void CurlTransport::start(HttpRequest request, Callback done, std::uint64_t id) {
  Transfer* transfer = idle_transfer();
  transfer->request = std::move(request);
  transfer->done = std::move(done);
  transfer->response = HttpResponse{};
  transfer->error_buffer[0] = '\0';
  configure(*transfer);
  if (transfer->easy == nullptr || curl_multi_add_handle(multi_, transfer->easy) != CURLM_OK) {
    // Reported from the timer queue: callers never see their callback run inside send().
    Callback done = std::move(transfer->done);
    if (transfer->easy != nullptr) idle_.push_back(transfer);
    schedule(0, [done = std::move(done)] {
      HttpResponse failed;
      failed.error = "cannot start an HTTP transfer";
      done(std::move(failed));
    });
    return;
  }
  transfer->active = true;
  transfer->id = id;
  running_[id] = transfer;
}

// The options that are the same for every request of a handle.
void CurlTransport::set_up_handle(Transfer& transfer) {
  CURL* easy = transfer.easy;
  curl_easy_setopt(easy, CURLOPT_PRIVATE, &transfer);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, transfer.error_buffer);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, options_.verify_tls ? 1L : 0L);
  curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, options_.verify_tls ? 2L : 0L);
  curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(easy, CURLOPT_USERAGENT, "ragmeter");
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
}

// The options of this request; set_up_handle() did the rest.
void CurlTransport::configure(Transfer& transfer) {
  CURL* easy = transfer.easy;
  if (easy == nullptr) return;
  const HttpRequest& request = transfer.request;
  curl_slist_free_all(transfer.header_list);
  transfer.header_list = nullptr;
  for (const auto& [name, value] : request.headers) {
    transfer.header_list = curl_slist_append(transfer.header_list, (name + ": " + value).c_str());
  }
  // No "Expect: 100-continue" round trip before large bodies.
  transfer.header_list = curl_slist_append(transfer.header_list, "Expect:");
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, transfer.header_list);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                   request.timeout_seconds <= 0
                       ? 0L
                       : static_cast<long>(std::max(1.0, request.timeout_seconds * 1000.0)));
  // Waiting for an HTTP/2 connection beats opening one per request, but plain http is
  // HTTP/1.1 here and must not wait.
  curl_easy_setopt(easy, CURLOPT_PIPEWAIT, request.url.starts_with("https:") ? 1L : 0L);
  bool custom = request.method != "GET" && request.method != "POST";
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, custom ? request.method.c_str() : nullptr);
  if (request.method == "GET") {
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    return;
  }
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
}

void CurlTransport::finish_transfers() {
  int left = 0;
  while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
    if (message->msg != CURLMSG_DONE) continue;
    CURL* easy = message->easy_handle;
    CURLcode result = message->data.result;
    Transfer* transfer = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &transfer);
    curl_multi_remove_handle(multi_, easy);
    transfer->active = false;
    running_.erase(transfer->id);
    transfer->id = 0;
    HttpResponse response = std::move(transfer->response);
    if (result == CURLE_OK) {
      long status = 0;
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
      response.status = static_cast<int>(status);
    } else {
      response.status = 0;
      response.timed_out = result == CURLE_OPERATION_TIMEDOUT;
      response.unreachable = result == CURLE_COULDNT_CONNECT ||
                             result == CURLE_COULDNT_RESOLVE_HOST ||
                             result == CURLE_COULDNT_RESOLVE_PROXY;
      response.error = transfer->error_buffer[0] != '\0' ? transfer->error_buffer
                                                         : curl_easy_strerror(result);
    }
    Callback done = std::move(transfer->done);
    transfer->request = HttpRequest{};
    idle_.push_back(transfer);
    done(std::move(response));
  }
}

void CurlTransport::add_timer(Timer timer) {
  timers_.push_back(std::move(timer));
  std::push_heap(timers_.begin(), timers_.end(), runs_later);
}

void CurlTransport::run_due_timers() {
  Clock::time_point now = Clock::now();
  while (!timers_.empty() && timers_.front().due <= now) {
    std::pop_heap(timers_.begin(), timers_.end(), runs_later);
    Task task = std::move(timers_.back().task);
    timers_.pop_back();
    task();
  }
}

}  // namespace

StatusOr<std::unique_ptr<HttpTransport>> make_curl_transport(const CurlTransportOptions& options) {
  auto transport = std::make_unique<CurlTransport>(options);
  RAGMETER_RETURN_IF_ERROR(transport->init());
  return std::unique_ptr<HttpTransport>(std::move(transport));
}

}  // namespace ragmeter::llm
