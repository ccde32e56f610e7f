// make_client() and make_client_with_transport(): the checks of a configuration, the
// cache and the transport a client gets. The client itself is openai_client.h.
#include <algorithm>
#include <memory>
#include <utility>

#include "llm/http_transport.h"
#include "llm/openai_client.h"
#include "llm/openai_protocol.h"
#include "llm/response_cache.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {
namespace {

StatusOr<std::unique_ptr<Client>> make_openai_client(const ClientOptions& options,
                                                     const ClientHooks& hooks,
                                                     std::unique_ptr<HttpTransport> transport) {
  if (options.endpoint.base_url.empty()) return invalid_argument("the judge needs a base URL");
  if (options.endpoint.model.empty()) return invalid_argument("the judge needs a model name");
  if (!options.endpoint.api_key_env.empty() &&
      !is_environment_variable_name(options.endpoint.api_key_env)) {
    return invalid_argument(
        "the key's variable (api_key_env) must be the name of an environment variable "
        "(e.g. OPENAI_API_KEY), not a key");
  }
  register_secret(api_key_value(options.endpoint));
  if (transport == nullptr) return invalid_argument("no HTTP transport");
  std::unique_ptr<ResponseCache> cache;
  if (hooks.store) {
    cache = make_store_cache(hooks.store, options.cache.mode);
  } else {
    RAGMETER_ASSIGN_OR_RETURN(cache, open_response_cache(options.cache));
  }
  return std::unique_ptr<Client>(std::make_unique<OpenAIClient>(
      options, std::move(cache), std::move(transport), hooks.permits));
}

StatusOr<std::unique_ptr<HttpTransport>> curl_transport_for(const ClientOptions& options) {
  CurlTransportOptions transport_options;
  transport_options.verify_tls = options.endpoint.verify_tls;
  transport_options.max_connections = std::max(options.limits.max_in_flight, 1) + 8;
  return make_curl_transport(transport_options);
}

}  // namespace

StatusOr<std::unique_ptr<Client>> make_client_with_transport(
    const ClientOptions& options, std::unique_ptr<HttpTransport> transport) {
  return make_openai_client(options, ClientHooks{}, std::move(transport));
}

StatusOr<std::unique_ptr<Client>> make_client(const ClientOptions& options) {
  return make_client(options, ClientHooks{});
}

StatusOr<std::unique_ptr<Client>> make_client(const ClientOptions& options,
                                              const ClientHooks& hooks) {
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<HttpTransport> transport, curl_transport_for(options));
  return make_openai_client(options, hooks, std::move(transport));
}

}  // namespace ragmeter::llm
