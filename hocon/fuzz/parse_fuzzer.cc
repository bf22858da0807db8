// libFuzzer entry point for the HOCON parser and resolver.
//
// Any input must come back as a Status, never a crash, hang or sanitizer
// report. Beyond that it checks one property: a document that parses and
// resolves prints as JSON that, parsed again (JSON is HOCON), prints the
// same. Includes are disabled so that inputs cannot read files.
//
// Built with clang by tools/fuzz_hocon.sh; the same function runs under
// gtest in parse_fuzzer_test.cc.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "hocon/internal/json_writer.h"
#include "hocon/internal/parser.h"
#include "hocon/internal/path_expression.h"
#include "hocon/internal/resolver.h"
#include "hocon/units.h"

namespace {

using cairn::hocon::internal::ValuePtr;

// The resolved document as JSON, or "" when it does not parse or resolve.
std::string Roundtrip(std::string_view text) {
  absl::StatusOr<ValuePtr> parsed = cairn::hocon::internal::ParseHocon(
      text, cairn::hocon::internal::SourceName("fuzz"), nullptr);
  if (!parsed.ok()) return "";
  absl::StatusOr<ValuePtr> resolved =
      cairn::hocon::internal::Resolve(*parsed, nullptr);
  if (!resolved.ok()) return "";
  return cairn::hocon::internal::RenderJson(**resolved, /*pretty=*/false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string json = Roundtrip(text);
  if (!json.empty()) {
    std::string again = Roundtrip(json);
    if (again != json) {
      std::fprintf(stderr, "JSON round trip differs:\n%s\n%s\n", json.c_str(),
                   again.c_str());
      std::abort();
    }
  }
  // The other parsers that take untrusted text.
  (void)cairn::hocon::internal::ParsePathExpression(text);
  (void)cairn::hocon::ParseDuration(text);
  (void)cairn::hocon::ParseBytes(text);
  return 0;
}
