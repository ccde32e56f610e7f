// One verdict call for many premises: every claim against every passage of the call
// (the compact plan's "as few calls as the window allows"). Internal to src/judge/; the
// request and reply formats are public in llm_judge.h (llm_verdict_table_request,
// read_llm_verdict_table).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ragmeter {

// A conservative token estimate for `bytes` of prompt text: English runs about 4 bytes
// per token; 3 leaves room.
inline std::int64_t estimate_tokens(std::size_t bytes) {
  return static_cast<std::int64_t>(bytes) / 3 + 1;
}

// Groups premises into calls that each fit the judge's window: premises in order, a
// call taking the next premise while the claims, the premises so far and the fixed
// prompt (`fixed_bytes`) leave a reply reserve of min(max_tokens, window / 4). A premise
// too long to share a call with the claims gets a group of its own (its call is then
// split further by the caller). window <= 0: one group with every premise.
std::vector<std::vector<std::size_t>> group_premises(std::size_t claim_bytes,
                                                     const std::vector<std::size_t>& premise_bytes,
                                                     std::size_t fixed_bytes, int window,
                                                     int max_tokens);

// True when one call with `claim_bytes` of claims, `premise_bytes` of premises and the
// fixed prompt fits the window with the reply reserve (always when window <= 0).
bool fits_window(std::size_t claim_bytes, std::size_t premise_bytes, std::size_t fixed_bytes,
                 int window, int max_tokens);

// The bytes every verdict table request carries whatever its claims and premises: its
// system message, its task text and room for the section headers and keys' framing.
std::size_t verdict_table_fixed_bytes();

// `number` in decimal, zero-padded to the digits of `largest` ("03" when largest is 12),
// so that keys numbered by it sort in number order. llama.cpp's grammar writes a reply's
// keys in the order of the schema's properties, which nlohmann::json serialises sorted:
// unpadded, "claim 10" would come right after "claim 1".
std::string padded_number(std::size_t number, std::size_t largest);

// The label of premise `index` (0-based) in a verdict table call of `premises` premises:
// "P1", "P2", ...; "P01" ... "P12" when the call has 10 to 99.
std::string premise_label(std::size_t index, std::size_t premises);

}  // namespace ragmeter
