// Which addresses an image may be fetched from: the IANA special-purpose registries
// (RFC 6890 and its updates) for IPv4 and IPv6, by prefix.
#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "ragmeter/image.h"

namespace ragmeter {
namespace {

// An address as 16 bytes (IPv4 as IPv4-mapped IPv6, ::ffff:a.b.c.d).
struct Address {
  std::array<std::uint8_t, 16> bytes{};
};

std::optional<Address> parse_address(std::string_view text) {
  std::string copy(text);
  if (copy.size() > 2 && copy.front() == '[' && copy.back() == ']') copy = copy.substr(1, copy.size() - 2);
  Address address;
  in_addr v4{};
  if (inet_pton(AF_INET, copy.c_str(), &v4) == 1) {
    address.bytes[10] = address.bytes[11] = 0xff;
    std::memcpy(&address.bytes[12], &v4, 4);
    return address;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, copy.c_str(), &v6) == 1) {
    std::memcpy(address.bytes.data(), &v6, 16);
    return address;
  }
  return std::nullopt;
}

bool in_prefix(const Address& address, const Address& network, int bits) {
  for (int i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    const std::uint8_t mask = bits >= 8 ? 0xff : static_cast<std::uint8_t>(0xff << (8 - bits));
    if ((address.bytes[i] & mask) != (network.bytes[i] & mask)) return false;
  }
  return true;
}

struct SpecialRange {
  const char* network;  // numeric; IPv4 ranges are matched as IPv4-mapped
  int bits;             // prefix length in the 128-bit form (IPv4: 96 + its length)
  const char* reason;
};

// Every range that is not the public internet. IPv4 first (as ::ffff:0:0/96 + prefix).
constexpr std::array<SpecialRange, 25> kSpecialRanges = {{
    {"0.0.0.0", 96 + 8, "unspecified ('this network')"},
    {"10.0.0.0", 96 + 8, "private"},
    {"100.64.0.0", 96 + 10, "shared address space (carrier-grade NAT)"},
    {"127.0.0.0", 96 + 8, "loopback"},
    {"169.254.0.0", 96 + 16, "link-local"},
    {"172.16.0.0", 96 + 12, "private"},
    {"192.0.0.0", 96 + 24, "IETF protocol assignments"},
    {"192.0.2.0", 96 + 24, "documentation"},
    {"192.88.99.0", 96 + 24, "6to4 relay anycast"},
    {"192.168.0.0", 96 + 16, "private"},
    {"198.18.0.0", 96 + 15, "benchmarking"},
    {"198.51.100.0", 96 + 24, "documentation"},
    {"203.0.113.0", 96 + 24, "documentation"},
    {"224.0.0.0", 96 + 4, "multicast"},
    {"240.0.0.0", 96 + 4, "reserved"},  // 255.255.255.255 (broadcast) included
    {"::", 128, "unspecified"},
    {"::1", 128, "loopback"},
    {"64:ff9b:1::", 48, "local-use NAT64"},
    {"100::", 64, "discard-only"},
    {"2001::", 23, "IETF protocol assignments"},
    {"2001:db8::", 32, "documentation"},
    {"2002::", 16, "6to4"},
    {"fc00::", 7, "unique local (private)"},
    {"fe80::", 10, "link-local"},
    {"ff00::", 8, "multicast"},
}};

// An IPv6 address that carries an IPv4 one the connection may reach: IPv4-mapped
// (::ffff:0:0/96), IPv4-compatible (::/96, deprecated) and NAT64 (64:ff9b::/96).
std::optional<Address> embedded_ipv4(const Address& address) {
  static const Address kNat64 = *parse_address("64:ff9b::");
  static const Address kCompatible = *parse_address("::");
  if (in_prefix(address, kNat64, 96) ||
      (in_prefix(address, kCompatible, 96) && !(address.bytes[12] == 0 && address.bytes[13] == 0 &&
                                                address.bytes[14] == 0 && address.bytes[15] <= 1))) {
    Address mapped;
    mapped.bytes[10] = mapped.bytes[11] = 0xff;
    std::memcpy(&mapped.bytes[12], &address.bytes[12], 4);
    return mapped;
  }
  return std::nullopt;
}

std::string special_reason(const Address& address) {
  static const std::vector<Address> kNetworks = [] {
    std::vector<Address> networks;
    for (const SpecialRange& range : kSpecialRanges) networks.push_back(*parse_address(range.network));
    return networks;
  }();
  // IPv4 ranges are held as IPv4-mapped prefixes, which no IPv6 range overlaps.
  for (std::size_t i = 0; i < kSpecialRanges.size(); ++i) {
    if (in_prefix(address, kNetworks[i], kSpecialRanges[i].bits)) return kSpecialRanges[i].reason;
  }
  return {};
}

}  // namespace

std::string non_public_address_reason(std::string_view text) {
  auto address = parse_address(text);
  if (!address) return "not an IP address";
  if (auto v4 = embedded_ipv4(*address)) {
    const std::string inner = special_reason(*v4);
    return inner.empty() ? std::string() : inner + " (an IPv4 address inside an IPv6 one)";
  }
  return special_reason(*address);
}

StatusOr<bool> address_in_networks(std::string_view text, const std::vector<std::string>& networks) {
  auto address = parse_address(text);
  if (!address) return invalid_argument("'" + std::string(text) + "' is not an IP address");
  for (const std::string& network : networks) {
    const std::size_t slash = network.find('/');
    auto base = parse_address(std::string_view(network).substr(0, slash));
    if (!base) return invalid_argument("--allow-media-network: '" + network + "' is not an address or CIDR");
    const bool v4 = network.find('.') != std::string::npos;
    int bits = v4 ? 32 : 128;
    if (slash != std::string::npos) {
      const std::string length = network.substr(slash + 1);
      if (length.empty() || length.size() > 3 ||
          length.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(length) > bits) {
        return invalid_argument("--allow-media-network: '" + network + "' has a bad prefix length");
      }
      bits = std::stoi(length);
    }
    if (in_prefix(*address, *base, v4 ? 96 + bits : bits)) return true;
  }
  return false;
}

}  // namespace ragmeter
