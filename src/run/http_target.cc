// The HTTP target: a request rendered from the row's templates goes out over the judge
// transport's libcurl event loop (src/llm/curl_transport.cc); the reply is read with
// the selectors. Retries are the run loop's business: a failure says whether another
// attempt may help and how long the server asked to wait.
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "llm/http_transport.h"
#include "llm/retry_policy.h"
#include "ragmeter/run.h"
#include "run/json_select.h"
#include "run/request_template.h"

namespace ragmeter {
namespace {

std::string url_encode(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

TargetOutcome outcome_of(const llm::HttpResponse& response, const HttpTargetOptions& options) {
  if (response.status == 0) {
    if (response.timed_out) {
      return target_failure("timeout", "no reply within " + std::to_string(options.timeout_seconds) +
                                           " s (" + response.error + ")", true);
    }
    return target_failure("connection", "cannot reach the target: " + response.error, true);
  }
  if (response.body.size() > options.max_reply_bytes) {
    return target_failure("reply_too_large",
                          "the reply has " + std::to_string(response.body.size()) +
                              " bytes, more than the limit of " +
                              std::to_string(options.max_reply_bytes) + ": " +
                              run::truncate_for_message(response.body));
  }
  if (response.status < 200 || response.status >= 300) {
    TargetOutcome outcome = target_failure(
        "http_" + std::to_string(response.status),
        "HTTP " + std::to_string(response.status) + " from the target: " +
            run::truncate_for_message(response.body),
        llm::is_retryable(response));
    outcome.failure.retry_after_seconds = llm::retry_after_seconds(
        response.headers, llm::RetryOptions{}, std::chrono::system_clock::now());
    return outcome;
  }
  return answer_from_reply(response.body, options.selectors);
}

class HttpTarget final : public Target {
 public:
  HttpTarget(HttpTargetOptions options, std::optional<run::JsonTemplate> body,
             std::unique_ptr<llm::HttpTransport> transport)
      : options_(std::move(options)), body_(std::move(body)), transport_(std::move(transport)) {}

  void ask(const TargetRequest& request, Done done) override {
    auto made = make_request(request);
    if (!made.ok()) {
      done(target_failure("template", made.status().message()));
      return;
    }
    transport_->send(std::move(*made), [this, done = std::move(done)](llm::HttpResponse response) {
      done(outcome_of(response, options_));
    });
  }

  std::string identity() const override {
    nlohmann::ordered_json id = {{"kind", "http"},
                                 {"url", options_.url},
                                 {"method", options_.method},
                                 {"body", body_ ? options_.body_template : ""},
                                 {"query", options_.query},
                                 {"headers", options_.headers},
                                 {"answer", options_.selectors.answer},
                                 {"contexts", options_.selectors.contexts},
                                 {"context_text", options_.selectors.context_text},
                                 {"context_id", options_.selectors.context_id}};
    nlohmann::ordered_json env_headers = nlohmann::ordered_json::array();
    for (const auto& [header, variable] : options_.header_env) {
      env_headers.push_back(header + "=$" + variable);  // the name, never the value
    }
    id["header_env"] = std::move(env_headers);
    return id.dump();
  }

 private:
  StatusOr<llm::HttpRequest> make_request(const TargetRequest& request) const {
    llm::HttpRequest http;
    http.method = options_.method;
    http.timeout_seconds = options_.timeout_seconds;
    http.url = options_.url;
    std::string query;
    for (const auto& [name, text] : options_.query) {
      RAGMETER_ASSIGN_OR_RETURN(std::string value, run::render_text(text, request));
      query += (query.empty() ? "" : "&") + url_encode(name) + "=" + url_encode(value);
    }
    if (!query.empty()) http.url += (http.url.find('?') == std::string::npos ? "?" : "&") + query;
    if (body_) {
      RAGMETER_ASSIGN_OR_RETURN(nlohmann::ordered_json body, body_->render(request));
      http.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      http.headers.emplace_back("Content-Type", "application/json");
    }
    for (const auto& header : options_.headers) http.headers.push_back(header);
    for (const auto& [header, variable] : options_.header_env) {
      const char* value = std::getenv(variable.c_str());
      http.headers.emplace_back(header, value == nullptr ? "" : value);
    }
    return http;
  }

  HttpTargetOptions options_;
  std::optional<run::JsonTemplate> body_;  // none for GET
  std::unique_ptr<llm::HttpTransport> transport_;
};

}  // namespace

StatusOr<std::unique_ptr<Target>> make_http_target(const HttpTargetOptions& given) {
  HttpTargetOptions options = given;
  if (!options.url.starts_with("http://") && !options.url.starts_with("https://")) {
    return invalid_argument("the target URL must start with http:// or https://: " + options.url);
  }
  if (options.method != "GET" && options.method != "POST" && options.method != "PUT") {
    return invalid_argument("the target method must be GET, POST or PUT, not " + options.method);
  }
  for (const auto& [header, variable] : options.header_env) {
    if (std::getenv(variable.c_str()) == nullptr) {
      return invalid_argument("the header " + header + " takes its value from the environment variable " +
                              variable + ", which is not set");
    }
  }
  std::optional<run::JsonTemplate> body;
  if (options.method == "GET") {
    if (options.query.empty()) options.query.emplace_back("question", "{{question}}");
  } else {
    RAGMETER_ASSIGN_OR_RETURN(body, run::JsonTemplate::parse(options.body_template));
  }
  llm::CurlTransportOptions transport_options;
  transport_options.verify_tls = options.verify_tls;
  transport_options.max_connections = options.max_connections;
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::HttpTransport> transport,
                            llm::make_curl_transport(transport_options));
  return std::unique_ptr<Target>(
      std::make_unique<HttpTarget>(std::move(options), std::move(body), std::move(transport)));
}

}  // namespace ragmeter
