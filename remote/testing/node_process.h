#ifndef CAIRN_REMOTE_TESTING_NODE_PROCESS_H_
#define CAIRN_REMOTE_TESTING_NODE_PROCESS_H_

// A node (node_main.cc) in a process of its own, started by a test. Every
// wait has a deadline; a node still running when its NodeProcess is
// destroyed is killed (SIGKILL) and reaped, and one whose test process
// dies gets SIGKILL too (PR_SET_PDEATHSIG), so none outlives its test.

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace cairn::remote::testing {

class NodeProcess {
 public:
  // Starts the node binary (//remote/testing:node in the test's runfiles;
  // $CAIRN_REMOTE_NODE overrides) as system `name`, with `extra_config`
  // (HOCON) added to its settings, and waits until it prints its address.
  // Unavailable if it cannot be started or does not print its address by
  // `deadline` (then it is killed).
  [[nodiscard]] static absl::StatusOr<NodeProcess> Start(
      const std::string& name, absl::Time deadline,
      const std::string& extra_config = "");
  // Starts another program (`binary`, a path, with `args`) that prints an
  // address as the first line of its stdout, as the node does.
  [[nodiscard]] static absl::StatusOr<NodeProcess> StartProgram(
      const std::string& binary, const std::vector<std::string>& args,
      absl::Time deadline);

  NodeProcess(NodeProcess&& other) noexcept;
  NodeProcess& operator=(NodeProcess&&) = delete;
  ~NodeProcess();

  // akka://<name>@127.0.0.1:<port>
  const std::string& address() const { return address_; }
  // The address followed by `path` (/user/echo).
  std::string Path(absl::string_view path) const {
    return absl::StrCat(address_, path);
  }

  // Not yet ended by Terminate.
  bool running() const { return pid_ > 0; }

  // Sends SIGTERM (coordinated shutdown) and waits for the process to end,
  // up to `deadline`, then kills it. Its exit code; -1 if it died of a
  // signal or was killed. Again after it ended: -1.
  int Terminate(absl::Time deadline);
  // SIGKILL, then reaps it: no goodbye to its peers.
  void Kill();
  // SIGSTOP and SIGCONT: a process paused, then going on as if nothing
  // happened.
  void Pause();
  void Resume();
  // Waits, up to `deadline`, for it to end by itself (no signal sent). Its
  // exit code; -1 if it died of a signal, or is still running at the
  // deadline (then it is left running).
  int AwaitExit(absl::Time deadline);

 private:
  NodeProcess(pid_t pid, int out) : pid_(pid), out_(out) {}

  // The next line of its stdout, without '\n'; false at its end or at
  // `deadline`.
  bool ReadLine(absl::Time deadline, std::string* line);

  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffer_;
  std::string address_;
};

}  // namespace cairn::remote::testing

#endif  // CAIRN_REMOTE_TESTING_NODE_PROCESS_H_
