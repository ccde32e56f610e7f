// SHA-256 of a whole file, streamed, and of a string.
#include <fstream>
#include <memory>
#include <vector>

#include <openssl/evp.h>

#include "io/sha256.h"
#include "ragmeter/dataset.h"

namespace ragmeter {
namespace {

std::string hex_of(const unsigned char* digest, unsigned int size) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  // EVP_Digest fails only when memory runs out.
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) return "";
  return hex_of(digest, size);
}

StatusOr<std::string> file_sha256(const std::string& path) {
  if (path == "-") return invalid_argument("standard input has no file hash");
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot open " + path);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    return internal_error("SHA-256 is unavailable");
  }
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return invalid_argument("cannot read " + path);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(context.get(), digest, &size);
  return hex_of(digest, size);
}

}  // namespace ragmeter
