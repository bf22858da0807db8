// SerializationRegistry, against the error contract in serialization.h.

#include "serialization/serialization.h"

#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "serialization/serializer.h"

namespace cairn::serialization {
namespace {

using ::testing::HasSubstr;

struct Point {
  int x = 0;
  int y = 0;
};

struct Amount {
  int64_t value = 0;
};

absl::StatusOr<std::string> EncodePoint(const Point& p) {
  return std::to_string(p.x) + "," + std::to_string(p.y);
}
absl::StatusOr<Point> DecodePoint(std::string_view bytes) {
  const size_t comma = bytes.find(',');
  if (comma == std::string_view::npos) {
    return absl::DataLossError("not a point");
  }
  return Point{std::stoi(std::string(bytes.substr(0, comma))),
               std::stoi(std::string(bytes.substr(comma + 1)))};
}

class Upper final : public Serializer {
 public:
  int32_t identifier() const override { return 100; }
  absl::StatusOr<std::string> ToBinary(const Payload& payload) const override {
    return *payload.As<std::string>();
  }
  absl::StatusOr<Payload> FromBinary(std::string_view bytes,
                                     std::string_view manifest) const override {
    return Payload::Of(std::string(manifest) + ":" + std::string(bytes));
  }
};

TEST(SerializationRegistryTest, SerializesStringsOutOfTheBox) {
  SerializationRegistry registry;
  absl::StatusOr<SerializedPayload> bytes =
      registry.Serialize(Payload::Of(std::string("hi\0there", 8)));
  ASSERT_OK(bytes);
  EXPECT_EQ(bytes->serializer_id, kStringSerializerId);
  EXPECT_EQ(bytes->manifest, "");
  EXPECT_EQ(bytes->bytes, std::string("hi\0there", 8));
  absl::StatusOr<Payload> back =
      registry.Deserialize(kStringSerializerId, "", bytes->bytes);
  ASSERT_OK(back);
  EXPECT_EQ(*back->As<std::string>(), std::string("hi\0there", 8));
}

TEST(SerializationRegistryTest, RoundTripsRegisteredTypes) {
  SerializationRegistry registry;
  ASSERT_OK(registry.Register<Point>("point.v1", EncodePoint, DecodePoint));
  absl::StatusOr<SerializedPayload> bytes =
      registry.Serialize(Payload::Of(Point{3, -4}));
  ASSERT_OK(bytes);
  EXPECT_EQ(bytes->serializer_id, kCodecSerializerId);
  EXPECT_EQ(bytes->manifest, "point.v1");
  absl::StatusOr<Payload> back =
      registry.Deserialize(bytes->serializer_id, bytes->manifest, bytes->bytes);
  ASSERT_OK(back);
  ASSERT_NE(back->As<Point>(), nullptr);
  EXPECT_EQ(back->As<Point>()->x, 3);
  EXPECT_EQ(back->As<Point>()->y, -4);
}

// A decoder written as a newcomer would, with Abseil's helpers on its
// bytes (absl::StrSplit and absl::SimpleAtoi take Bytes as they are;
// Debian's absl::string_view is not std::string_view).
absl::StatusOr<Point> DecodePointWithAbseil(Bytes bytes) {
  std::vector<absl::string_view> parts = absl::StrSplit(bytes, ',');
  Point p;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &p.x) ||
      !absl::SimpleAtoi(parts[1], &p.y)) {
    return absl::DataLossError(absl::StrCat("not a point: '", bytes, "'"));
  }
  return p;
}

TEST(SerializationRegistryTest, ADecoderMayUseAbseilsStringHelpersOnItsBytes) {
  SerializationRegistry registry;
  ASSERT_OK(
      registry.Register<Point>("point.v1", EncodePoint, DecodePointWithAbseil));
  absl::StatusOr<Payload> back =
      registry.Deserialize(kCodecSerializerId, "point.v1", "7,-8");
  ASSERT_OK(back);
  EXPECT_EQ(back->As<Point>()->x, 7);
  EXPECT_EQ(back->As<Point>()->y, -8);
  absl::Status bad =
      registry.Deserialize(kCodecSerializerId, "point.v1", "7;8").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(bad.message(), HasSubstr("'7;8'"));
}

struct Length {
  std::size_t n = 0;
};

TEST(SerializationRegistryTest, ADecoderMayTakeEitherKindOfStringView) {
  SerializationRegistry registry;
  // DecodePoint takes std::string_view; this one takes absl::string_view.
  ASSERT_OK(registry.Register<Point>("point.v1", EncodePoint, DecodePoint));
  ASSERT_OK(registry.Register<Length>(
      "length.v1",
      [](const Length&) -> absl::StatusOr<std::string> { return "l"; },
      [](absl::string_view bytes) -> absl::StatusOr<Length> {
        return Length{bytes.size()};
      }));
  absl::StatusOr<Payload> point =
      registry.Deserialize(kCodecSerializerId, "point.v1", "1,2");
  ASSERT_OK(point);
  EXPECT_EQ(point->As<Point>()->y, 2);
  absl::StatusOr<Payload> length =
      registry.Deserialize(kCodecSerializerId, "length.v1", "abc");
  ASSERT_OK(length);
  EXPECT_EQ(length->As<Length>()->n, 3u);
}

TEST(SerializationRegistryTest, BindsTypesToCustomSerializers) {
  SerializationRegistry registry;
  ASSERT_OK(registry.AddSerializer(std::make_shared<Upper>()));
  EXPECT_EQ(registry.AddSerializer(std::make_shared<Upper>()).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.AddSerializer(nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Bind<Point>(999, "m").code(), absl::StatusCode::kNotFound);
  // std::string is bound already, to the string serializer.
  EXPECT_EQ(registry.Bind<std::string>(100, "m").code(),
            absl::StatusCode::kAlreadyExists);
  absl::StatusOr<Payload> back = registry.Deserialize(100, "man", "bytes");
  ASSERT_OK(back);
  EXPECT_EQ(*back->As<std::string>(), "man:bytes");
}

TEST(SerializationRegistryTest, RefusesBadRegistrations) {
  SerializationRegistry registry;
  EXPECT_EQ(registry.Register<Point>("", EncodePoint, DecodePoint).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register<Point>("p", nullptr, DecodePoint).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_OK(registry.Register<Point>("p", EncodePoint, DecodePoint));
  EXPECT_EQ(registry.Register<Point>("q", EncodePoint, DecodePoint).code(),
            absl::StatusCode::kAlreadyExists);
  // The manifest names one type.
  EXPECT_EQ(registry
                .Register<Amount>(
                    "p",
                    [](const Amount&) -> absl::StatusOr<std::string> {
                      return std::string();
                    },
                    [](std::string_view) -> absl::StatusOr<Amount> {
                      return Amount{};
                    })
                .code(),
            absl::StatusCode::kAlreadyExists);
  // A failed registration leaves the type free.
  EXPECT_EQ(registry.Serialize(Payload::Of(Amount{})).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SerializationRegistryTest, RejectsWhatItCannotSerialize) {
  SerializationRegistry registry;
  absl::Status empty = registry.Serialize(Payload()).status();
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  absl::Status unbound = registry.Serialize(Payload::Of(Point{})).status();
  EXPECT_EQ(unbound.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unbound.message()), HasSubstr("Point"));
  // An encoder's error is a rejection that names the type.
  ASSERT_OK(registry.Register<Point>(
      "p",
      [](const Point&) -> absl::StatusOr<std::string> {
        return absl::InvalidArgumentError("too pointy");
      },
      DecodePoint));
  absl::Status failed = registry.Serialize(Payload::Of(Point{})).status();
  EXPECT_EQ(failed.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(failed.message()), HasSubstr("too pointy"));
}

TEST(SerializationRegistryTest, ReportsUnknownSerializersAndManifests) {
  SerializationRegistry registry;
  absl::Status id = registry.Deserialize(77, "m", "x").status();
  EXPECT_EQ(id.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(id.message()), HasSubstr("77"));
  absl::Status manifest =
      registry.Deserialize(kCodecSerializerId, "nobody.v1", "x").status();
  EXPECT_EQ(manifest.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(manifest.message()), HasSubstr("nobody.v1"));
}

// Schema evolution: what was stored under an older manifest is read with
// that manifest's decoder, into today's type; writes use the current one.
TEST(SerializationRegistryTest, ReadsEveryManifestATypeWasStoredUnder) {
  SerializationRegistry registry;
  ASSERT_OK(registry.Register<Point>(
      "point.v2", EncodePoint, DecodePoint,
      {{"point.v1",  // x alone; y came later, with default 7
        [](std::string_view bytes) -> absl::StatusOr<Point> {
          return Point{std::stoi(std::string(bytes)), 7};
        }},
       {"geo.Location",  // another type's name, renamed to Point
        [](std::string_view bytes) -> absl::StatusOr<Point> {
          absl::StatusOr<Point> p = DecodePoint(bytes);
          if (p.ok()) std::swap(p->x, p->y);
          return p;
        }}}));
  absl::StatusOr<Payload> v1 =
      registry.Deserialize(kCodecSerializerId, "point.v1", "5");
  ASSERT_OK(v1);
  ASSERT_NE(v1->As<Point>(), nullptr);
  EXPECT_EQ(v1->As<Point>()->x, 5);
  EXPECT_EQ(v1->As<Point>()->y, 7);
  absl::StatusOr<Payload> renamed =
      registry.Deserialize(kCodecSerializerId, "geo.Location", "1,2");
  ASSERT_OK(renamed);
  ASSERT_NE(renamed->As<Point>(), nullptr);
  EXPECT_EQ(renamed->As<Point>()->x, 2);
  EXPECT_EQ(renamed->As<Point>()->y, 1);
  absl::StatusOr<SerializedPayload> written =
      registry.Serialize(Payload::Of(Point{1, 2}));
  ASSERT_OK(written);
  EXPECT_EQ(written->manifest, "point.v2");
  // A failing older decoder is a failed read, with its status.
  EXPECT_EQ(registry.Deserialize(kCodecSerializerId, "geo.Location", "x")
                .status()
                .code(),
            absl::StatusCode::kDataLoss);
  // The type of a manifest: its current one only.
  absl::StatusOr<std::type_index> type = registry.TypeWithManifest("point.v2");
  ASSERT_OK(type);
  EXPECT_EQ(*type, std::type_index(typeid(Point)));
  EXPECT_EQ(registry.TypeWithManifest("point.v1").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(SerializationRegistryTest, OlderManifestsAreCheckedBeforeAnythingIsAdded) {
  SerializationRegistry registry;
  ASSERT_OK(registry.Register<Point>("p", EncodePoint, DecodePoint));
  auto encode_amount = [](const Amount&) -> absl::StatusOr<std::string> {
    return std::string("a");
  };
  auto decode_amount = [](std::string_view) -> absl::StatusOr<Amount> {
    return Amount{};
  };
  // An older manifest taken by another type: nothing of Amount is added.
  EXPECT_EQ(registry
                .Register<Amount>(
                    "amount.v2", encode_amount, decode_amount,
                    {{"amount.v1", decode_amount}, {"p", decode_amount}})
                .code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.Deserialize(kCodecSerializerId, "amount.v1", "a")
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(registry.TypeWithManifest("amount.v2").status().code(),
            absl::StatusCode::kNotFound);
  // The same manifest twice in one registration, or one without a decoder.
  EXPECT_EQ(registry
                .Register<Amount>("amount.v2", encode_amount, decode_amount,
                                  {{"amount.v2", decode_amount}})
                .code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry
                .Register<Amount>("amount.v2", encode_amount, decode_amount,
                                  {{"amount.v1", {}}})
                .code(),
            absl::StatusCode::kInvalidArgument);
  // Then it registers cleanly.
  EXPECT_OK(registry.Register<Amount>("amount.v2", encode_amount, decode_amount,
                                      {{"amount.v1", decode_amount}}));
  EXPECT_OK(registry.Deserialize(kCodecSerializerId, "amount.v1", "a"));
}

// Several types bound under one manifest (Bind allows it): asking which
// type has it is ambiguous.
TEST(SerializationRegistryTest, TypeWithManifestRefusesAnAmbiguousManifest) {
  SerializationRegistry registry;
  ASSERT_OK(registry.AddSerializer(std::make_shared<Upper>()));
  ASSERT_OK(registry.Bind<Point>(100, "shared"));
  ASSERT_OK(registry.Bind<Amount>(100, "shared"));
  EXPECT_EQ(registry.TypeWithManifest("shared").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cairn::serialization
