// `bank report`: a read model of the movements, kept by an exactly-once
// projection (docs/QUERIES.md) in DIR/report, or in the journal's schema on
// PostgreSQL, and brought up to date from the events tagged "movements" at
// each run.
#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "actor/actor.h"
#include "actor/props.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/commands.h"
#include "examples/bank/events.h"
#include "examples/bank/reading.h"
#include "persistence/postgresql/postgres_projection_store.h"
#include "persistence/projection/projection.h"
#include "persistence/rocksdb/rocksdb_projection_store.h"

namespace cairn::examples::bank {
namespace {

using persistence::EventEnvelope;
using persistence::ProjectionTransaction;

constexpr char kAccountPrefix[] = "account-";
constexpr char kTotalPrefix[] = "total/";
constexpr char kLargestKey[] = "largest";
constexpr std::size_t kLargest = 10;

// The read model's key of an account's totals; zero-padded, so that the
// keys sort by account number.
std::string TotalKey(int64_t account) {
  return absl::StrFormat("%s%020d", kTotalPrefix, account);
}

struct Totals {
  int64_t deposited = 0;
  int64_t withdrawn = 0;
  int64_t movements = 0;
};

absl::StatusOr<Totals> ParseTotals(const std::string& key,
                                   const std::string& text) {
  Totals t;
  std::vector<std::string> parts = absl::StrSplit(text, ' ');
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &t.deposited) ||
      !absl::SimpleAtoi(parts[1], &t.withdrawn) ||
      !absl::SimpleAtoi(parts[2], &t.movements)) {
    return absl::DataLossError(
        absl::StrCat("the report's entry ", key, " is damaged: '", text, "'"));
  }
  return t;
}

// One of the largest movements: "AMOUNT OFFSET KIND ACCOUNT" in the model.
struct Movement {
  int64_t amount = 0;
  int64_t offset = 0;  // the earlier of two equal amounts ranks first
  std::string kind;
  int64_t account = 0;
};

absl::StatusOr<std::vector<Movement>> ParseLargest(const std::string& text) {
  std::vector<Movement> out;
  for (const std::string& line : std::vector<std::string>(
           absl::StrSplit(text, '\n', absl::SkipEmpty()))) {
    std::vector<std::string> parts = absl::StrSplit(line, ' ');
    Movement m;
    if (parts.size() != 4 || !absl::SimpleAtoi(parts[0], &m.amount) ||
        !absl::SimpleAtoi(parts[1], &m.offset) ||
        !absl::SimpleAtoi(parts[3], &m.account)) {
      return absl::DataLossError(absl::StrCat(
          "the report's list of largest movements is damaged: '", line, "'"));
    }
    m.kind = parts[2];
    out.push_back(std::move(m));
  }
  return out;
}

// Keeps, per account, what was deposited and withdrawn and how many
// movements, and the ten largest movements; counts what it handled.
class ReportHandler : public persistence::ExactlyOnceHandler {
 public:
  explicit ReportHandler(std::shared_ptr<std::atomic<int64_t>> handled)
      : handled_(std::move(handled)) {}

  absl::Status Process(const EventEnvelope& e,
                       ProjectionTransaction& tx) override {
    int64_t account = 0;
    if (!absl::StartsWith(e.persistence_id, kAccountPrefix) ||
        !absl::SimpleAtoi(e.persistence_id.substr(sizeof(kAccountPrefix) - 1),
                          &account)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a movement of '", e.persistence_id, "', which is not an account"));
    }
    Movement m{0, e.offset, "", account};
    if (const Deposited* d = e.event.As<Deposited>()) {
      m.amount = d->amount;
      m.kind = "deposit";
    } else if (const Withdrawn* w = e.event.As<Withdrawn>()) {
      m.amount = w->amount;
      m.kind = "withdrawal";
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "event ", e.sequence_nr, " of ", e.persistence_id,
          " is tagged as a movement but is neither a deposit nor a "
          "withdrawal"));
    }
    if (absl::Status s = AddToTotals(m, tx); !s.ok()) return s;
    if (absl::Status s = AddToLargest(m, tx); !s.ok()) return s;
    handled_->fetch_add(1, std::memory_order_relaxed);
    return absl::OkStatus();
  }

 private:
  static absl::Status AddToTotals(const Movement& m,
                                  ProjectionTransaction& tx) {
    const std::string key = TotalKey(m.account);
    absl::StatusOr<std::optional<std::string>> stored = tx.Get(key);
    if (!stored.ok()) return stored.status();
    Totals t;
    if (stored->has_value()) {
      absl::StatusOr<Totals> parsed = ParseTotals(key, **stored);
      if (!parsed.ok()) return parsed.status();
      t = *parsed;
    }
    (m.kind == "deposit" ? t.deposited : t.withdrawn) += m.amount;
    ++t.movements;
    tx.Put(key, absl::StrCat(t.deposited, " ", t.withdrawn, " ", t.movements));
    return absl::OkStatus();
  }

  static absl::Status AddToLargest(const Movement& m,
                                   ProjectionTransaction& tx) {
    absl::StatusOr<std::optional<std::string>> stored = tx.Get(kLargestKey);
    if (!stored.ok()) return stored.status();
    std::vector<Movement> largest;
    if (stored->has_value()) {
      absl::StatusOr<std::vector<Movement>> parsed = ParseLargest(**stored);
      if (!parsed.ok()) return parsed.status();
      largest = *std::move(parsed);
    }
    if (largest.size() == kLargest && largest.back().amount >= m.amount) {
      return absl::OkStatus();  // unchanged: nothing to write
    }
    largest.push_back(m);
    std::stable_sort(largest.begin(), largest.end(),
                     [](const Movement& a, const Movement& b) {
                       return a.amount > b.amount;
                     });
    if (largest.size() > kLargest) largest.resize(kLargest);
    std::string text;
    for (const Movement& l : largest) {
      absl::StrAppend(&text, l.amount, " ", l.offset, " ", l.kind, " ",
                      l.account, "\n");
    }
    tx.Put(kLargestKey, text);
    return absl::OkStatus();
  }

  std::shared_ptr<std::atomic<int64_t>> handled_;
};

// Ends the wait of RunReport when the projection completes or fails.
class Waiter : public actor::Actor {
 public:
  explicit Waiter(std::promise<absl::Status>* done) {
    Receive<persistence::ProjectionCompleted>(
        [done](const persistence::ProjectionCompleted&) {
          done->set_value(absl::OkStatus());
        });
    Receive<persistence::ProjectionFailed>(
        [done](const persistence::ProjectionFailed& f) {
          done->set_value(absl::InternalError(f.cause));
        });
    Receive<persistence::ProjectionProgress>(
        [](const persistence::ProjectionProgress&) {});
  }
};

// The read model and the projection's offset: in DIR/report, a RocksDB
// database of its own beside the read-only store, or in the journal's
// schema on PostgreSQL, where the offsets are positions of that journal.
absl::StatusOr<std::shared_ptr<persistence::ProjectionStore>> OpenReport(
    const StoreOptions& options) {
  if (options.postgres_url.empty()) {
    return persistence::RocksDbProjectionStore::Open(options.dir + "/report");
  }
  return persistence::PostgresProjectionStore::Open(PostgresOptionsOf(options));
}

// Runs the projection over the movements stored until now, read through
// the read journal of the system's journal (RocksDB's or PostgreSQL's).
absl::StatusOr<int64_t> BringUpToDate(
    const StoreOptions& options,
    const std::shared_ptr<persistence::ProjectionStore>& report) {
  absl::StatusOr<std::unique_ptr<BankSystem>> bank = BankSystem::Start(options);
  if (!bank.ok()) return bank.status();
  actor::ActorSystem& system = (*bank)->system();
  auto handled = std::make_shared<std::atomic<int64_t>>(0);
  persistence::ProjectionSettings settings;
  settings.max_restarts = 0;  // a failure ends the command, with its reason
  settings.batch_size = 1000;
  std::promise<absl::Status> done;
  actor::ActorRef waiter =
      system.ActorOf(actor::Props::Create<Waiter>(&done), "report-waiter");
  system.ActorOf(
      persistence::Projection::ExactlyOnce(
          {"bank-report", kMovementsTag},
          persistence::EventSourcedProvider::CurrentEventsByTag("",
                                                                kMovementsTag),
          report,
          [handled] { return std::make_unique<ReportHandler>(handled); })
          .WithSettings(settings)
          .WithStatusObserver(waiter)
          .Props(),
      "report");
  absl::Status outcome = done.get_future().get();
  if (!outcome.ok()) return outcome;
  return handled->load();
}

absl::Status PrintReport(const persistence::ProjectionStore& report) {
  std::string out;
  absl::Status totals_read = report.ForEach(
      kTotalPrefix, [&](std::string_view key_view, std::string_view value) {
        const std::string key(key_view);
        absl::StatusOr<Totals> t = ParseTotals(key, std::string(value));
        int64_t account = 0;
        if (!t.ok() ||
            !absl::SimpleAtoi(key.substr(sizeof(kTotalPrefix) - 1), &account)) {
          totals_read = absl::DataLossError(
              absl::StrCat("the report's entry ", key, " is damaged"));
          return false;
        }
        absl::StrAppend(&out, "total ", account, " ", t->deposited, " ",
                        t->withdrawn, " ", t->movements, "\n");
        return true;
      });
  if (!totals_read.ok()) return totals_read;
  absl::StatusOr<std::optional<std::string>> largest = report.Get(kLargestKey);
  if (!largest.ok()) return largest.status();
  if (largest->has_value()) {
    absl::StatusOr<std::vector<Movement>> list = ParseLargest(**largest);
    if (!list.ok()) return list.status();
    int rank = 0;
    for (const Movement& m : *list) {
      absl::StrAppend(&out, "largest ", ++rank, " ", m.kind, " ", m.amount, " ",
                      m.account, "\n");
    }
  }
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return absl::OkStatus();
}

}  // namespace

absl::Status RunReport(const StoreLocation& store) {
  absl::StatusOr<std::unique_ptr<StoreToRead>> to_read =
      OpenStoreToRead(store, "bank report");
  if (!to_read.ok()) return to_read.status();
  const StoreOptions& options = (*to_read)->options();
  absl::StatusOr<std::shared_ptr<persistence::ProjectionStore>> report =
      OpenReport(options);
  if (!report.ok()) return report.status();
  absl::StatusOr<int64_t> handled = BringUpToDate(options, *report);
  if (!handled.ok()) return handled.status();
  std::fprintf(stderr,
               "bank report: %" PRId64 " new movements since the last report\n",
               *handled);
  return PrintReport(**report);
}

}  // namespace cairn::examples::bank
