#include "bench/remote/far_side.h"

#include <sys/wait.h>

#include <cstdio>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/remote/side.h"

namespace cairn::bench::remote {
namespace {

constexpr absl::Duration kDeadline = absl::Seconds(30);

}  // namespace

FarSide FarSide::Start(const std::string& side) {
  const std::string flag = "--serve=" + side;
  absl::StatusOr<ChildProcess> child =
      ChildProcess::Start({"remote_vs_caf", flag}, kDeadline);
  if (!child.ok()) {
    Die("the far side (" + flag + ") did not say where it listens: " +
        std::string(child.status().message()));
  }
  return FarSide(*std::move(child));
}

FarSide::~FarSide() {
  if (!child_.running()) return;
  const std::optional<int> status = child_.Finish(kDeadline);
  if (!status.has_value()) {
    std::fprintf(stderr, "remote_vs_caf: the far side did not exit; killed\n");
  } else if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    std::fprintf(stderr, "remote_vs_caf: the far side ended badly (%d)\n",
                 *status);
  }
}

}  // namespace cairn::bench::remote
