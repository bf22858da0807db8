// journal_tool: inspects a RocksDB store of the persistence plugins without
// changing it (the database is opened read-only, so it may run while the
// application has the store open), and salvages one with damaged
// write-ahead logs when asked to.
//
//   journal_tool --db DIR ids             streams: id, highest seq nr, events
//   journal_tool --db DIR dump --id ID    one stream's events as JSON lines
//   journal_tool --db DIR check           verify every record and log
//   journal_tool --db DIR salvage [--confirm]
//                                         keep what damaged logs still hold;
//                                         without --confirm, change nothing
//
// Exit status: 0 fine (salvage: salvaged, or nothing to salvage); 1 a
// record or log could not be read (each problem is printed, naming the
// persistence id and sequence number, or the log file and offset);
// salvage without --confirm found damage; 2 bad arguments, an unknown
// stream, or a store that cannot be opened (one line on stderr).
// See docs/PERSISTENCE_STORAGE.md.

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/store_directory.h"
#include "persistence/rocksdb/internal/store_inspection.h"
#include "persistence/rocksdb/internal/store_salvage.h"
#include "persistence/rocksdb/internal/wal_check.h"
#include "rocksdb/env.h"

namespace cairn::persistence {
namespace {

constexpr int kOk = 0;
constexpr int kProblems = 1;
constexpr int kUsage = 2;

constexpr char kUsageText[] =
    "usage: journal_tool --db DIR ids | dump --id ID | check | "
    "salvage [--confirm]";

struct Arguments {
  std::string db;
  std::string command;
  std::optional<std::string> id;
  bool confirm = false;
};

int Fail(std::string_view message) {
  std::cerr << "journal_tool: " << message << "\n";
  return kUsage;
}

// Takes "--name VALUE" or "--name=VALUE" at args[i]; advances i past it.
bool TakeFlag(const std::vector<std::string>& args, size_t& i,
              std::string_view name, std::optional<std::string>& value,
              std::string& error) {
  const std::string& arg = args[i];
  const std::string flag = "--" + std::string(name);
  if ((arg == flag || arg.rfind(flag + "=", 0) == 0) && value.has_value()) {
    error = flag + " is given twice";
    return true;
  }
  if (arg == flag) {
    if (i + 1 >= args.size()) {
      error = flag + " needs a value";
      return true;
    }
    value = args[i + 1];
    i += 2;
    return true;
  }
  if (arg.rfind(flag + "=", 0) == 0) {
    value = arg.substr(flag.size() + 1);
    ++i;
    return true;
  }
  return false;
}

// An error message, or nothing if `args` are good.
std::optional<std::string> Parse(const std::vector<std::string>& args,
                                 Arguments& parsed) {
  std::optional<std::string> db;
  std::optional<std::string> id;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--confirm") {
      if (parsed.confirm) return std::string("--confirm is given twice");
      parsed.confirm = true;
      ++i;
      continue;
    }
    std::string error;
    if (TakeFlag(args, i, "db", db, error) ||
        TakeFlag(args, i, "id", id, error)) {
      if (!error.empty()) return error;
      continue;
    }
    if (args[i].rfind("-", 0) == 0) return "unknown option " + args[i];
    positional.push_back(args[i]);
    ++i;
  }
  if (!db.has_value() || db->empty())
    return std::string("--db DIR is required");
  if (positional.size() != 1) return std::string("expected one command");
  parsed.db = *db;
  parsed.command = positional[0];
  parsed.id = id;
  if (parsed.command == "dump") {
    if (!id.has_value()) return std::string("dump needs --id ID");
  } else if (parsed.command == "ids" || parsed.command == "check" ||
             parsed.command == "salvage") {
    if (id.has_value()) return "--id is for dump, not " + parsed.command;
  } else {
    return "unknown command '" + parsed.command + "'";
  }
  if (parsed.confirm && parsed.command != "salvage") {
    return "--confirm is for salvage, not " + parsed.command;
  }
  return std::nullopt;
}

void PrintProblem(std::ostream& out, std::string_view where,
                  const absl::Status& problem) {
  out << where << ": " << absl::StatusCodeToString(problem.code()) << ": "
      << problem.message() << "\n";
}

// The store's logs, checked (wal_check.h), after the directory is known to
// hold a store.
absl::StatusOr<rocksdb_internal::WalReport> CheckLogs(const std::string& path) {
  rocksdb::Env* env = rocksdb::Env::Default();
  absl::StatusOr<rocksdb_internal::StoreDirectory> directory =
      rocksdb_internal::InspectStoreDirectory(env, path);
  if (!directory.ok()) return directory.status();
  if (!directory->has_current) {
    return absl::NotFoundError("no RocksDB store at " + path);
  }
  return rocksdb_internal::CheckWalFiles(env, path);
}

void PrintLost(std::string_view id, int64_t from, int64_t to, bool unverified) {
  std::cout << "lost: {\"id\":" << rocksdb_internal::JsonString(id)
            << ",\"from\":" << from << ",\"to\":" << to;
  if (unverified) std::cout << ",\"named_only_by_damaged_bytes\":true";
  std::cout << "}\n";
}

int Salvage(const std::string& path, bool confirm) {
  auto print_problem = [](std::string_view where, const absl::Status& p) {
    PrintProblem(std::cout, where, p);
  };
  if (!confirm) {
    absl::StatusOr<rocksdb_internal::WalReport> logs = CheckLogs(path);
    if (!logs.ok()) return Fail(logs.status().ToString());
    if (rocksdb_internal::ReportWalProblems(*logs, print_problem) == 0) {
      std::cout << "nothing to salvage: the write-ahead logs are sound\n";
      return kOk;
    }
    std::cout << "nothing was changed. salvage --confirm keeps every "
                 "readable record, replaces the damaged logs (keeping "
                 "copies) and prints what was lost\n";
    return kProblems;
  }
  absl::StatusOr<rocksdb_internal::SalvageResult> result =
      rocksdb_internal::SalvageStore(path, nullptr);
  if (!result.ok()) return Fail(result.status().ToString());
  rocksdb_internal::ReportWalProblems(result->logs, print_problem);
  if (!result->changed) {
    std::cout << "nothing to salvage: the write-ahead logs are sound\n";
    return kOk;
  }
  std::cout << "kept the damaged logs as they were in " << result->backup_dir
            << "\n";
  for (const auto& [log, records] : result->rewritten) {
    std::cout << "rewrote " << log << " with its " << records
              << " readable records\n";
  }
  int64_t lost = 0;
  for (const rocksdb_internal::MissingEvents& missing :
       result->missing_events) {
    PrintLost(missing.persistence_id, missing.from, missing.to, false);
    lost += missing.to - missing.from + 1;
  }
  for (const auto& [id, sequence_nr] : result->named_by_damage) {
    PrintLost(id, sequence_nr, sequence_nr, true);
    ++lost;
  }
  for (const auto& [from, to] : result->lost_sequence_numbers) {
    std::cout << "lost: database sequence numbers " << from << " to " << to
              << " are in no readable log record\n";
  }
  std::cout << "salvaged: " << lost << (lost == 1 ? " event is" : " events are")
            << " known lost; the store opens again\n";
  return kOk;
}

int Run(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsageText << "\n";
      return kOk;
    }
  }
  Arguments parsed;
  if (std::optional<std::string> error = Parse(args, parsed)) {
    return Fail(*error + " (" + kUsageText + ")");
  }
  // `bazel run` starts the tool in its runfiles: a relative path means
  // relative to where the user typed the command.
  std::string path = parsed.db;
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.front() != '/' && cwd != nullptr && *cwd != '\0') {
    path = std::string(cwd) + "/" + path;
  }
  if (parsed.command == "salvage") return Salvage(path, parsed.confirm);

  // The logs first: RocksDB cannot say where they are damaged, and would
  // refuse to open the store, which can still be inspected.
  std::ostream& problem_out = parsed.command == "check" ? std::cout : std::cerr;
  auto print_problem = [&](std::string_view where, const absl::Status& p) {
    PrintProblem(problem_out, where, p);
  };
  absl::StatusOr<rocksdb_internal::WalReport> logs = CheckLogs(path);
  if (!logs.ok()) return Fail(logs.status().ToString());
  int64_t problems = rocksdb_internal::ReportWalProblems(*logs, print_problem);
  if (logs->cut_short_end.has_value() && parsed.command == "check") {
    std::cout << "wal: note: the newest log ends in a record cut short, as "
                 "a crash during a write leaves (opening the store drops it): "
              << *logs->cut_short_end << "\n";
  }
  absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> db =
      rocksdb_internal::Db::OpenReadOnly(
          path, nullptr,
          logs->problems.empty()
              ? rocksdb_internal::Db::WalRecovery::kTrustLogs
              : rocksdb_internal::Db::WalRecovery::kSkipDamaged);
  if (!db.ok()) return Fail(db.status().ToString());

  bool unknown_stream = false;
  absl::Status read = (*db)->Read([&](const rocksdb_internal::Db::View& view) {
    if (parsed.command == "ids") {
      problems += rocksdb_internal::ListStreams(view, std::cout, print_problem);
    } else if (parsed.command == "dump") {
      if (!rocksdb_internal::HasStream(view, *parsed.id)) {
        unknown_stream = true;
        return absl::OkStatus();
      }
      problems += rocksdb_internal::DumpStream(view, *parsed.id, std::cout,
                                               print_problem);
    } else {
      rocksdb_internal::CheckCounts counts =
          rocksdb_internal::CheckStore(view, print_problem);
      problems += counts.problems;
      std::cout << "checked " << counts.events << " events, "
                << counts.snapshots << " snapshots, " << counts.metadata
                << " stream metadata records, " << logs->records
                << " write-ahead log records: " << problems
                << (problems == 1 ? " problem" : " problems") << "\n";
    }
    return absl::OkStatus();
  });
  if (!read.ok()) return Fail(read.ToString());
  if (unknown_stream) {
    return Fail("no stream with persistence id " +
                rocksdb_internal::JsonString(*parsed.id) + " in " + path +
                " (no events, no metadata)");
  }
  std::cout.flush();
  if (!std::cout) return Fail("writing the output failed");
  return problems > 0 ? kProblems : kOk;
}

}  // namespace
}  // namespace cairn::persistence

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return cairn::persistence::Run(args);
}
