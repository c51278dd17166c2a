// ByteView: every read is bounds-checked and overflow-safe; errors name absolute offsets.
#include "smcompat/util/byte_view.hpp"

#include <gtest/gtest.h>

#include "smcompat/util/strings.hpp"

namespace smcompat {
namespace {

TEST(ByteView, ReadsLittleEndianWithinBounds) {
  const uint8_t b[] = {0x50, 0xed, 0x55, 0xba, 1, 0, 0x10, 0};
  ByteView v(b, sizeof b, 0x100);
  EXPECT_EQ(*v.read<uint32_t>(0), 0xBA55ED50u);
  EXPECT_EQ(*v.read<uint16_t>(4), 1u);
  EXPECT_EQ(*v.read<uint16_t>(6), 16u);
  auto bad = v.read<uint32_t>(6);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().offset, 0x106u);  // absolute: view base + offset
  EXPECT_NE(bad.error().what.find("past the end"), std::string::npos) << bad.error().what;
}

TEST(ByteView, SubRangesAreOverflowSafe) {
  const uint8_t b[16] = {};
  ByteView v(b, sizeof b, 0);
  EXPECT_TRUE(v.sub(0, 16));
  EXPECT_TRUE(v.sub(16, 0));
  EXPECT_FALSE(v.sub(17, 0));
  EXPECT_FALSE(v.sub(8, 9));
  EXPECT_FALSE(v.sub(8, UINT64_MAX));  // off + n would wrap
  EXPECT_FALSE(v.sub(UINT64_MAX, 2));
  EXPECT_FALSE(v.read<uint64_t>(UINT64_MAX - 3));
  auto s = v.sub(4, 8);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->file_offset(), 4u);
  EXPECT_EQ(v.clamp(10, 100).size(), 6u);
  EXPECT_EQ(v.clamp(100, 1).size(), 0u);
}

TEST(ByteView, CStringNeedsATerminator) {
  const char text[] = {'a', 'b', 'c', 0, 'd', 'e'};
  ByteView v(reinterpret_cast<const uint8_t*>(text), sizeof text, 0);
  EXPECT_EQ(*v.cstring(0), "abc");
  EXPECT_FALSE(v.cstring(4));     // "de" has no NUL before the end
  EXPECT_FALSE(v.cstring(0, 2));  // not within 2 bytes
  EXPECT_FALSE(v.cstring(7));
}

TEST(CheckedArithmetic, DetectsOverflow) {
  EXPECT_EQ(checked_add(1, 2), 3u);
  EXPECT_FALSE(checked_add(UINT64_MAX, 1));
  EXPECT_EQ(checked_mul(1u << 20, 1u << 20), uint64_t{1} << 40);
  EXPECT_FALSE(checked_mul(uint64_t{1} << 33, uint64_t{1} << 33));
}

TEST(Strings, Helpers) {
  EXPECT_EQ(demangle("_Z4kernPfi"), "kern(float*, int)");
  EXPECT_EQ(demangle("plain"), "plain");
  EXPECT_EQ(demangle("_Zbroken"), "_Zbroken");
  EXPECT_EQ(parse_uint("12345"), 12345u);
  EXPECT_FALSE(parse_uint("12a"));
  EXPECT_FALSE(parse_uint(""));
  EXPECT_EQ(human_bytes(541595600), "541.6 MB");
  EXPECT_EQ(split("a,b,,c", ',').size(), 4u);
}

}  // namespace
}  // namespace smcompat
