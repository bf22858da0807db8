#include "examples/bank/args.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "postgresql/libpq-fe.h"

namespace cairn::examples::bank {
namespace {

using Command = Args::Command;

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

std::optional<Command> ParseCommand(const std::string& name) {
  if (name == "demo") return Command::kDemo;
  if (name == "load") return Command::kLoad;
  if (name == "balances") return Command::kBalances;
  if (name == "serve") return Command::kServe;
  if (name == "report") return Command::kReport;
  if (name == "help" || name == "--help" || name == "-h") return Command::kHelp;
  return std::nullopt;
}

// Whether libpq can parse `url`. Its reasons are not passed on: they quote
// the URL, password and all.
bool LibpqParses(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (error != nullptr) PQfreemem(error);
  if (options == nullptr) return false;
  PQconninfoFree(options);
  return true;
}

absl::StatusOr<int64_t> ParseCount(const std::string& flag,
                                   const std::string& text, int64_t min,
                                   int64_t max) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < min || value > max) {
    return Bad(absl::StrCat(flag, " must be a whole number from ", min, " to ",
                            max, ", not '", text, "'"));
  }
  return value;
}

}  // namespace

absl::StatusOr<Args> ParseArgs(int argc, const char* const* argv) {
  if (argc < 2)
    return Bad("no command given: demo, load, balances, serve or report");
  std::optional<Command> command = ParseCommand(argv[1]);
  if (!command.has_value()) {
    return Bad(absl::StrCat("unknown command '", argv[1],
                            "': demo, load, balances, serve or report"));
  }
  Args args;
  args.command = *command;
  const bool is_load = args.command == Command::kLoad;
  const bool is_serve = args.command == Command::kServe;
  std::vector<std::string> seen;
  bool has_accounts = false;
  bool has_ops = false;
  bool has_lease_flag = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string name = arg;
    std::optional<std::string> value;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    const bool is_store_flag = name == "--journal" || name == "--schema";
    const bool is_serve_flag = name == "--owner" || name == "--lease-ttl";
    const bool takes_value = name == "--data" || name == "--accounts" ||
                             name == "--ops" || is_store_flag || is_serve_flag;
    const bool known = takes_value || name == "--fsync";
    if (!known || args.command == Command::kHelp) {
      // Not `arg`: it may be --journal=URL, whose URL may hold a password.
      return Bad(absl::StrCat("unknown argument '", name, "'"));
    }
    // Every command but help takes --data, --journal and --schema.
    if (is_serve_flag) {
      if (!is_serve)
        return Bad(absl::StrCat(name, " is an option of serve only"));
      has_lease_flag = true;
    } else if (!is_load && !is_store_flag && name != "--data") {
      return Bad(absl::StrCat(name, " is an option of load only"));
    }
    for (const std::string& s : seen) {
      if (s == name) return Bad(absl::StrCat(name, " given twice"));
    }
    seen.push_back(name);
    if (!takes_value) {
      if (value.has_value()) return Bad(absl::StrCat(name, " takes no value"));
      args.fsync = true;
      continue;
    }
    if (!value.has_value()) {
      if (i + 1 >= argc) return Bad(absl::StrCat(name, " needs a value"));
      value = argv[++i];
    }
    if (name == "--data") {
      if (value->empty()) return Bad("--data needs a directory");
      args.data = *value;
    } else if (name == "--journal") {
      // The URL itself is never shown: it may hold a password.
      if (!absl::StartsWith(*value, "postgresql://") &&
          !absl::StartsWith(*value, "postgres://")) {
        return Bad(
            "--journal needs a postgresql:// or postgres:// URL (the value "
            "given is not shown: it may hold a password)");
      }
      if (!LibpqParses(*value)) {
        return Bad(
            "--journal: libpq cannot parse the URL (its reason is not shown: "
            "it quotes the URL, which may hold a password)");
      }
      args.journal = *value;
    } else if (name == "--schema") {
      if (value->empty()) return Bad("--schema needs a name");
      args.schema = *value;
    } else if (name == "--owner") {
      if (value->empty() ||
          value->find_first_of(" \t\r\n") != std::string::npos) {
        return Bad("--owner needs a name without spaces");
      }
      args.owner = *value;
    } else if (name == "--lease-ttl") {
      absl::StatusOr<int64_t> n =
          ParseCount(name, *value, 1, kMaxLeaseTtlSeconds);
      if (!n.ok()) return n.status();
      args.lease_ttl_seconds = *n;
    } else if (name == "--accounts") {
      absl::StatusOr<int64_t> n = ParseCount(name, *value, 1, kMaxAccounts);
      if (!n.ok()) return n.status();
      args.accounts = *n;
      has_accounts = true;
    } else {
      absl::StatusOr<int64_t> n = ParseCount(name, *value, 0, kMaxOps);
      if (!n.ok()) return n.status();
      args.ops = *n;
      has_ops = true;
    }
  }
  if (!args.schema.empty() && args.journal.empty()) {
    return Bad("--schema needs --journal: it names a schema of that server");
  }
  if (!args.journal.empty() && args.fsync) {
    return Bad(
        "--fsync is for the RocksDB store: on PostgreSQL, what a commit "
        "waits for is the server's setting (synchronous_commit)");
  }
  if (!args.journal.empty() && !args.data.empty()) {
    return Bad(
        "--data and --journal cannot both be given: the accounts are either "
        "in the RocksDB store in --data or on the --journal server");
  }
  if (has_lease_flag && args.journal.empty()) {
    return Bad(
        "--owner and --lease-ttl need --journal: leases are held in the "
        "PostgreSQL database; the RocksDB store is one process's");
  }
  if (is_load && !(has_accounts && has_ops)) {
    return Bad("load needs --accounts N and --ops M");
  }
  return args;
}

}  // namespace cairn::examples::bank
