// Base64 (RFC 4648, standard alphabet, padded) over OpenSSL's block codec. Internal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ragmeter {

std::string base64_encode(std::string_view bytes);

// The bytes of `text` (white space ignored); nullopt when it is not valid base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace ragmeter
