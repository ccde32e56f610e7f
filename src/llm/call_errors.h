// The Status a judge call fails with, for each way of failing: its code and a message
// that says what came back and how many attempts were made (never the key: the server's
// text about a refused key is not quoted).
#pragma once

#include <string>

#include "llm/call.h"
#include "ragmeter/status.h"

namespace ragmeter::llm {

Status deadline_exceeded(std::string message);
Status resource_exhausted(std::string message);
// `value` as printf's %g writes it ("120", "0.5").
std::string number_text(double value);

// Whether the server refused the response_format of `call`'s body (by a 400, or by a
// 4xx / 500 that says so).
bool format_rejected(const Call& call);

// The status of `call` after its last response failed: what the server or the connection
// said, with the attempts at the current body. `stall_limit`: the seconds without a sign
// of life after which an attempt was given up; `api_key_env`: the key's variable.
Status last_attempt_status(const Call& call, double stall_limit, const std::string& api_key_env);

// The call's deadline of `deadline_seconds` ran out; `last` is why the last attempt failed.
Status deadline_status(const Call& call, double deadline_seconds, const Status& last);
// The call's deadline ran out while its attempt was still in flight.
Status deadline_abandoned_status(const Call& call, double deadline_seconds);

// A 2xx whose body is not a reply (`envelope` says what it is).
Status bad_envelope_status(const Call& call, const Status& envelope);

// The cost budget of `max_cost_usd` is spent.
Status budget_spent_status(double max_cost_usd);

}  // namespace ragmeter::llm
