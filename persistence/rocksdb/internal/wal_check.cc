#include "persistence/rocksdb/internal/wal_check.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_join.h"
#include "base/string_view.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

std::string Describe(const WalLog& log, const WalDamage& damage) {
  return base::StrCat(log.path, " at offset ", damage.offset, " (",
                      damage.reason, "; ", damage.length,
                      " bytes cannot be read)");
}

}  // namespace

absl::StatusOr<WalReport> CheckWalFiles(
    rocksdb::Env* env, const std::string& dir,
    absl::FunctionRef<void(const WalLog& log, const WalRecord& record)>
        on_record) {
  std::vector<std::string> children;
  rocksdb::Status listed = env->GetChildren(dir, &children);
  if (!listed.ok()) {
    return absl::UnavailableError(base::StrCat("listing the store directory ",
                                               dir, ": ", listed.ToString()));
  }
  WalReport report;
  for (const std::string& name : children) {
    if (std::optional<uint64_t> number = WalFileNumber(name)) {
      WalLog log;
      log.name = name;
      log.path = base::StrCat(dir, "/", name);
      log.number = *number;
      report.logs.push_back(std::move(log));
    }
  }
  std::sort(
      report.logs.begin(), report.logs.end(),
      [](const WalLog& a, const WalLog& b) { return a.number < b.number; });
  for (WalLog& log : report.logs) {
    absl::StatusOr<WalFileScan> scan =
        ScanWalFile(env, log.path, log.number,
                    [&](const WalRecord& record) { on_record(log, record); });
    if (!scan.ok()) return scan.status();
    log.scan = *std::move(scan);
    report.records += log.scan.records;
  }

  size_t newest = report.logs.size();  // the newest log with any content
  for (size_t i = 0; i < report.logs.size(); ++i) {
    const WalFileScan& scan = report.logs[i].scan;
    if (scan.records > 0 || !scan.damage.empty()) newest = i;
  }
  for (const WalLog& log : report.logs) {
    for (const WalDamage& damage : log.scan.damage) {
      if (damage.at_end) continue;
      report.problems.push_back(absl::DataLossError(
          base::StrCat("write-ahead log ", Describe(log, damage),
                       ", and readable records follow it")));
    }
  }

  // The sequence number just past the last readable record so far, the log
  // that holds it, and the damaged ends of logs seen since.
  std::optional<uint64_t> end;
  const WalLog* end_log = nullptr;
  std::vector<std::string> unread;
  for (size_t i = 0; i < report.logs.size(); ++i) {
    const WalLog& log = report.logs[i];
    const WalFileScan& scan = log.scan;
    if (scan.first_sequence.has_value()) {
      if (end.has_value() && *scan.first_sequence > *end) {
        std::string how =
            unread.empty()
                ? base::StrCat(
                      "; ", end_log->name,
                      " ends after a complete record: it was cut short "
                      "at a record boundary, or log files are missing")
                : base::StrCat("; unreadable: ", absl::StrJoin(unread, ", "));
        report.problems.push_back(absl::DataLossError(base::StrCat(
            "records are missing between write-ahead logs ", end_log->path,
            " and ", log.path, ": no log holds database sequence numbers ",
            *end, " to ", *scan.first_sequence - 1, how)));
      } else if (!end.has_value() && !unread.empty()) {
        report.problems.push_back(absl::DataLossError(
            base::StrCat("write-ahead log ", absl::StrJoin(unread, ", "),
                         ", and newer logs follow it")));
      }
      // Otherwise a damaged end before this log was a write cut short,
      // which the store went on from: nothing is missing.
      unread.clear();
      end = std::max(end.value_or(0), *scan.end_sequence);
      end_log = &log;
    }
    for (const WalDamage& damage : scan.damage) {
      if (!damage.at_end) continue;
      if (i == newest) {
        report.cut_short_end = Describe(log, damage);
      } else {
        unread.push_back(Describe(log, damage));
      }
    }
  }
  if (!unread.empty()) {
    report.problems.push_back(absl::DataLossError(
        base::StrCat("write-ahead log ", absl::StrJoin(unread, ", "),
                     ", and newer logs follow it")));
  }
  return report;
}

absl::StatusOr<WalReport> CheckWalFiles(rocksdb::Env* env,
                                        const std::string& dir) {
  return CheckWalFiles(env, dir, [](const WalLog&, const WalRecord&) {});
}

absl::Status WalProblemsStatus(const std::string& dir,
                               const WalReport& report) {
  if (report.problems.empty()) return absl::OkStatus();
  const size_t others = report.problems.size() - 1;
  return absl::DataLossError(base::StrCat(
      "RocksDB store ", dir,
      " has a damaged write-ahead log: ", report.problems.front().message(),
      others == 0
          ? std::string()
          : base::StrCat(" (and ", others,
                         others == 1 ? " more problem)" : " more problems)"),
      ". Nothing was changed; `journal_tool --db ", dir,
      " check` lists the damage, `journal_tool --db ", dir,
      " salvage` keeps what can be read"));
}

}  // namespace cairn::persistence::rocksdb_internal
