// fetch_image_url: one checked hop at a time, the connection pinned to the checked
// addresses (docs/design.md, "Images: the URL rule and the content hash").
#include "media/url_fetch.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

namespace ragmeter {
namespace {

using Clock = std::chrono::steady_clock;

Status curl_ready() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK) return unavailable(std::string("libcurl: ") + curl_easy_strerror(result));
  return ok_status();
}

// A URL without its query and fragment, for messages.
std::string shown(const std::string& url) { return url.substr(0, url.find_first_of("?#")); }

struct Hop {
  std::string scheme;
  std::string host;  // without brackets
  std::string port;
};

StatusOr<Hop> parse_hop(const std::string& url) {
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> handle(curl_url(), &curl_url_cleanup);
  if (!handle || curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) {
    return invalid_argument("URL " + shown(url) + " does not parse");
  }
  Hop hop;
  auto part = [&](CURLUPart which, unsigned flags, std::string* out) {
    char* value = nullptr;
    if (curl_url_get(handle.get(), which, &value, flags) != CURLUE_OK) return false;
    *out = value;
    curl_free(value);
    return true;
  };
  if (!part(CURLUPART_SCHEME, 0, &hop.scheme) || !part(CURLUPART_HOST, 0, &hop.host) ||
      !part(CURLUPART_PORT, CURLU_DEFAULT_PORT, &hop.port)) {
    return invalid_argument("URL " + shown(url) + " has no host");
  }
  if (hop.scheme != "http" && hop.scheme != "https") {
    return invalid_argument("URL " + shown(url) + ": only http and https are fetched");
  }
  if (hop.host.size() > 2 && hop.host.front() == '[') hop.host = hop.host.substr(1, hop.host.size() - 2);
  return hop;
}

// The address in inet_ntop's canonical text ("::1", not "0:0::1"), as the socket
// callback will see it; empty when `host` is not numeric.
std::string canonical_address(const std::string& host) {
  char text[INET6_ADDRSTRLEN] = {};
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return inet_ntop(AF_INET, &v4, text, sizeof text);
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return inet_ntop(AF_INET6, &v6, text, sizeof text);
  return {};
}

StatusOr<std::vector<std::string>> system_resolve(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int error = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (error != 0) return unavailable("host '" + host + "' does not resolve: " + gai_strerror(error));
  std::vector<std::string> addresses;
  for (addrinfo* at = found; at != nullptr; at = at->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw = at->ai_family == AF_INET
                          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(at->ai_addr)->sin_addr)
                          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(at->ai_addr)->sin6_addr);
    if (inet_ntop(at->ai_family, raw, text, sizeof text) != nullptr &&
        std::find(addresses.begin(), addresses.end(), text) == addresses.end()) {
      addresses.emplace_back(text);
    }
  }
  freeaddrinfo(found);
  if (addresses.empty()) return unavailable("host '" + host + "' has no address");
  return addresses;
}

// The hop's addresses, each allowed, or the refusal naming the first that is not.
StatusOr<std::vector<std::string>> checked_addresses(const Hop& hop, const std::string& url,
                                                     bool redirected, const MediaOptions& options) {
  std::vector<std::string> addresses;
  if (const std::string numeric = canonical_address(hop.host); !numeric.empty()) {
    addresses.push_back(numeric);
  } else {
    RAGMETER_ASSIGN_OR_RETURN(addresses, options.resolve ? options.resolve(hop.host)
                                                         : system_resolve(hop.host));
  }
  if (addresses.empty()) return unavailable("host '" + hop.host + "' has no address");
  for (std::string& address : addresses) {
    const std::string canonical = canonical_address(address);
    if (canonical.empty()) return unavailable("host '" + hop.host + "' resolved to '" + address + "'");
    address = canonical;
    const std::string reason = non_public_address_reason(address);
    if (reason.empty()) continue;
    RAGMETER_ASSIGN_OR_RETURN(bool allowed, address_in_networks(address, options.allowed_networks));
    if (allowed) continue;
    return invalid_argument(std::string(redirected ? "a redirect to " : "URL ") + shown(url) +
                            " refused: host '" + hop.host + "' is " + address + ", a " + reason +
                            " address (images are fetched from public addresses only; "
                            "--allow-media-network admits a network)");
  }
  return addresses;
}

// What one transfer needs in its callbacks.
struct Transfer {
  std::string body;
  std::size_t max_bytes = 0;
  bool too_large = false;
  const std::vector<std::string>* allowed = nullptr;  // the checked addresses
  std::string refused_address;                         // a connection the callback refused
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  if (transfer->body.size() + bytes > transfer->max_bytes) {
    transfer->too_large = true;
    return 0;  // aborts the transfer
  }
  transfer->body.append(data, bytes);
  return bytes;
}

// The last line of defence: libcurl connects only to an address that was checked.
curl_socket_t on_open_socket(void* user, curlsocktype, curl_sockaddr* address) {
  auto* transfer = static_cast<Transfer*>(user);
  char text[INET6_ADDRSTRLEN] = {};
  const void* raw = nullptr;
  if (address->family == AF_INET) raw = &reinterpret_cast<sockaddr_in*>(&address->addr)->sin_addr;
  if (address->family == AF_INET6) raw = &reinterpret_cast<sockaddr_in6*>(&address->addr)->sin6_addr;
  if (raw == nullptr || inet_ntop(address->family, raw, text, sizeof text) == nullptr ||
      std::find(transfer->allowed->begin(), transfer->allowed->end(), text) == transfer->allowed->end()) {
    transfer->refused_address = text[0] != '\0' ? text : "an unknown address";
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype, address->protocol);
}

struct HopReply {
  long status = 0;
  std::string location;  // the redirect's absolute URL
  std::string body;
};

StatusOr<HopReply> get_once(const std::string& url, const Hop& hop,
                            const std::vector<std::string>& addresses, double seconds_left,
                            const MediaOptions& options) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> easy(curl_easy_init(), &curl_easy_cleanup);
  if (!easy) return unavailable("libcurl: cannot start a transfer");
  Transfer transfer;
  transfer.max_bytes = options.max_bytes;
  transfer.allowed = &addresses;
  std::string pinned = hop.host + ":" + hop.port + ":";
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    pinned += (i ? "," : "") + (addresses[i].find(':') != std::string::npos ? "[" + addresses[i] + "]"
                                                                            : addresses[i]);
  }
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> resolve(
      curl_slist_append(nullptr, pinned.c_str()), &curl_slist_free_all);
  CURL* e = easy.get();
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_RESOLVE, resolve.get());
  curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &on_open_socket);
  curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &transfer);
  curl_easy_setopt(e, CURLOPT_PROXY, "");  // a proxy would resolve the host itself
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_USERAGENT, "ragmeter");
  curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options.max_bytes));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max(1.0, seconds_left * 1000)));
  const CURLcode code = curl_easy_perform(e);
  if (!transfer.refused_address.empty()) {
    return invalid_argument("URL " + shown(url) + " refused: a connection to " +
                            transfer.refused_address + ", which was not the checked address");
  }
  if (transfer.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    return invalid_argument("URL " + shown(url) + ": the image is larger than " +
                            std::to_string(options.max_bytes) + " bytes (--max-image-bytes)");
  }
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return Status(StatusCode::kDeadlineExceeded, "URL " + shown(url) + ": no image within the time limit");
  }
  if (code != CURLE_OK) {
    return unavailable("URL " + shown(url) + ": " +
                       (error_buffer[0] ? std::string(error_buffer) : curl_easy_strerror(code)));
  }
  HopReply reply;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &reply.status);
  char* location = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location != nullptr) {
    reply.location = location;
  }
  reply.body = std::move(transfer.body);
  return reply;
}

}  // namespace

StatusOr<std::string> fetch_image_url(const std::string& url, const MediaOptions& options) {
  RAGMETER_RETURN_IF_ERROR(curl_ready());
  const auto start = Clock::now();
  std::string current = url;
  for (int hop_index = 0; hop_index <= options.max_redirects; ++hop_index) {
    RAGMETER_ASSIGN_OR_RETURN(Hop hop, parse_hop(current));
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> addresses,
                              checked_addresses(hop, current, hop_index > 0, options));
    const double left =
        options.fetch_timeout_seconds - std::chrono::duration<double>(Clock::now() - start).count();
    if (left <= 0) {
      return Status(StatusCode::kDeadlineExceeded, "URL " + shown(url) + ": no image within the time limit");
    }
    RAGMETER_ASSIGN_OR_RETURN(HopReply reply, get_once(current, hop, addresses, left, options));
    if (reply.status >= 300 && reply.status < 400) {
      if (reply.location.empty()) {
        return unavailable("URL " + shown(current) + ": HTTP " + std::to_string(reply.status) +
                           " without a Location");
      }
      current = reply.location;
      continue;
    }
    if (reply.status < 200 || reply.status >= 300) {
      return unavailable("URL " + shown(current) + ": HTTP " + std::to_string(reply.status));
    }
    return std::move(reply.body);
  }
  return unavailable("URL " + shown(url) + ": more than " + std::to_string(options.max_redirects) +
                     " redirects");
}

}  // namespace ragmeter
