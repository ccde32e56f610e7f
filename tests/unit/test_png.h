// A small real image for the image tests: a 2 x 3 red PNG made with Pillow, its SHA-256
// from sha256sum and its base64 from Python's base64 module.
#pragma once

#include <string>

namespace ragmeter::test_images {

inline const std::string kPng(
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00"
    "\x03\x08\x02\x00\x00\x00\x36\x88\x49\xd6\x00\x00\x00\x13\x49\x44\x41\x54\x78\x9c\x63\xfc\xcf"
    "\xc0\xc0\xc0\xc0\xc0\xc4\x80\x4c\x01\x00\x14\x40\x01\x05\xdd\x23\x79\x0e\x00\x00\x00\x00\x49"
    "\x45\x4e\x44\xae\x42\x60\x82",
    76);
inline constexpr const char* kPngSha256 =
    "84ed03a03a255708997b50fe9b7b6745c2bb699b6fdcba157df596f3a89a94c5";
inline constexpr const char* kPngBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAIAAAA2iEnWAAAAE0lEQVR4nGP8z8DAwMDAxIBMAQAUQAEF3SN5DgAAAABJRU5ErkJggg==";

}  // namespace ragmeter::test_images
