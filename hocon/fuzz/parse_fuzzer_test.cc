// Runs the fuzz entry point without libFuzzer: on every conformance file
// and on a fixed number of random mutations of them (a seeded generator,
// so a failure reproduces), plus hand-picked nasty inputs.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hocon/testing/conformance_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int Fuzz(const std::string& input) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()),
                                input.size());
}

std::vector<std::string> Corpus() {
  std::vector<std::string> corpus = {
      "",
      "a = 1",
      "a { b = ${a.c}, c = [1, 2] ${?x} }",
      "a = ${a}",
      "a = ${b}\nb = ${a}",
      "a += 1\na += 2",
      "\"\"\" open",
      "{ a : [ { b : \"\\u12",
      "x = \"\"\"\"\"\"\"\"",
      "a.b.c.d.e.f = 1\na.b = ${a.b.c}",
      std::string(300, '[') + std::string(300, ']'),
      std::string(300, '{') + std::string(300, '}'),
      "a = \xff\xfe",
      // Found by libFuzzer: a floating-point number whose JSON form lost
      // its '.' read back as a string.
      "b=555555555555555555555555555555555555555555555555555552.",
      // Found by libFuzzer: a path key nesting deeper than braces may, whose
      // JSON form did not parse again.
      "a" +
          [] {
            std::string s;
            for (int i = 0; i < 250; ++i) s += ".a";
            return s;
          }() +
          " = 1",
      // Found by libFuzzer: optional substitutions into the value they
      // are part of, which resolved in time exponential in their number.
      "a = x ${?a.p1} y ${?a.p2} y ${?a.p3} y ${?a.p4} y ${?a.p5} y ${?a.p6} "
      "y ${?a.p7} y ${?a.p8} y ${?a.d.p9} y ${?a.d.e.p10}",
  };
  std::string dir = cairn::hocon::testing::ConformanceDir();
  if (dir.empty()) return corpus;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(dir + "/hocon")) {
    std::string ext = entry.path().extension().string();
    if (ext != ".conf" && ext != ".json" && ext != ".properties") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    corpus.push_back(s.str());
  }
  return corpus;
}

std::string Mutate(const std::string& seed, std::mt19937& rng) {
  static const std::string kTokens[] = {"${",
                                        "}",
                                        "{",
                                        "[",
                                        "]",
                                        "\"",
                                        "\"\"\"",
                                        "\n",
                                        ",",
                                        "=",
                                        "+=",
                                        ":",
                                        "${?",
                                        ".",
                                        "//",
                                        "#",
                                        "include \"x\"",
                                        "\\u",
                                        "null",
                                        "true",
                                        "-1e9"};
  std::string s = seed;
  int edits = 1 + rng() % 8;
  for (int i = 0; i < edits; ++i) {
    std::size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 4) {
      case 0:  // delete a run
        if (!s.empty() && pos < s.size()) s.erase(pos, 1 + rng() % 16);
        break;
      case 1:  // insert a random byte
        s.insert(pos, 1, static_cast<char>(rng() % 256));
        break;
      case 2:  // insert a token
        s.insert(pos, kTokens[rng() % std::size(kTokens)]);
        break;
      default:  // duplicate a slice
        if (!s.empty()) {
          std::size_t from = rng() % s.size();
          s.insert(pos, s.substr(from, 1 + rng() % 64));
        }
    }
  }
  return s;
}

TEST(ParseFuzzerTest, CorpusAndMutationsNeverCrash) {
  std::vector<std::string> corpus = Corpus();
  for (const std::string& input : corpus) EXPECT_EQ(Fuzz(input), 0);
  std::mt19937 rng(20261122);
  constexpr int kIterations = 3000;
  for (int i = 0; i < kIterations; ++i) {
    EXPECT_EQ(Fuzz(Mutate(corpus[rng() % corpus.size()], rng)), 0);
  }
}

}  // namespace
