// Secrets registered with register_secret() never survive into a Status or a reason.
#include <gtest/gtest.h>

#include "ragmeter/metric.h"
#include "ragmeter/status.h"

namespace ragmeter {
namespace {

TEST(SecretsTest, AStatusMessageNeverCarriesARegisteredKey) {
  const std::string key = "sk-unit-test-7c1d2e3f4a5b";
  register_secret(key);
  Status status = unavailable("HTTP 500: invalid key " + key + " (and again: " + key + ")");
  EXPECT_EQ(status.message(), "HTTP 500: invalid key [redacted] (and again: [redacted])");
  EXPECT_EQ(status.to_string().find(key), std::string::npos);
}

TEST(SecretsTest, AReasonNeverCarriesARegisteredKey) {
  const std::string key = "sk-unit-test-reason-99aa";
  register_secret(key);
  EXPECT_EQ(MetricResult::failed("judge said " + key).reason, "judge said [redacted]");
  EXPECT_EQ(MetricResult::skipped(key).reason, "[redacted]");
}

TEST(SecretsTest, ValuesTooShortToBeKeysAreNotRedacted) {
  register_secret("abc");
  EXPECT_EQ(invalid_argument("abc abc").message(), "abc abc");
}

TEST(SecretsTest, AShortSecretIsRedactedWhereItStandsAloneOnly) {
  EXPECT_EQ(redact_secret("Bearer x; key 'x'; max_tokens; six; x", "x"),
            "Bearer [redacted]; key '[redacted]'; max_tokens; six; [redacted]");
  EXPECT_EQ(redact_secret("EMPTY, EMPTYING, NON-EMPTY, \"EMPTY\"", "EMPTY"),
            "[redacted], EMPTYING, NON-EMPTY, \"[redacted]\"");
  // A secret inside the mark itself is not found again in it (this looped).
  EXPECT_EQ(redact_secret("a b a", "a"), "[redacted] b [redacted]");
  EXPECT_EQ(redact_secret("unchanged", ""), "unchanged");
}

TEST(SecretsTest, ALongSecretIsRedactedWhereverItIs) {
  const std::string key = "sk-0123456789abcdef";  // 19 bytes
  EXPECT_EQ(redact_secret("Bearer" + key + "tail " + key, key), "Bearer[redacted]tail [redacted]");
}

}  // namespace
}  // namespace ragmeter
