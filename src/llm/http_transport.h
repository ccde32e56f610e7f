// The HTTP seam of the judge client: an asynchronous transport with one event-loop
// thread, and the client factory that takes any transport (tests swap in fakes).
//
// Everything the client does after a call starts runs on the transport's loop thread:
// completion callbacks and scheduled tasks. That thread must never block; callbacks do
// their (small) work and return.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter::llm {

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  std::string body;
  // The whole exchange: connect, send, wait, receive. 0: none (the caller watches the
  // exchange itself, with on_data and cancel()).
  double timeout_seconds = 120.0;
  // Called on the loop thread with each piece of the response body as it arrives
  // (before `done`; the body is still collected into HttpResponse::body). Optional.
  std::function<void(std::string_view)> on_data;
};

struct HttpResponse {
  int status = 0;  // HTTP status; 0 when no complete response arrived
  std::map<std::string, std::string> headers;  // names lower-cased; the last value wins
  std::string body;
  std::string error;       // transport error text (connection refused, reset, timeout); empty
                           // when a complete response arrived, whatever its status
  bool timed_out = false;  // the per-request timeout fired
  bool unreachable = false;  // no connection was made (refused, host or proxy not resolved)
  bool cancelled = false;  // ended by HttpTransport::cancel()
};

class HttpTransport {
 public:
  using Callback = std::function<void(HttpResponse)>;
  using Task = std::function<void()>;

  // Stops the loop thread. Requests in flight are abandoned and tasks not yet run are
  // dropped: their callbacks are destroyed without being called.
  virtual ~HttpTransport() = default;

  // Starts `request`; `done` runs exactly once on the loop thread when it has ended,
  // successfully or not (a transport failure is a response with status 0 and `error`).
  // Returns the exchange's id for cancel(). Thread-safe.
  virtual std::uint64_t send(HttpRequest request, Callback done) = 0;

  // Ends exchange `id` if it is still running: its connection is closed (a server
  // streaming the reply sees the client go) and its `done` runs with status 0 and
  // `cancelled` set. Nothing happens for an exchange that has ended. Loop thread only.
  virtual void cancel(std::uint64_t id) = 0;

  // Runs `task` on the loop thread after `delay_seconds` (<= 0: as soon as possible).
  // Used for retry backoff and rate-limit waits, so no thread sleeps. Thread-safe.
  virtual void schedule(double delay_seconds, Task task) = 0;
};

struct CurlTransportOptions {
  bool verify_tls = true;  // verify the server certificate and host name
  // Connections kept open for reuse. Should cover the requests in flight, otherwise
  // connections are closed and reopened (a TCP and TLS handshake each time).
  int max_connections = 64;
};

// A libcurl transport: one multi handle driven by an epoll loop on one thread,
// keep-alive connection reuse, HTTP/2 multiplexing for https servers that offer it, no
// signals. Raises the soft open-files limit when max_connections needs it.
// Unavailable when libcurl or the loop cannot be set up.
StatusOr<std::unique_ptr<HttpTransport>> make_curl_transport(const CurlTransportOptions& options);

// make_client() with a given transport instead of libcurl. Same errors as make_client().
StatusOr<std::unique_ptr<Client>> make_client_with_transport(
    const ClientOptions& options, std::unique_ptr<HttpTransport> transport);

}  // namespace ragmeter::llm
