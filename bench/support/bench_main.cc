#include "bench/support/bench_main.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "base/string_view.h"

ABSL_FLAG(bool, quick, false,
          "small counts: checks that the benchmark works; the figures mean "
          "nothing");

namespace cairn::bench {

void InitBenchmark(int argc, char** argv, std::string_view usage) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each row reaches a pipe
  absl::SetProgramUsageMessage(base::Av(usage));
  const std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "unexpected argument '%s'\nusage: %s\n", rest[1],
                 std::string(usage).c_str());
    std::exit(2);
  }
}

bool Quick() { return absl::GetFlag(FLAGS_quick); }

}  // namespace cairn::bench
