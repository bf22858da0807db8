// The typed account's demo: opens (or goes on with) the account "alice" on
// the RocksDB journal in --data, deposits, withdraws, is refused an
// overdraft, and prints what it was told. Run it twice: the second run
// starts from the balance the first one stored.
//
//   bazel run //examples/typed_account -- --data /tmp/typed-account

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/typed_ref.h"
#include "examples/typed_account/account.h"
#include "hocon/config.h"
#include "persistence/persistence.h"
#include "persistence/typed/event_sourced_behavior.h"

ABSL_FLAG(std::string, data, "", "the directory of the account's journal");

namespace {

using namespace cairn;  // NOLINT: an example
using examples::typed_account::Confirmation;
using examples::typed_account::Deposit;
using examples::typed_account::GetBalance;
using examples::typed_account::Withdraw;

constexpr absl::Duration kTimeout = absl::Seconds(10);

void Print(const std::string& what, const Confirmation& c) {
  std::printf("%s: %s, balance %lld%s\n", what.c_str(),
              c.accepted ? "accepted" : "refused",
              static_cast<long long>(c.balance),
              c.reason.empty() ? "" : (" (" + c.reason + ")").c_str());
}

int Run(const std::string& dir) {
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(
      absl::StrCat("akka.persistence.journal.rocksdb.dir = \"", dir, "\""));
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(config.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("typed-account", *config);
  if (!system.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(system.status().message()).c_str());
    return 1;
  }
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  if (absl::Status s = examples::typed_account::RegisterAccountTypes(*registry);
      !s.ok() || !(s = persistence::Persistence::Get(**system).Setup(
                       {.serialization = registry}))
                      .ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  actor::TypedRef<examples::typed_account::AccountCommand> alice =
      persistence::typed::Spawn(
          **system, examples::typed_account::MakeAccount("alice"), "alice");
  // An answer that does not come (the store cannot be opened, e.g. another
  // run holds it) ends the demo with why, not with an exception.
  int status = 0;
  try {
    int64_t start =
        actor::Ask<int64_t>(
            alice, [](actor::ReplyTo<int64_t> to) { return GetBalance{to}; },
            kTimeout)
            .get();
    std::printf("alice starts with %lld\n", static_cast<long long>(start));
    auto confirm = [&](const std::string& what, auto make_command) {
      Print(what,
            actor::Ask<Confirmation>(alice, make_command, kTimeout).get());
    };
    confirm("deposit 100", [](actor::ReplyTo<Confirmation> to) {
      return Deposit{100, to};
    });
    confirm("withdraw 30", [](actor::ReplyTo<Confirmation> to) {
      return Withdraw{30, to};
    });
    confirm("withdraw 1000000", [](actor::ReplyTo<Confirmation> to) {
      return Withdraw{1000000, to};
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "typed_account: %s\n", e.what());
    status = 1;
  }
  (*system)->Terminate().wait();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const std::string dir = absl::GetFlag(FLAGS_data);
  if (dir.empty()) {
    std::fprintf(stderr, "usage: typed_account --data DIR\n");
    return 2;
  }
  return Run(dir);
}
