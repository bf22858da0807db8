// The bank example: event-sourced accounts on cairn's embedded RocksDB
// journal, or on PostgreSQL (--journal URL). See README.md, or run `bank
// help`.
//
//   bazel run //examples/bank -- demo --data /tmp/bank
#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "examples/bank/args.h"
#include "examples/bank/commands.h"
#include "examples/bank/data_dir.h"
#include "examples/bank/line_writer.h"

namespace bank = cairn::examples::bank;

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// Errors are one line on stderr, whatever the message holds.
void PrintError(const char* context, const absl::Status& status) {
  std::fprintf(stderr, "%s: %s\n", context,
               bank::OneLine(status.message()).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<bank::Args> args = bank::ParseArgs(argc, argv);
  if (!args.ok()) {
    PrintError("bank", absl::InvalidArgumentError(absl::StrCat(
                           args.status().message(), " (see `bank help`)")));
    return kExitUsage;
  }
  if (args->command == bank::Args::Command::kHelp) {
    std::fputs(bank::kUsage, stdout);
    return 0;
  }
  const bank::DataDir data = bank::ResolveDataDir(args->data);
  bank::StoreLocation store{data, args->journal};
  if (!args->schema.empty()) store.schema = args->schema;
  absl::Status status;
  const char* context = "bank";
  switch (args->command) {
    case bank::Args::Command::kDemo:
      context = "bank demo";
      status = bank::RunDemo(store);
      break;
    case bank::Args::Command::kLoad:
      context = "bank load";
      status = bank::RunLoad(
          store, bank::LoadOptions{args->accounts, args->ops, args->fsync});
      break;
    case bank::Args::Command::kBalances:
      context = "bank balances";
      status = bank::RunBalances(store);
      break;
    case bank::Args::Command::kServe:
      context = "bank serve";
      status = bank::RunServe(
          store, bank::ServeOptions{
                     args->owner, absl::Seconds(args->lease_ttl_seconds),
                     args->listen_host, args->listen_port,
                     absl::Seconds(args->member_ttl_seconds),
                     absl::Seconds(args->answer_timeout_seconds)});
      break;
    case bank::Args::Command::kDeposits:
      context = "bank deposits";
      status = bank::RunDeposits(
          store,
          bank::DepositsOptions{args->name, args->accounts, args->ops,
                                args->listen_host, args->listen_port,
                                absl::Seconds(args->member_ttl_seconds)});
      break;
    case bank::Args::Command::kReport:
      context = "bank report";
      status = bank::RunReport(store);
      break;
    case bank::Args::Command::kHelp:
      break;
  }
  if (status.ok()) return 0;
  std::fflush(stdout);
  PrintError(context, status);
  return status.code() == absl::StatusCode::kInvalidArgument ? kExitUsage
                                                             : kExitFailed;
}
