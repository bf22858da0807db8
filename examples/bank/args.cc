#include "examples/bank/args.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
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
  if (name == "deposits") return Command::kDeposits;
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

// HOST:PORT (an IPv6 host in brackets: [::1]:2552).
absl::Status ParseListen(const std::string& text, Args& args) {
  const size_t colon = text.rfind(':');
  int64_t port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(text.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return Bad(
        absl::StrCat("--listen needs HOST:PORT (a port from 0 to 65535; "
                     "0 picks a free one), not '",
                     text, "'"));
  }
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  args.listen_host = host;
  args.listen_port = static_cast<int>(port);
  return absl::OkStatus();
}

// Whether `command` takes the flag `name` (--data, --journal and --schema
// are every command's).
bool Takes(Command command, const std::string& name) {
  if (name == "--data" || name == "--journal" || name == "--schema") {
    return true;
  }
  switch (command) {
    case Command::kLoad:
      return name == "--accounts" || name == "--ops" || name == "--fsync";
    case Command::kServe:
      return name == "--owner" || name == "--lease-ttl" || name == "--listen" ||
             name == "--member-ttl" || name == "--answer-timeout";
    case Command::kDeposits:
      return name == "--accounts" || name == "--ops" || name == "--listen" ||
             name == "--member-ttl" || name == "--name" ||
             name == "--redeliver-interval";
    default:
      return false;
  }
}

// Which commands take the flag `name`, for the error saying so.
std::string CommandsTaking(const std::string& name) {
  std::vector<std::string> commands;
  for (const auto& [command, word] :
       {std::pair{Command::kLoad, "load"}, std::pair{Command::kServe, "serve"},
        std::pair{Command::kDeposits, "deposits"}}) {
    if (Takes(command, name)) commands.push_back(word);
  }
  return absl::StrJoin(commands, " and ");
}

}  // namespace

absl::StatusOr<Args> ParseArgs(int argc, const char* const* argv) {
  if (argc < 2)
    return Bad(
        "no command given: demo, load, balances, serve, report or deposits");
  std::optional<Command> command = ParseCommand(argv[1]);
  if (!command.has_value()) {
    return Bad(absl::StrCat("unknown command '", argv[1],
                            "': demo, load, balances, serve, report or "
                            "deposits"));
  }
  Args args;
  args.command = *command;
  const bool is_load = args.command == Command::kLoad;
  const bool is_deposits = args.command == Command::kDeposits;
  std::vector<std::string> seen;
  bool has_accounts = false;
  bool has_ops = false;
  bool has_lease_flag = false;
  bool has_member_ttl = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string name = arg;
    std::optional<std::string> value;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    const bool takes_value =
        name == "--data" || name == "--accounts" || name == "--ops" ||
        name == "--journal" || name == "--schema" || name == "--owner" ||
        name == "--lease-ttl" || name == "--listen" || name == "--member-ttl" ||
        name == "--answer-timeout" || name == "--name" ||
        name == "--redeliver-interval";
    const bool known = takes_value || name == "--fsync";
    if (!known || args.command == Command::kHelp) {
      // Not `arg`: it may be --journal=URL, whose URL may hold a password.
      return Bad(absl::StrCat("unknown argument '", name, "'"));
    }
    if (!Takes(args.command, name)) {
      return Bad(absl::StrCat(name, " is an option of ", CommandsTaking(name),
                              " only"));
    }
    if (name == "--owner" || name == "--lease-ttl") has_lease_flag = true;
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
    } else if (name == "--listen") {
      if (absl::Status s = ParseListen(*value, args); !s.ok()) return s;
    } else if (name == "--member-ttl") {
      absl::StatusOr<int64_t> n =
          ParseCount(name, *value, 1, kMaxLeaseTtlSeconds);
      if (!n.ok()) return n.status();
      args.member_ttl_seconds = *n;
      has_member_ttl = true;
    } else if (name == "--answer-timeout") {
      absl::StatusOr<int64_t> n =
          ParseCount(name, *value, 1, kMaxLeaseTtlSeconds);
      if (!n.ok()) return n.status();
      args.answer_timeout_seconds = *n;
    } else if (name == "--redeliver-interval") {
      absl::Duration d;
      if (!absl::ParseDuration(*value, &d) || d < absl::Milliseconds(10) ||
          d > absl::Hours(1)) {
        return Bad(absl::StrCat(
            "--redeliver-interval needs a duration from 10ms to 1h (e.g. 5s, "
            "500ms), not '",
            *value, "'"));
      }
      args.redeliver_interval = d;
    } else if (name == "--name") {
      if (value->empty() ||
          value->find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
              std::string::npos) {
        return Bad("--name needs a word of letters, digits, '-' and '_'");
      }
      args.name = *value;
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
  const bool listens = !args.listen_host.empty();
  if (listens && args.journal.empty()) {
    return Bad(
        "--listen needs --journal: the members of a cluster, and the leases "
        "of their shards, are kept in the PostgreSQL database");
  }
  if (listens && !args.owner.empty()) {
    return Bad(
        "--owner cannot be given with --listen: in a cluster each process "
        "holds its leases as a member, named by its address");
  }
  if (has_member_ttl && !listens) {
    return Bad("--member-ttl needs --listen: it is a cluster member's");
  }
  if (is_deposits &&
      !(has_accounts && has_ops && listens && !args.name.empty())) {
    return Bad(
        "deposits needs --journal URL, --listen HOST:PORT, --name NAME, "
        "--accounts N and --ops M");
  }
  return args;
}

}  // namespace cairn::examples::bank
