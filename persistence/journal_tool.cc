// journal_tool: inspects a RocksDB store of the persistence plugins without
// changing it (the database is opened read-only, so it may run while the
// application has the store open).
//
//   journal_tool --db DIR ids             streams: id, highest seq nr, events
//   journal_tool --db DIR dump --id ID    one stream's events as JSON lines
//   journal_tool --db DIR check           verify every record
//
// Exit status: 0 fine; 1 a record could not be read (each problem is
// printed, naming the persistence id and sequence number); 2 bad arguments
// or a store that cannot be opened (one line on stderr).
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
#include "persistence/internal/db.h"
#include "persistence/internal/store_inspection.h"

namespace cairn::persistence {
namespace {

constexpr int kOk = 0;
constexpr int kProblems = 1;
constexpr int kUsage = 2;

constexpr char kUsageText[] =
    "usage: journal_tool --db DIR ids | dump --id ID | check";

struct Arguments {
  std::string db;
  std::string command;
  std::optional<std::string> id;
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
  } else if (parsed.command == "ids" || parsed.command == "check") {
    if (id.has_value()) return "--id is for dump, not " + parsed.command;
  } else {
    return "unknown command '" + parsed.command + "'";
  }
  return std::nullopt;
}

void PrintProblem(std::ostream& out, std::string_view where,
                  const absl::Status& problem) {
  out << where << ": " << absl::StatusCodeToString(problem.code()) << ": "
      << problem.message() << "\n";
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
  absl::StatusOr<std::shared_ptr<internal::Db>> db =
      internal::Db::OpenReadOnly(path, nullptr);
  if (!db.ok()) return Fail(db.status().ToString());

  int64_t problems = 0;
  absl::Status read = (*db)->Read([&](const internal::Db::View& view) {
    if (parsed.command == "ids") {
      problems = internal::ListStreams(
          view, std::cout, [](std::string_view where, const absl::Status& p) {
            PrintProblem(std::cerr, where, p);
          });
    } else if (parsed.command == "dump") {
      problems = internal::DumpStream(
          view, *parsed.id, std::cout,
          [](std::string_view where, const absl::Status& p) {
            PrintProblem(std::cerr, where, p);
          });
    } else {
      internal::CheckCounts counts = internal::CheckStore(
          view, [](std::string_view where, const absl::Status& p) {
            PrintProblem(std::cout, where, p);
          });
      problems = counts.problems;
      std::cout << "checked " << counts.events << " events, "
                << counts.snapshots << " snapshots, " << counts.metadata
                << " stream metadata records: " << counts.problems
                << (counts.problems == 1 ? " problem" : " problems") << "\n";
    }
    return absl::OkStatus();
  });
  if (!read.ok()) return Fail(read.ToString());
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
