// Image URLs under the URL rule, against the FAKE server (tests/fakes/fake_llm_server.cc,
// its /fake/media and /fake/redirect routes on 127.0.0.1). No test here connects anywhere
// but 127.0.0.1: every other address named is refused before a connection is made, which
// is what the tests check.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <future>

#include "llm/http_transport.h"
#include "ragmeter/image.h"
#include "tests/fakes/fake_llm_server_process.h"
#include "tests/unit/fake_llm_judge.h"
#include "tests/unit/test_png.h"

namespace ragmeter {
namespace {

using nlohmann::json;

using test_images::kPng;
using test_images::kPngSha256;

class ImageFetchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = test_judges::fake_llm_server_path();
    if (!std::filesystem::exists(path)) return;
    server_ = new fakes::FakeLlmServerProcess();
    if (!server_->start(path, {})) {
      delete server_;
      server_ = nullptr;
      return;
    }
    auto transport = llm::make_curl_transport({});
    if (transport.ok()) control_ = std::move(transport).value().release();
  }
  static void TearDownTestSuite() {
    delete control_;
    delete server_;
    control_ = nullptr;
    server_ = nullptr;
  }

  void SetUp() override {
    if (server_ == nullptr || control_ == nullptr) GTEST_SKIP() << "fake server not built";
    put_media("red.png", kPng);
    put_media("big.png", kPng + std::string(5000, 'x'));
    put_media("page.html", "<!DOCTYPE html><html><body>hello</body></html>");
    options_.allow_urls = true;
  }

  static std::string base() { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  static llm::HttpResponse call(const std::string& method, const std::string& path, std::string body) {
    std::promise<llm::HttpResponse> done;
    auto response = done.get_future();
    control_->send({method, base() + path, {}, std::move(body), 5.0},
                   [&done](llm::HttpResponse r) { done.set_value(std::move(r)); });
    return response.get();
  }
  static void put_media(const std::string& name, const std::string& bytes) {
    ASSERT_EQ(call("POST", "/fake/media/" + name, bytes).status, 200);
  }
  static long media_requests() {
    return json::parse(call("GET", "/fake/stats", "").body)["media_requests"].get<long>();
  }

  StatusOr<Image> fetch(const std::string& url) { return load_image({ImageSource::kUrl, url}, options_); }

  static void expect_refused(const StatusOr<Image>& image, const std::string& words) {
    ASSERT_FALSE(image.ok());
    EXPECT_EQ(image.status().code(), StatusCode::kInvalidArgument) << image.status().to_string();
    EXPECT_NE(image.status().message().find(words), std::string::npos) << image.status().to_string();
  }

  static fakes::FakeLlmServerProcess* server_;
  static llm::HttpTransport* control_;
  MediaOptions options_;
};

fakes::FakeLlmServerProcess* ImageFetchTest::server_ = nullptr;
llm::HttpTransport* ImageFetchTest::control_ = nullptr;

TEST_F(ImageFetchTest, LoopbackAddressRefusedWithoutAConnection) {
  const long before = media_requests();
  expect_refused(fetch(base() + "/fake/media/red.png"), "127.0.0.1, a loopback address");
  EXPECT_EQ(media_requests(), before);
}

TEST_F(ImageFetchTest, HostNameResolvingToLoopbackRefused) {
  const long before = media_requests();
  expect_refused(fetch("http://localhost:" + std::to_string(server_->port()) + "/fake/media/red.png"),
                 "loopback address");
  EXPECT_EQ(media_requests(), before);
}

TEST_F(ImageFetchTest, PrivateAndLinkLocalAddressesRefused) {
  expect_refused(fetch("http://10.0.0.7/a.png"), "10.0.0.7, a private address");
  expect_refused(fetch("http://169.254.169.254/latest/meta-data"), "a link-local address");
  expect_refused(fetch("http://[fd00::5]/a.png"), "unique local");
  options_.resolve = [](const std::string&) -> StatusOr<std::vector<std::string>> {
    return std::vector<std::string>{"93.184.215.14", "10.1.2.3"};  // one bad answer is enough
  };
  expect_refused(fetch("https://images.example/a.png"), "10.1.2.3, a private address");
}

TEST_F(ImageFetchTest, AllowedNetworkFetchesAndSniffsTheBytes) {
  options_.allowed_networks = {"127.0.0.1/32"};
  auto image = fetch(base() + "/fake/media/red.png?token=abc");
  ASSERT_TRUE(image.ok()) << image.status().to_string();
  EXPECT_EQ(image->sha256, kPngSha256);
  EXPECT_EQ(image->format, ImageFormat::kPng);
}

TEST_F(ImageFetchTest, RedirectToAPrivateAddressRefused) {
  options_.allowed_networks = {"127.0.0.1/32"};
  const long before = media_requests();
  expect_refused(fetch(base() + "/fake/redirect?to=http://10.0.0.9/x.png"),
                 "a redirect to http://10.0.0.9/x.png refused");
  options_.resolve = [](const std::string& host) -> StatusOr<std::vector<std::string>> {
    if (host == "metadata.example") return std::vector<std::string>{"169.254.169.254"};
    return unavailable("unknown host");
  };
  expect_refused(fetch(base() + "/fake/redirect?to=http://metadata.example/latest"), "link-local");
  expect_refused(fetch(base() + "/fake/redirect?to=ftp://127.0.0.1/a.png"), "only http and https");
  EXPECT_EQ(media_requests(), before);
  // A redirect to an allowed address is followed.
  auto image = fetch(base() + "/fake/redirect?to=" + base() + "/fake/media/red.png");
  ASSERT_TRUE(image.ok()) << image.status().to_string();
  EXPECT_EQ(image->sha256, kPngSha256);
}

TEST_F(ImageFetchTest, TheConnectionGoesToTheCheckedAddressEvenIfDnsChanges) {
  // DNS rebinding: the name first resolves to the allowed address, then to a private one.
  options_.allowed_networks = {"127.0.0.1/32"};
  auto calls = std::make_shared<std::atomic<int>>(0);
  options_.resolve = [calls](const std::string&) -> StatusOr<std::vector<std::string>> {
    return std::vector<std::string>{calls->fetch_add(1) == 0 ? "127.0.0.1" : "10.0.0.1"};
  };
  auto image = fetch("http://rebind.example:" + std::to_string(server_->port()) + "/fake/media/red.png");
  ASSERT_TRUE(image.ok()) << image.status().to_string();
  EXPECT_EQ(image->sha256, kPngSha256);
  EXPECT_EQ(calls->load(), 1);  // libcurl never asked DNS itself
}

TEST_F(ImageFetchTest, SizeLimitAndNonImageRefused) {
  options_.allowed_networks = {"127.0.0.1/32"};
  options_.max_bytes = 1000;
  expect_refused(fetch(base() + "/fake/media/big.png"), "larger than 1000 bytes");
  expect_refused(fetch(base() + "/fake/media/page.html"), "not an image");
  auto missing = fetch(base() + "/fake/media/none.png");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(missing.status().message().find("HTTP 404"), std::string::npos);
}

}  // namespace
}  // namespace ragmeter
