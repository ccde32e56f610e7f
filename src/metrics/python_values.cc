// Python's str(), repr() and == of JSON values (CPython 3: Objects/unicodeobject.c's repr,
// Python/pystrtod.c's float repr, the numeric tower's comparisons).
#include "metrics/python_values.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// str.isprintable(): every character but the categories "Other" and "Separator", the
// ASCII space excepted.
bool python_printable(UChar32 c) {
  if (c == ' ') return true;
  switch (u_charType(c)) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR:
      return false;
    default:
      return true;
  }
}

void append_escaped(UChar32 c, std::string* out) {
  if (c <= 0xff) {
    *out += fmt::format("\\x{:02x}", c);
  } else if (c <= 0xffff) {
    *out += fmt::format("\\u{:04x}", c);
  } else {
    *out += fmt::format("\\U{:08x}", c);
  }
}

// repr() of a str: single quotes unless the text has a single quote and no double quote.
std::string string_repr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const char quote = has_single && text.find('"') == std::string_view::npos ? '"' : '\'';
  std::string out(1, quote);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto length = static_cast<std::int32_t>(text.size());
  for (std::int32_t i = 0; i < length;) {
    const std::int32_t start = i;
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0 || c < ' ' || c == 0x7f || (c >= 0x80 && !python_printable(c))) {
      append_escaped(c < 0 ? 0xfffd : c, &out);
    } else {
      out.append(text.substr(start, i - start));
    }
  }
  out += quote;
  return out;
}

// repr() of a float: the shortest digits that read back to the same double, fixed notation
// for decimal exponents -4..15 (with ".0" when there is no fraction), else d.ddde+XX.
std::string float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view scientific(buffer, end - buffer);  // "-1.2345e+02"
  const std::size_t e = scientific.find('e');
  const int exponent = std::stoi(std::string(scientific.substr(e + 1)));
  std::string sign = scientific.front() == '-' ? "-" : "";
  std::string digits;
  for (char c : scientific.substr(sign.size(), e - sign.size())) {
    if (c != '.') digits += c;
  }
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1) mantissa += "." + digits.substr(1);
    return fmt::format("{}{}e{}{:02d}", sign, mantissa, exponent < 0 ? '-' : '+', std::abs(exponent));
  }
  const int point = exponent + 1;  // digits before the decimal point
  if (point <= 0) return sign + "0." + std::string(-point, '0') + digits;
  if (static_cast<int>(digits.size()) <= point) {
    return sign + digits + std::string(point - digits.size(), '0') + ".0";
  }
  return sign + digits.substr(0, point) + "." + digits.substr(point);
}

std::string repr(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "None";
    case Json::value_t::boolean: return value.get<bool>() ? "True" : "False";
    case Json::value_t::number_integer: return std::to_string(value.get<std::int64_t>());
    case Json::value_t::number_unsigned: return std::to_string(value.get<std::uint64_t>());
    case Json::value_t::number_float: return float_repr(value.get<double>());
    case Json::value_t::string: return string_repr(value.get_ref<const std::string&>());
    case Json::value_t::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + repr(value[i]);
      return out + "]";
    }
    case Json::value_t::object: {
      std::string out = "{";
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it, first = false) {
        out += (first ? "" : ", ") + string_repr(it.key()) + ": " + repr(it.value());
      }
      return out + "}";
    }
    default: return value.dump();
  }
}

bool is_python_number(const Json& value) { return value.is_number() || value.is_boolean(); }

// Python compares int and float exactly (no rounding of the int to a double).
bool numbers_equal(const Json& a, const Json& b) {
  auto as_integer = [](const Json& v, std::int64_t* i, std::uint64_t* u, bool* is_unsigned) {
    if (v.is_boolean()) {
      *i = v.get<bool>() ? 1 : 0;
      *is_unsigned = false;
      return true;
    }
    if (v.is_number_unsigned()) {
      *u = v.get<std::uint64_t>();
      *is_unsigned = true;
      return true;
    }
    if (v.is_number_integer()) {
      *i = v.get<std::int64_t>();
      *is_unsigned = false;
      return true;
    }
    return false;
  };
  std::int64_t ia = 0, ib = 0;
  std::uint64_t ua = 0, ub = 0;
  bool sa = false, sb = false;
  const bool int_a = as_integer(a, &ia, &ua, &sa);
  const bool int_b = as_integer(b, &ib, &ub, &sb);
  if (int_a && int_b) {
    if (sa && sb) return ua == ub;
    if (sa) return ib >= 0 && static_cast<std::uint64_t>(ib) == ua;
    if (sb) return ia >= 0 && static_cast<std::uint64_t>(ia) == ub;
    return ia == ib;
  }
  if (!int_a && !int_b) return a.get<double>() == b.get<double>();
  const Json& integer = int_a ? a : b;
  const double real = (int_a ? b : a).get<double>();
  if (!std::isfinite(real) || std::trunc(real) != real) return false;
  if (real >= 0x1p64 || real < -0x1p63) return false;  // outside every int64 and uint64
  std::int64_t i = 0;
  std::uint64_t u = 0;
  bool is_unsigned = false;
  as_integer(integer, &i, &u, &is_unsigned);
  if (real >= 0x1p63) return is_unsigned && static_cast<std::uint64_t>(real) == u;
  const auto whole = static_cast<std::int64_t>(real);
  return is_unsigned ? whole >= 0 && static_cast<std::uint64_t>(whole) == u : whole == i;
}

}  // namespace

std::string python_str(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return repr(value);
}

bool python_equal(const Json& a, const Json& b) {
  if (is_python_number(a) && is_python_number(b)) return numbers_equal(a, b);
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::array:
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!python_equal(a[i], b[i])) return false;
      }
      return true;
    case Json::value_t::object:
      if (a.size() != b.size()) return false;
      for (auto it = a.begin(); it != a.end(); ++it) {
        auto other = b.find(it.key());
        if (other == b.end() || !python_equal(it.value(), *other)) return false;
      }
      return true;
    default:
      return a == b;  // null, string
  }
}

}  // namespace ragmeter
