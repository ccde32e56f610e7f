// Streamed chat completions (`"stream": true`): the server-sent events of an
// OpenAI-compatible server, read as they arrive (for signs of progress) and at the end
// (for the reply).
//
// An event is a block of lines ended by a blank line; "data:" lines carry a chunk (a
// JSON object with choices[].delta, finish_reason, logprobs, and on the last chunk
// `usage` when stream_options.include_usage was honoured), ":" lines are comments
// (sse-starlette's pings), "data: [DONE]" ends the stream.
//
// Pure functions and a small value type; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter::llm {

// Follows a stream as its bytes arrive: how many data events (chunks) have been seen and
// whether [DONE] has. Bytes may be split anywhere.
class StreamProgress {
 public:
  // Feeds the next bytes; returns the number of data events they completed.
  int feed(std::string_view bytes);
  std::int64_t data_events() const { return data_events_; }
  bool done() const { return done_; }

 private:
  std::string line_;  // the unfinished last line
  bool event_has_data_ = false;
  bool event_is_done_ = false;
  std::int64_t data_events_ = 0;
  bool done_ = false;
};

// What a stream said besides the reply.
struct StreamFacts {
  bool usage_given = false;        // a chunk carried usage
  std::int64_t content_chunks = 0;  // chunks with content (about one per token)
};

// The reply a whole stream makes: the content deltas of each choice joined, the last
// finish_reason, logprobs in order, the model, and usage from the chunk that has it.
// InvalidArgument when the body is not an event stream of chat chunks (no data event, a
// chunk that is not JSON, an "error" chunk, a refusal) or no choice appears.
StatusOr<ChatResponse> parse_chat_stream(std::string_view body, StreamFacts* facts);

// Whether a 2xx reply is an event stream (by its Content-Type, else by its first bytes):
// a server may answer a streamed request with one JSON body.
bool is_event_stream(const std::string& content_type, std::string_view body);

}  // namespace ragmeter::llm
