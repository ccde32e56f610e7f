// The HTTP transport of a build without libcurl (RAGMETER_WITH_CURL=OFF; docs/library.md,
// "Building without a dependency"): making a client fails with the reason, so an LLM
// judge, an embeddings server or `run`'s HTTP target is refused before anything is scored.
#include "llm/http_transport.h"

namespace ragmeter::llm {

StatusOr<std::unique_ptr<HttpTransport>> make_curl_transport(const CurlTransportOptions&) {
  return failed_precondition(
      "HTTP needs libcurl, which this ragmeter was built without (RAGMETER_WITH_CURL=OFF): "
      "no LLM judge, embeddings server or HTTP target");
}

}  // namespace ragmeter::llm
