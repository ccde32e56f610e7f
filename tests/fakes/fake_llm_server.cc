// A FAKE OpenAI-compatible HTTP server for fault injection and benchmarks. Not a model:
// it answers every chat or embeddings request by a script.
//
//   fake_llm_server [--port N] [--delay-ms N] [--content TEXT] [--script FILE]
//                   [--slots N] [--ms-per-1k-prompt-tokens MS] [--ms-per-token MS]
//                   [--announce-slots 0|1]
//
// Prints "fake_llm_server listening on PORT" on stdout once it accepts connections
// (--port 0, the default, picks a free port). One thread, epoll, HTTP/1.1 keep-alive;
// Linux only. Dies with its parent process.
//
// The script: {"steps": [action, ...], "default": action}. Each API request (a path
// ending in /chat/completions or /embeddings) takes the next step; when the steps are
// used up, the default. An action is an object with
//   "kind": "reply" (default) | "raw" | "hang" | "drop" | "close" | "echo_auth"
//     reply      a well-formed completion whose message content is "content" (n choices
//                when the request asks for n), or embeddings for an embeddings request
//     raw        "status" with "body" (a string) or "json" (any value) as the body
//     hang       never answers (the connection stays open)
//     drop       sends the headers and half the body, then closes the connection
//     close      closes the connection without answering
//     echo_auth  401 whose message quotes the Authorization / api-key header it got
//   "status" (200), "content", "finish_reason" ("stop"), "headers" {name: value},
//   "delay_ms" (answer after that long; the --delay-ms default otherwise),
//   "prompt_tokens" (10), "completion_tokens" (5), "cached_tokens" (0),
//   "by_seed" {"SEED": action}: a request with that "seed" is answered by that action
//     instead (its fields over this one's), the FAKE of a model that samples differently
//     per seed; requests without a seed, or with another, get this action.
//   "by_prompt" [{"contains": TEXT, action fields...}, ...]: a request whose messages'
//     text holds TEXT is answered by the first such entry's action (its fields over this
//     one's), so that concurrent requests get replies by what they ask, not by arrival.
//
// Slot mode (--slots N > 0), a FAKE of a local llama.cpp-like server: chat "reply"
// actions are served by N slots in arrival order; the others wait in a queue, silent. A
// request's prompt takes MS per 1,000 prompt tokens (its messages' characters / 4) with
// nothing sent, then each of its completion_tokens takes --ms-per-token. With "stream":
// true the reply is an event stream (one chunk per token, then finish_reason, usage when
// stream_options.include_usage, [DONE]); a client that closes a streamed request stops
// it at the next token boundary (the prompt is evaluated to the end first, as llama.cpp
// does); a closed non-streamed request is computed to the end anyway; a closed queued
// request is dropped unstarted. Its books (GET /fake/stats "slots"): slot time of
// answered requests (service_ms: what a serial server needs for them), slot time spent
// on abandoned ones (abandoned_ms), and the span from the first request's arrival to the
// last reply (span_ms). With --announce-slots 1, GET /props answers {"total_slots": N}, as
// llama.cpp's server does (llama-cpp-python's does not).
//
// Control endpoints:
//   POST /fake/script    replaces the script with the body and resets the counters
//   GET  /fake/stats     {"requests", "chat", "embeddings", "in_flight", "max_in_flight",
//                         "connections", "max_connections"}
//   GET  /fake/requests  the last 64 API requests: [{"path", "body", "authorization",
//                        "api_key"}]
//   POST /fake/config    {"slots", "ms_per_1k_prompt_tokens", "ms_per_token"}: changes
//                        the slot mode at once (for requests that start after), counters kept
//   POST /fake/media/N   stores the body as the file N (images for URL fetches)
//   GET  /fake/media/N   the stored body (404 when none); counted in "media_requests"
//   GET  /fake/redirect?to=URL   302 with Location: URL (the query's rest, undecoded)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Action {
  std::string kind = "reply";
  int status = 200;
  std::string content = "{\"verdict\": 1}";
  std::string finish_reason = "stop";
  std::string body;
  std::map<std::string, std::string> headers;
  int delay_ms = -1;  // -1: the server's default
  int prompt_tokens = 10;
  int completion_tokens = 5;
  int cached_tokens = 0;
  json by_seed;    // "SEED" -> action spec, or null
  json by_prompt;  // [{"contains": TEXT, ...action spec}], or null
};

Action parse_action(const json& spec, const Action& defaults) {
  Action action = defaults;
  action.kind = spec.value("kind", action.kind);
  action.status = spec.value("status", action.kind == "echo_auth" ? 401 : 200);
  action.content = spec.value("content", action.content);
  action.finish_reason = spec.value("finish_reason", action.finish_reason);
  if (spec.contains("json")) action.body = spec["json"].dump();
  action.body = spec.value("body", action.body);
  if (spec.contains("headers")) action.headers = spec["headers"].get<std::map<std::string, std::string>>();
  action.delay_ms = spec.value("delay_ms", action.delay_ms);
  action.prompt_tokens = spec.value("prompt_tokens", action.prompt_tokens);
  action.completion_tokens = spec.value("completion_tokens", action.completion_tokens);
  action.cached_tokens = spec.value("cached_tokens", action.cached_tokens);
  if (spec.contains("by_seed")) action.by_seed = spec["by_seed"];
  if (spec.contains("by_prompt")) action.by_prompt = spec["by_prompt"];
  return action;
}

struct Script {
  std::deque<Action> steps;
  Action fallback;

  static Script parse(const json& spec, const Action& base) {
    Script script;
    script.fallback = spec.contains("default") ? parse_action(spec["default"], base) : base;
    for (const json& step : spec.value("steps", json::array())) {
      script.steps.push_back(parse_action(step, base));
    }
    return script;
  }

  Action next() {
    if (steps.empty()) return fallback;
    Action action = std::move(steps.front());
    steps.pop_front();
    return action;
  }
};

struct Request {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::string body;
};

struct Connection {
  int fd = -1;
  std::uint64_t serial = 0;
  std::string in;
  std::string out;
  size_t out_offset = 0;
  bool close_after_write = false;
  bool busy = false;     // a request is being answered (or hangs)
  bool hanging = false;  // its request will never be answered
};

struct Pending {  // a response waiting for its delay
  Clock::time_point due;
  int fd;
  std::uint64_t serial;
  std::string bytes;
  bool close_after;
};

bool later(const Pending& a, const Pending& b) { return a.due > b.due; }

struct SlotConfig {
  int slots = 0;  // 0: no slot mode
  double ms_per_1k_prompt_tokens = 0;
  double ms_per_token = 0;
  bool announce = false;  // answer GET /props
};

// A chat request served by a slot (slot mode).
struct Job {
  int fd = -1;
  std::uint64_t serial = 0;
  Action action;
  bool stream = false;
  bool include_usage = false;
  long prompt_tokens = 0;
  Clock::time_point started;
  Clock::time_point next;  // end of the prompt, then of each token
  bool generating = false;
  int tokens_sent = 0;
};

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The messages' contents, joined.
std::string messages_text(const json& body) {
  std::string text;
  if (body.is_object() && body.contains("messages") && body["messages"].is_array()) {
    for (const json& message : body["messages"]) {
      if (message.is_object() && message.contains("content") && message["content"].is_string()) {
        text += message["content"].get_ref<const std::string&>() + "\n";
      }
    }
  }
  return text;
}

// The characters of the messages / 4, as the client estimates.
long prompt_tokens_of(const json& body) {
  size_t characters = 0;
  if (body.is_object() && body.contains("messages") && body["messages"].is_array()) {
    for (const json& message : body["messages"]) {
      if (message.is_object() && message.contains("content") && message["content"].is_string()) {
        characters += message["content"].get_ref<const std::string&>().size();
      }
    }
  }
  return static_cast<long>(characters / 4);
}

std::string chunked(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
  return size + data + "\r\n";
}

std::string sse_event(const json& chunk) { return chunked("data: " + chunk.dump() + "\n\n"); }

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 302: return "Found";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

std::string http_response(int status, const std::string& body,
                          const std::map<std::string, std::string>& headers,
                          size_t content_length) {
  std::string bytes = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
                      "\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(content_length) + "\r\n";
  for (const auto& [name, value] : headers) bytes += name + ": " + value + "\r\n";
  return bytes + "\r\n" + body;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string chat_body(const Action& action, int n) {
  json choices = json::array();
  for (int i = 0; i < n; ++i) {
    choices.push_back({{"index", i},
                       {"message", {{"role", "assistant"}, {"content", action.content}}},
                       {"finish_reason", action.finish_reason}});
  }
  json body = {{"id", "fake-chat"},
               {"object", "chat.completion"},
               {"model", "fake-model"},
               {"choices", std::move(choices)},
               {"usage",
                {{"prompt_tokens", action.prompt_tokens},
                 {"completion_tokens", action.completion_tokens},
                 {"total_tokens", action.prompt_tokens + action.completion_tokens},
                 {"prompt_tokens_details", {{"cached_tokens", action.cached_tokens}}}}}};
  return body.dump();
}

// Deterministic vectors, listed in reverse index order to exercise the client's sorting.
std::string embeddings_body(const Action& action, const json& request) {
  json inputs = request.value("input", json::array());
  if (!inputs.is_array()) inputs = json::array({inputs});
  json data = json::array();
  for (size_t i = inputs.size(); i-- > 0;) {
    std::string text = inputs[i].is_string() ? inputs[i].get<std::string>() : inputs[i].dump();
    std::vector<float> vector(4);
    for (size_t d = 0; d < vector.size(); ++d) {
      vector[d] = static_cast<float>((text.size() + d * 7) % 13) / 13.0f;
    }
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", vector}});
  }
  return json{{"object", "list"},
              {"model", "fake-embedder"},
              {"data", std::move(data)},
              {"usage", {{"prompt_tokens", action.prompt_tokens}, {"total_tokens", action.prompt_tokens}}}}
      .dump();
}

int requested_choices(const std::string& body) {
  if (body.find("\"n\"") == std::string::npos) return 1;
  json request = json::parse(body, nullptr, false);
  if (!request.is_object()) return 1;
  return std::max(1, request.value("n", 1));
}

class FakeServer {
 public:
  FakeServer(int default_delay_ms, const Action& base, const json& script)
      : default_delay_ms_(default_delay_ms), base_(base), script_(Script::parse(script, base)) {}

  bool listen_on(int port);
  int port() const { return port_; }
  void run();

 private:
  void accept_all();
  void on_readable(Connection& connection);
  void on_writable(Connection& connection);
  void serve_buffered(Connection& connection);
  void dispatch(Connection& connection, Request request);
  void answer_api(Connection& connection, const Request& request);
  void answer_now(Connection& connection, int status, const std::string& body);
  void answer_media(Connection& connection, const Request& request, const std::string& path);
  void answer_later(Connection& connection, int delay_ms, std::string bytes, bool close_after);
  void write_out(Connection& connection, std::string bytes, bool close_after);
  void flush(Connection& connection);
  void close_connection(int fd);
  void fire_due();
  int wait_ms() const;
  json stats() const;
  void watch(int fd, std::uint32_t events, int operation);
  Connection* live(int fd, std::uint64_t serial);
  void start_jobs();
  void run_jobs();
  bool advance(Job& job, Clock::time_point now);  // true when the job is over
  void configure(const json& config);

  int default_delay_ms_;
  Action base_;  // what a script's actions start from (--content)
  Script script_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int port_ = 0;
  std::uint64_t next_serial_ = 1;
  std::unordered_map<int, Connection> connections_;
  std::vector<Pending> pending_;  // a heap, earliest first
  std::deque<json> recent_;
  std::map<std::string, std::string> media_;  // POST /fake/media/N
  long media_requests_ = 0;
  long requests_ = 0, chat_ = 0, embeddings_ = 0, in_flight_ = 0, max_in_flight_ = 0;
  long max_connections_ = 0;

  // Slot mode.
  SlotConfig config_;
  std::deque<Job> queue_;
  std::vector<Job> active_;
  long answered_ = 0, abandoned_ = 0, dropped_queued_ = 0;
  double service_ms_ = 0, abandoned_ms_ = 0;
  std::optional<Clock::time_point> first_arrival_, last_reply_;

 public:
  void set_config(const SlotConfig& config) { config_ = config; }
};

bool FakeServer::listen_on(int port) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listen_fd_, 4096) != 0) {
    std::perror("fake_llm_server: bind/listen");
    return false;
  }
  socklen_t length = sizeof(address);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  watch(listen_fd_, EPOLLIN, EPOLL_CTL_ADD);
  return true;
}

void FakeServer::watch(int fd, std::uint32_t events, int operation) {
  epoll_event event{};
  event.events = events;
  event.data.fd = fd;
  epoll_ctl(epoll_fd_, operation, fd, &event);
}

void FakeServer::run() {
  std::vector<epoll_event> events(512);
  for (;;) {
    int ready = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), wait_ms());
    for (int i = 0; i < ready; ++i) {
      int fd = events[i].data.fd;
      if (fd == listen_fd_) {
        accept_all();
        continue;
      }
      auto found = connections_.find(fd);
      if (found == connections_.end()) continue;
      if (events[i].events & EPOLLOUT) on_writable(found->second);
      found = connections_.find(fd);
      if (found != connections_.end() && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
        on_readable(found->second);
      }
    }
    fire_due();
    run_jobs();
  }
}

void FakeServer::accept_all() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    Connection& connection = connections_[fd];
    connection = Connection{};
    connection.fd = fd;
    connection.serial = next_serial_++;
    max_connections_ = std::max<long>(max_connections_, static_cast<long>(connections_.size()));
    watch(fd, EPOLLIN, EPOLL_CTL_ADD);
  }
}

void FakeServer::on_readable(Connection& connection) {
  char buffer[65536];
  ssize_t got = recv(connection.fd, buffer, sizeof(buffer), 0);
  if (got <= 0) {
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
    close_connection(connection.fd);
    return;
  }
  connection.in.append(buffer, static_cast<size_t>(got));
  serve_buffered(connection);
}

// Answers the next complete request in the input buffer, one at a time per connection.
void FakeServer::serve_buffered(Connection& connection) {
  if (connection.busy) return;
  size_t header_end = connection.in.find("\r\n\r\n");
  if (header_end == std::string::npos) return;
  Request request;
  std::istringstream head(connection.in.substr(0, header_end));
  std::string line;
  std::getline(head, line);
  std::istringstream(line) >> request.method >> request.path;
  size_t content_length = 0;
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    request.headers[lower(line.substr(0, colon))] = value;
  }
  if (auto found = request.headers.find("content-length"); found != request.headers.end()) {
    content_length = std::strtoul(found->second.c_str(), nullptr, 10);
  }
  size_t total = header_end + 4 + content_length;
  if (connection.in.size() < total) return;
  request.body = connection.in.substr(header_end + 4, content_length);
  connection.in.erase(0, total);
  connection.busy = true;
  if (lower(request.headers["connection"]) == "close") connection.close_after_write = true;
  dispatch(connection, std::move(request));
}

void FakeServer::dispatch(Connection& connection, Request request) {
  std::string path = request.path.substr(0, request.path.find('?'));
  if (path == "/fake/stats") return answer_now(connection, 200, stats().dump());
  if (path == "/fake/requests") return answer_now(connection, 200, json(recent_).dump());
  if (path == "/fake/script") {
    json spec = json::parse(request.body, nullptr, false);
    if (spec.is_discarded()) return answer_now(connection, 400, R"({"error":"bad script"})");
    script_ = Script::parse(spec, base_);
    requests_ = chat_ = embeddings_ = 0;
    answered_ = abandoned_ = dropped_queued_ = 0;
    service_ms_ = abandoned_ms_ = 0;
    first_arrival_.reset();
    last_reply_.reset();
    max_in_flight_ = in_flight_;
    recent_.clear();
    return answer_now(connection, 200, R"({"ok":true})");
  }
  if (path == "/props" && config_.slots > 0 && config_.announce) {  // llama.cpp's server says its slots
    return answer_now(connection, 200, json{{"total_slots", config_.slots}}.dump());
  }
  if (path == "/fake/config") {
    json config = json::parse(request.body, nullptr, false);
    if (!config.is_object()) return answer_now(connection, 400, R"({"error":"bad config"})");
    configure(config);
    return answer_now(connection, 200, R"({"ok":true})");
  }
  if (path.starts_with("/fake/media/")) return answer_media(connection, request, path);
  if (path == "/fake/redirect") {
    const std::size_t to = request.path.find("?to=");
    const std::string location = to == std::string::npos ? "/" : request.path.substr(to + 4);
    return write_out(connection,
                     http_response(302, "", {{"Location", location}}, 0),
                     connection.close_after_write);
  }
  if (path.ends_with("/chat/completions") || path.ends_with("/embeddings")) {
    return answer_api(connection, request);
  }
  answer_now(connection, 404, R"({"error":{"message":"no such route in the fake server"}})");
}

void FakeServer::answer_media(Connection& connection, const Request& request,
                              const std::string& path) {
  const std::string name = path.substr(std::string("/fake/media/").size());
  if (request.method == "POST") {
    media_[name] = request.body;
    return answer_now(connection, 200, R"({"ok":true})");
  }
  ++media_requests_;
  auto found = media_.find(name);
  if (found == media_.end()) return answer_now(connection, 404, R"({"error":"no such media"})");
  answer_now(connection, 200, found->second);
}

void FakeServer::answer_api(Connection& connection, const Request& request) {
  bool is_chat = request.path.find("/chat/completions") != std::string::npos;
  ++requests_;
  ++(is_chat ? chat_ : embeddings_);
  max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
  auto header = [&](const char* name) {
    auto found = request.headers.find(name);
    return found == request.headers.end() ? std::string() : found->second;
  };
  json body = json::parse(request.body, nullptr, false);
  recent_.push_back({{"path", request.path},
                     {"body", body.is_discarded() ? json(request.body) : body},
                     {"authorization", header("authorization")},
                     {"api_key", header("api-key")}});
  if (recent_.size() > 64) recent_.pop_front();

  Action action = script_.next();
  if (action.by_seed.is_object() && body.is_object() && body.contains("seed")) {
    const std::string seed = body["seed"].dump();
    if (action.by_seed.contains(seed)) action = parse_action(action.by_seed[seed], action);
  }
  if (action.by_prompt.is_array()) {
    const std::string text = messages_text(body);
    for (const json& entry : action.by_prompt) {
      if (text.find(entry.value("contains", std::string())) != std::string::npos) {
        action = parse_action(entry, action);
        break;
      }
    }
  }
  if (config_.slots > 0 && is_chat && action.kind == "reply") {
    if (!first_arrival_) first_arrival_ = Clock::now();
    Job job;
    job.fd = connection.fd;
    job.serial = connection.serial;
    job.action = action;
    job.stream = body.is_object() && body.value("stream", false);
    job.include_usage = job.stream && body.is_object() && body.contains("stream_options") &&
                        body["stream_options"].is_object() &&
                        body["stream_options"].value("include_usage", false);
    job.prompt_tokens = prompt_tokens_of(body);
    job.action.prompt_tokens = static_cast<int>(job.prompt_tokens);
    queue_.push_back(std::move(job));
    return start_jobs();
  }
  int delay = action.delay_ms >= 0 ? action.delay_ms : default_delay_ms_;
  if (action.kind == "hang") {
    connection.hanging = true;
    return;
  }
  if (action.kind == "close") {
    --in_flight_;
    return close_connection(connection.fd);
  }
  std::string reply;
  if (action.kind == "echo_auth") {
    std::string credential = header("authorization") + header("api-key");
    reply = json{{"error", {{"message", "Incorrect API key provided: " + credential}}}}.dump();
  } else if (action.kind == "raw") {
    reply = action.body;
  } else {
    reply = is_chat ? chat_body(action, requested_choices(request.body))
                    : embeddings_body(action, body.is_object() ? body : json::object());
  }
  if (action.kind == "drop") {
    std::string bytes = http_response(action.status, reply.substr(0, reply.size() / 2),
                                      action.headers, reply.size());
    return answer_later(connection, delay, std::move(bytes), true);
  }
  answer_later(connection, delay, http_response(action.status, reply, action.headers, reply.size()),
               connection.close_after_write);
}

void FakeServer::answer_now(Connection& connection, int status, const std::string& body) {
  write_out(connection, http_response(status, body, {}, body.size()), connection.close_after_write);
}

void FakeServer::answer_later(Connection& connection, int delay_ms, std::string bytes,
                              bool close_after) {
  if (delay_ms <= 0) {
    --in_flight_;
    return write_out(connection, std::move(bytes), close_after);
  }
  pending_.push_back({Clock::now() + std::chrono::milliseconds(delay_ms), connection.fd,
                      connection.serial, std::move(bytes), close_after});
  std::push_heap(pending_.begin(), pending_.end(), later);
}

void FakeServer::write_out(Connection& connection, std::string bytes, bool close_after) {
  connection.out += bytes;
  connection.close_after_write = close_after;
  flush(connection);
}

void FakeServer::flush(Connection& connection) {
  while (connection.out_offset < connection.out.size()) {
    ssize_t sent = send(connection.fd, connection.out.data() + connection.out_offset,
                        connection.out.size() - connection.out_offset, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EAGAIN) return watch(connection.fd, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
      return close_connection(connection.fd);
    }
    connection.out_offset += static_cast<size_t>(sent);
  }
  connection.out.clear();
  connection.out_offset = 0;
  if (connection.close_after_write) return close_connection(connection.fd);
  connection.busy = false;
  serve_buffered(connection);
}

void FakeServer::on_writable(Connection& connection) {
  watch(connection.fd, EPOLLIN, EPOLL_CTL_MOD);
  flush(connection);
}

void FakeServer::close_connection(int fd) {
  if (auto found = connections_.find(fd); found != connections_.end() && found->second.hanging) {
    --in_flight_;
  }
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  close(fd);
  connections_.erase(fd);
}

void FakeServer::fire_due() {
  Clock::time_point now = Clock::now();
  while (!pending_.empty() && pending_.front().due <= now) {
    std::pop_heap(pending_.begin(), pending_.end(), later);
    Pending due = std::move(pending_.back());
    pending_.pop_back();
    --in_flight_;
    auto found = connections_.find(due.fd);
    if (found == connections_.end() || found->second.serial != due.serial) continue;
    write_out(found->second, std::move(due.bytes), due.close_after);
  }
}

int FakeServer::wait_ms() const {
  std::optional<Clock::time_point> due;
  if (!pending_.empty()) due = pending_.front().due;
  for (const Job& job : active_) {
    if (!due || job.next < *due) due = job.next;
  }
  if (!due) return 1000;
  auto remaining = std::chrono::ceil<std::chrono::milliseconds>(*due - Clock::now());
  return static_cast<int>(std::clamp<long long>(remaining.count(), 0, 1000));
}

void FakeServer::configure(const json& config) {
  config_.slots = config.value("slots", config_.slots);
  config_.ms_per_1k_prompt_tokens =
      config.value("ms_per_1k_prompt_tokens", config_.ms_per_1k_prompt_tokens);
  config_.ms_per_token = config.value("ms_per_token", config_.ms_per_token);
  start_jobs();
}

Connection* FakeServer::live(int fd, std::uint64_t serial) {
  auto found = connections_.find(fd);
  if (found == connections_.end() || found->second.serial != serial) return nullptr;
  return &found->second;
}

// Fills free slots from the queue; requests whose client left are dropped unstarted.
void FakeServer::start_jobs() {
  while (config_.slots > 0 && static_cast<int>(active_.size()) < config_.slots && !queue_.empty()) {
    Job job = std::move(queue_.front());
    queue_.pop_front();
    if (live(job.fd, job.serial) == nullptr) {
      ++dropped_queued_;
      --in_flight_;
      continue;
    }
    job.started = Clock::now();
    job.next = job.started + std::chrono::microseconds(static_cast<long long>(
                                 job.prompt_tokens * config_.ms_per_1k_prompt_tokens));
    active_.push_back(std::move(job));
  }
}

void FakeServer::run_jobs() {
  Clock::time_point now = Clock::now();
  bool freed = false;
  for (size_t i = 0; i < active_.size();) {
    if (active_[i].next <= now && advance(active_[i], now)) {
      active_.erase(active_.begin() + static_cast<long>(i));
      freed = true;
    } else {
      ++i;
    }
  }
  if (freed) start_jobs();
}

// One step of a job whose time has come: the prompt is done, or one more token is.
bool FakeServer::advance(Job& job, Clock::time_point now) {
  Connection* connection = live(job.fd, job.serial);
  const Action& action = job.action;
  auto finish = [&](bool answered) {
    --in_flight_;
    double ms = ms_between(job.started, now);
    if (answered) {
      ++answered_;
      service_ms_ += ms;
      last_reply_ = now;
    } else {
      ++abandoned_;
      abandoned_ms_ += ms;
    }
    return true;
  };
  // A streamed request whose client left stops at this boundary; a plain one goes on.
  if (connection == nullptr && job.stream) return finish(false);
  if (job.stream && connection != nullptr && !job.generating) {
    connection->out += "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n";
  }
  job.generating = true;
  int tokens = std::max(action.completion_tokens, 1);
  if (job.tokens_sent < tokens) {
    if (job.stream) {
      size_t piece = (action.content.size() + tokens - 1) / tokens;
      std::string text = action.content.substr(std::min(action.content.size(), job.tokens_sent * piece), piece);
      json delta = {{"content", text}};
      if (job.tokens_sent == 0) delta["role"] = "assistant";
      connection->out += sse_event({{"id", "fake-chat"}, {"object", "chat.completion.chunk"},
                                    {"model", "fake-model"},
                                    {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", nullptr}}}}});
      flush(*connection);
    }
    ++job.tokens_sent;
    job.next = now + std::chrono::microseconds(static_cast<long long>(config_.ms_per_token * 1000));
    return false;
  }
  if (connection == nullptr) return finish(false);
  if (!job.stream) {
    std::string reply = chat_body(action, 1);
    write_out(*connection, http_response(200, reply, action.headers, reply.size()),
              connection->close_after_write);
    return finish(true);
  }
  std::string tail = sse_event({{"id", "fake-chat"}, {"object", "chat.completion.chunk"},
                                {"model", "fake-model"},
                                {"choices", {{{"index", 0}, {"delta", json::object()},
                                              {"finish_reason", action.finish_reason}}}}});
  if (job.include_usage) {
    tail += sse_event({{"id", "fake-chat"}, {"object", "chat.completion.chunk"},
                       {"model", "fake-model"}, {"choices", json::array()},
                       {"usage", {{"prompt_tokens", job.prompt_tokens},
                                  {"completion_tokens", action.completion_tokens},
                                  {"total_tokens", job.prompt_tokens + action.completion_tokens}}}});
  }
  tail += chunked("data: [DONE]\n\n") + "0\r\n\r\n";
  write_out(*connection, std::move(tail), connection->close_after_write);
  return finish(true);
}

json FakeServer::stats() const {
  return {{"requests", requests_},     {"chat", chat_},
          {"embeddings", embeddings_}, {"in_flight", in_flight_},
          {"media_requests", media_requests_},
          {"max_in_flight", max_in_flight_},
          {"slots", {{"answered", answered_}, {"abandoned", abandoned_},
                     {"dropped_queued", dropped_queued_}, {"service_ms", service_ms_},
                     {"abandoned_ms", abandoned_ms_}, {"queued", queue_.size()},
                     {"active", active_.size()},
                     {"span_ms", first_arrival_ && last_reply_
                                     ? ms_between(*first_arrival_, *last_reply_) : 0.0}}},
          {"connections", connections_.size()},
          {"max_connections", max_connections_}};
}

}  // namespace

int main(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  signal(SIGPIPE, SIG_IGN);
  int port = 0;
  int delay_ms = 0;
  Action base;
  SlotConfig slots;
  json spec = json::object();
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--port") {
      port = std::atoi(argv[i + 1]);
    } else if (flag == "--delay-ms") {
      delay_ms = std::atoi(argv[i + 1]);
    } else if (flag == "--slots") {
      slots.slots = std::atoi(argv[i + 1]);
    } else if (flag == "--ms-per-1k-prompt-tokens") {
      slots.ms_per_1k_prompt_tokens = std::atof(argv[i + 1]);
    } else if (flag == "--announce-slots") {
      slots.announce = std::atoi(argv[i + 1]) != 0;
    } else if (flag == "--ms-per-token") {
      slots.ms_per_token = std::atof(argv[i + 1]);
    } else if (flag == "--content") {
      base.content = argv[i + 1];
    } else if (flag == "--script") {
      std::ifstream file(argv[i + 1]);
      spec = json::parse(file, nullptr, false);
      if (spec.is_discarded()) {
        std::fprintf(stderr, "fake_llm_server: %s is not a JSON script\n", argv[i + 1]);
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: fake_llm_server [--port N] [--delay-ms N] [--content TEXT] "
                           "[--script FILE] [--slots N] [--ms-per-1k-prompt-tokens MS] "
                           "[--ms-per-token MS]\n");
      return 2;
    }
  }
  FakeServer server(delay_ms, base, spec);
  server.set_config(slots);
  if (!server.listen_on(port)) return 1;
  std::printf("fake_llm_server listening on %d\n", server.port());
  std::fflush(stdout);
  server.run();
}
