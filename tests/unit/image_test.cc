// Images among the retrieved contexts: which items are images, reading them from data
// URIs and files under the media root, the type from the bytes, the address rule.
#include "ragmeter/image.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "media/base64.h"
#include "ragmeter/sample.h"
#include "tests/unit/test_paths.h"
#include "tests/unit/test_png.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

using test_images::kPng;
using test_images::kPngSha256;
using test_images::kPngBase64;

TEST(ImageFormatTest, SniffedFromTheSignatureOnly) {
  EXPECT_EQ(sniff_image_format(kPng), ImageFormat::kPng);
  EXPECT_EQ(sniff_image_format(std::string("\xff\xd8\xff\xe0\x00\x10JFIF", 10)), ImageFormat::kJpeg);
  EXPECT_EQ(sniff_image_format("GIF89a\x01\x00"), ImageFormat::kGif);
  EXPECT_EQ(sniff_image_format(std::string("RIFF\x24\x00\x00\x00WEBPVP8 ", 16)), ImageFormat::kWebp);
  EXPECT_EQ(sniff_image_format("<!DOCTYPE html><img src=x.png>"), ImageFormat::kUnknown);
  EXPECT_EQ(sniff_image_format("BM\x36\x00"), ImageFormat::kUnknown);  // BMP: refused
  EXPECT_EQ(sniff_image_format(std::string("RIFF\x24\x00\x00\x00WAVEfmt ", 16)), ImageFormat::kUnknown);
}

TEST(ImageFormatTest, ImageFromBytesHasSizeAndContentHash) {
  auto image = image_from_bytes(kPng);
  ASSERT_TRUE(image.ok()) << image.status().to_string();
  EXPECT_EQ(image->format, ImageFormat::kPng);
  EXPECT_EQ(image->width, 2);
  EXPECT_EQ(image->height, 3);
  EXPECT_EQ(image->sha256, kPngSha256);
  EXPECT_EQ(image->data_uri(), std::string("data:image/png;base64,") + kPngBase64);
}

TEST(ImageFormatTest, NonImageAndBrokenHeaderRefused) {
  auto html = image_from_bytes("<html><body>not a picture</body></html>");
  ASSERT_FALSE(html.ok());
  EXPECT_NE(html.status().message().find("not an image"), std::string::npos);
  auto cut = image_from_bytes(kPng.substr(0, 12));  // the signature, no header
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("header cannot be read"), std::string::npos);
}

TEST(Base64Test, RoundTripsEveryPaddingLength) {
  for (std::string bytes : {std::string(""), std::string("a"), std::string("ab"), std::string("abc"),
                            std::string("\x00\xff\x10\x80", 4)}) {
    auto decoded = base64_decode(base64_encode(bytes));
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(*decoded, bytes);
  }
  EXPECT_EQ(base64_encode("ab"), "YWI=");  // RFC 4648's test vectors
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_FALSE(base64_decode("Zm9v!mFy").has_value());
  EXPECT_FALSE(base64_decode("Zm9").has_value());
}

TEST(ImageRefTest, PlainStringsReadAsRagasReadsThem) {
  auto data = image_ref_from_string(std::string("data:image/png;base64,") + kPngBase64);
  ASSERT_TRUE(data.has_value());
  EXPECT_EQ(data->source, ImageSource::kDataUri);
  auto url = image_ref_from_string("https://example.com/figures/chart.PNG?v=2");
  ASSERT_TRUE(url.has_value());
  EXPECT_EQ(url->source, ImageSource::kUrl);
  auto path = image_ref_from_string("scans/page-3.jpeg");
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->source, ImageSource::kFile);
  // Text: a sentence naming a file, a web page, a data URI of text.
  EXPECT_FALSE(image_ref_from_string("See figure.png for the chart.").has_value());
  EXPECT_FALSE(image_ref_from_string("https://example.com/about").has_value());
  EXPECT_FALSE(image_ref_from_string("data:text/plain;base64,aGk=").has_value());
  EXPECT_FALSE(image_ref_from_string("ftp://example.com/a.png").has_value());
}

TEST(ImageRefTest, ObjectItemsNameTheirImage) {
  std::string text;
  auto path = image_ref_from_json(Json{{"type", "image"}, {"path", "p/3.png"}}, &text);
  ASSERT_TRUE(path.ok() && path->has_value());
  EXPECT_EQ((*path)->source, ImageSource::kFile);
  EXPECT_EQ((*path)->location, "p/3.png");
  auto part = image_ref_from_json(
      Json{{"type", "image_url"}, {"image_url", {{"url", "https://example.com/a"}}}}, &text);
  ASSERT_TRUE(part.ok() && part->has_value());
  EXPECT_EQ((*part)->source, ImageSource::kUrl);  // declared: no extension needed
  auto words = image_ref_from_json(Json{{"type", "text"}, {"text", "chart.png"}}, &text);
  ASSERT_TRUE(words.ok());
  EXPECT_FALSE(words->has_value());
  EXPECT_EQ(text, "chart.png");
  EXPECT_FALSE(image_ref_from_json(Json{{"type", "video"}, {"url", "x"}}, &text).ok());
  EXPECT_FALSE(image_ref_from_json(Json{{"type", "image"}}, &text).ok());
  EXPECT_FALSE(image_ref_from_json(Json{{"type", "image"}, {"url", "file:///etc/passwd"}}, &text).ok());
}

TEST(ImageRefTest, UrlDescriptionLeavesTheQueryOut) {
  const ImageRef ref{ImageSource::kUrl, "https://cdn.example.com/a.png?X-Signature=secret123"};
  EXPECT_EQ(describe_image_ref(ref), "URL https://cdn.example.com/a.png");
}

TEST(ImageSampleTest, ImagesKeepTheirRankAndTextMetricsSeeTheText) {
  Json row = {{"response", "r"},
              {"retrieved_contexts",
               {"first text", {{"type", "image"}, {"path", "a.png"}}, "second text", "b.jpg"}}};
  auto sample = sample_from_json(row);
  ASSERT_TRUE(sample.ok()) << sample.status().to_string();
  EXPECT_EQ(*sample->retrieved_contexts, (std::vector<std::string>{"first text", "second text"}));
  ASSERT_EQ(sample->retrieved_images.size(), 2u);
  EXPECT_EQ(sample->retrieved_images[0].rank, 1u);
  EXPECT_EQ(sample->retrieved_images[0].ref.location, "a.png");
  EXPECT_EQ(sample->retrieved_images[1].rank, 3u);
  EXPECT_EQ(sample->retrieved_images[1].ref.source, ImageSource::kFile);
}

TEST(ImageSampleTest, AnUnknownObjectItemRejectsTheRowNamingIt) {
  Json row = {{"retrieved_contexts", {"text", {{"type", "audio"}, {"url", "a.mp3"}}}}};
  auto sample = sample_from_json(row);
  ASSERT_FALSE(sample.ok());
  EXPECT_NE(sample.status().message().find("field 'retrieved_contexts': item 1"), std::string::npos);
}

class ImageFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = std::filesystem::path(RAGMETER_BINARY_DIR) / ("image_file_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(base_);
    std::filesystem::create_directories(base_ / "root" / "figs");
    write(base_ / "root" / "figs" / "red.png", kPng);
    write(base_ / "outside.png", kPng);
    write(base_ / "root" / "page.html", "<html>not an image</html>");
    std::filesystem::create_symlink(base_ / "outside.png", base_ / "root" / "link.png");
    options_.media_root = (base_ / "root").string();
  }
  void TearDown() override { std::filesystem::remove_all(base_); }

  static void write(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }

  std::filesystem::path base_;
  MediaOptions options_;
};

TEST_F(ImageFileTest, RelativePathUnderTheRootIsRead) {
  auto image = load_image({ImageSource::kFile, "figs/red.png"}, options_);
  ASSERT_TRUE(image.ok()) << image.status().to_string();
  EXPECT_EQ(image->sha256, kPngSha256);
}

TEST_F(ImageFileTest, FileOutsideTheRootIsRefused) {
  for (const std::string& location :
       {(base_ / "outside.png").string(), std::string("../outside.png"), std::string("link.png")}) {
    auto image = load_image({ImageSource::kFile, location}, options_);
    ASSERT_FALSE(image.ok()) << location;
    EXPECT_EQ(image.status().code(), StatusCode::kInvalidArgument) << location;
    EXPECT_NE(image.status().message().find("outside --media-root"), std::string::npos) << location;
  }
}

TEST_F(ImageFileTest, NoRootMeansNoFileIsRead) {
  auto image = load_image({ImageSource::kFile, (base_ / "root/figs/red.png").string()}, MediaOptions{});
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(image.status().message().find("--media-root"), std::string::npos);
}

TEST_F(ImageFileTest, TooLargeNotAnImageAndMissingAreRefused) {
  options_.max_bytes = 50;
  auto large = load_image({ImageSource::kFile, "figs/red.png"}, options_);
  ASSERT_FALSE(large.ok());
  EXPECT_NE(large.status().message().find("larger than 50 bytes"), std::string::npos);
  options_.max_bytes = 1000;
  auto html = load_image({ImageSource::kFile, "page.html"}, options_);
  ASSERT_FALSE(html.ok());
  EXPECT_NE(html.status().message().find("not an image"), std::string::npos);
  auto missing = load_image({ImageSource::kFile, "figs/none.png"}, options_);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(ImageDataUriTest, DecodedSizeLimitAndBadBase64) {
  MediaOptions options;
  const std::string uri = std::string("data:image/png;base64,") + kPngBase64;
  auto image = load_image({ImageSource::kDataUri, uri}, options);
  ASSERT_TRUE(image.ok()) << image.status().to_string();
  EXPECT_EQ(image->sha256, kPngSha256);
  options.max_bytes = 40;
  EXPECT_FALSE(load_image({ImageSource::kDataUri, uri}, options).ok());
  EXPECT_FALSE(load_image({ImageSource::kDataUri, "data:image/png;base64,@@@@"}, MediaOptions{}).ok());
}

TEST(ImageUrlRuleTest, UrlsNeedTheFlag) {
  auto image = load_image({ImageSource::kUrl, "https://example.com/a.png"}, MediaOptions{});
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(image.status().message().find("--allow-media-urls"), std::string::npos);
}

TEST(NetworkAddressTest, NonPublicRangesAreNamed) {
  EXPECT_EQ(non_public_address_reason("127.0.0.1"), "loopback");
  EXPECT_EQ(non_public_address_reason("127.255.0.9"), "loopback");
  EXPECT_EQ(non_public_address_reason("10.20.30.40"), "private");
  EXPECT_EQ(non_public_address_reason("172.31.255.255"), "private");
  EXPECT_EQ(non_public_address_reason("192.168.1.1"), "private");
  EXPECT_EQ(non_public_address_reason("169.254.169.254"), "link-local");
  EXPECT_EQ(non_public_address_reason("100.64.0.1"), "shared address space (carrier-grade NAT)");
  EXPECT_EQ(non_public_address_reason("0.0.0.0"), "unspecified ('this network')");
  EXPECT_EQ(non_public_address_reason("255.255.255.255"), "reserved");
  EXPECT_EQ(non_public_address_reason("::1"), "loopback");
  EXPECT_EQ(non_public_address_reason("fe80::1"), "link-local");
  EXPECT_EQ(non_public_address_reason("fd12:3456::1"), "unique local (private)");
  EXPECT_EQ(non_public_address_reason("::ffff:127.0.0.1"), "loopback");
  EXPECT_EQ(non_public_address_reason("::ffff:169.254.169.254"), "link-local");
  EXPECT_EQ(non_public_address_reason("64:ff9b::a00:1"), "private (an IPv4 address inside an IPv6 one)");
  EXPECT_EQ(non_public_address_reason("not-an-address"), "not an IP address");
  // Public: the edges of the private ranges, and real public addresses.
  EXPECT_EQ(non_public_address_reason("172.32.0.1"), "");
  EXPECT_EQ(non_public_address_reason("11.0.0.1"), "");
  EXPECT_EQ(non_public_address_reason("8.8.8.8"), "");
  EXPECT_EQ(non_public_address_reason("2606:4700:4700::1111"), "");
  EXPECT_EQ(non_public_address_reason("::ffff:8.8.8.8"), "");
}

TEST(NetworkAddressTest, AllowedNetworksByCidr) {
  const std::vector<std::string> networks = {"10.1.0.0/16", "::1"};
  EXPECT_TRUE(*address_in_networks("10.1.200.3", networks));
  EXPECT_FALSE(*address_in_networks("10.2.0.1", networks));
  EXPECT_TRUE(*address_in_networks("::1", networks));
  EXPECT_FALSE(*address_in_networks("127.0.0.1", networks));
  EXPECT_FALSE(address_in_networks("10.0.0.1", {"10.0.0.0/33"}).ok());
  EXPECT_FALSE(address_in_networks("10.0.0.1", {"intranet"}).ok());
}

}  // namespace
}  // namespace ragmeter
