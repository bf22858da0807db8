#ifndef CAIRN_EXAMPLES_BANK_BANK_PROCESS_H_
#define CAIRN_EXAMPLES_BANK_BANK_PROCESS_H_

// Runs the bank binary from a test: to completion, or line by line until
// the test kills it. Every wait has a deadline.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cairn::examples::bank::testing {

// //examples/bank:bank in the test's runfiles ($BANK_BINARY overrides).
std::string BankBinary();

struct Finished {
  // The exit code; -1 if it died of a signal or was killed at the deadline.
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `bank args...` to its end, or kills it after `timeout`.
Finished RunBank(const std::vector<std::string>& args, absl::Duration timeout);

// One line of `bank balances`: "ACCOUNT BALANCE LAST_SEQ_NR".
struct Balance {
  int64_t balance = 0;
  int64_t last_sequence_nr = 0;
};

// What `bank balances` printed, by account. InvalidArgument naming the
// line when one does not read, or when the accounts are not in increasing
// order (as `balances` prints them).
absl::StatusOr<std::map<int64_t, Balance>> ParseBalances(
    const std::string& out);

// A running bank whose stdout is read line by line and whose stdin is
// written line by line (its stderr goes to the test's). Killed, if still
// running, when destroyed.
class BankProcess {
 public:
  [[nodiscard]] static absl::StatusOr<BankProcess> Start(
      const std::vector<std::string>& args);

  BankProcess(BankProcess&& other) noexcept;
  BankProcess& operator=(BankProcess&&) = delete;
  ~BankProcess();

  // The next complete line (without '\n'); nullopt at the end of the
  // output, or if none came by `deadline`. A last line the process did not
  // finish is not returned.
  std::optional<std::string> ReadLine(absl::Time deadline);

  // Writes `line` and '\n' to its stdin. False if it cannot (the process
  // ended, or its input was closed). Blocks while the pipe is full.
  bool WriteLine(const std::string& line);
  // Closes its stdin: the process reads the end of its input.
  void CloseInput();

  // Sends `signal` (SIGSTOP, SIGCONT...). False if the process is gone.
  bool Signal(int signal);

  // SIGKILL, then waits for the process. Returns the wait status.
  int Kill();

  // Waits for the process to end by itself, up to `deadline` (then kills
  // it). Its exit code; -1 if it died of a signal or was killed.
  int Wait(absl::Time deadline);

 private:
  BankProcess(pid_t pid, int in, int out) : pid_(pid), in_(in), out_(out) {}

  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string buffer_;
  bool eof_ = false;
};

}  // namespace cairn::examples::bank::testing

#endif  // CAIRN_EXAMPLES_BANK_BANK_PROCESS_H_
