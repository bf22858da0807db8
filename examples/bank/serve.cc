// `bank serve`: hosts accounts for the commands on stdin, answering each on
// stdout. On PostgreSQL several of these serve one bank, each account in
// one process at a time on a lease (the multi-process test runs three,
// kills one and pauses another).
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "actor/any_message.h"
#include "actor/ask.h"
#include "actor/future.h"
#include "base/mutex.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/commands.h"
#include "examples/bank/data_dir.h"
#include "examples/bank/line_writer.h"
#include "examples/bank/protocol.h"
#include "sharding/entity_region.h"

namespace cairn::examples::bank {
namespace {

using Outcome = AccountReply::Outcome;

// Answer lines go out within this of their command's completion.
constexpr absl::Duration kMaxAnswerDelay = absl::Milliseconds(5);

// Commands sent and not yet answered: the end of stdin waits for them.
class InFlight {
 public:
  void Add() {
    base::MutexLock lock(&mu_);
    ++count_;
  }
  void Done() {
    {
      base::MutexLock lock(&mu_);
      --count_;
    }
    idle_.SignalAll();
  }
  void AwaitNone() {
    base::MutexLock lock(&mu_);
    while (count_ != 0) idle_.Wait(&mu_);
  }

 private:
  base::Mutex mu_;
  base::CondVar idle_;
  int64_t count_ ABSL_GUARDED_BY(mu_) = 0;
};

// The answer line of command `id` for `account`, from the reply.
// A command not answered in `timeout` (ServeOptions::answer_timeout) is
// reported as "unknown": it may still take effect. Far longer than a
// recovery or a write takes; the bound keeps the end of stdin from waiting
// forever for a lost answer (a message to a member that died is lost).
std::string AnswerLine(const std::string& id, int64_t account,
                       const actor::Future<actor::AnyMessage>& reply,
                       absl::Duration timeout) {
  try {
    const actor::AnyMessage message = reply.get();
    if (const AccountReply* r = message.As<AccountReply>()) {
      switch (r->outcome) {
        case Outcome::kDone:
          return absl::StrCat(id, " done ", account, " ", r->balance, " ",
                              r->last_sequence_nr);
        case Outcome::kRefused:
          return absl::StrCat(id, " refused ", account, " ",
                              OneLine(r->reason));
        case Outcome::kFailed:
          return absl::StrCat(id, " failed ", account, " ", OneLine(r->reason));
      }
    }
    if (const auto* u = message.As<sharding::ShardUnavailable>()) {
      return absl::StrCat(id, " unavailable ", account, " shard ", u->shard_id,
                          ": ", OneLine(u->reason));
    }
    return absl::StrCat(id, " failed ", account, " an answer of another kind");
  } catch (const actor::AskTimeoutException&) {
    return absl::StrCat(id, " unknown ", account, " no answer within ",
                        absl::FormatDuration(timeout));
  } catch (const std::exception& e) {
    return absl::StrCat(id, " unknown ", account, " ", OneLine(e.what()));
  }
}

// One command line, "ID VERB ACCOUNT [AMOUNT]", sent to the accounts; its
// answer is added to `out` when it comes. A line it cannot read is
// answered at once ("ID bad REASON").
void Handle(const std::string& line, const actor::ActorRef& accounts,
            absl::Duration timeout,
            const std::shared_ptr<BatchedLineWriter>& out,
            const std::shared_ptr<InFlight>& in_flight) {
  const std::vector<std::string> words =
      absl::StrSplit(line, ' ', absl::SkipWhitespace());
  if (words.empty()) return;
  const std::string& id = words[0];
  auto bad = [&](const std::string& reason) {
    out->Add(absl::StrCat(id, " bad ", reason));
  };
  if (words.size() < 3) {
    bad("expected: ID open|deposit|withdraw|balance ACCOUNT [AMOUNT]");
    return;
  }
  const std::string& verb = words[1];
  const bool with_amount = verb == "deposit" || verb == "withdraw";
  if (!with_amount && verb != "open" && verb != "balance") {
    bad(absl::StrCat("unknown command '", verb,
                     "': open, deposit, withdraw or balance"));
    return;
  }
  if (words.size() != (with_amount ? 4u : 3u)) {
    bad(absl::StrCat(verb,
                     with_amount ? " takes ACCOUNT AMOUNT" : " takes ACCOUNT"));
    return;
  }
  int64_t account = 0;
  int64_t amount = 0;
  if (!absl::SimpleAtoi(words[2], &account)) {
    bad(absl::StrCat("account '", words[2], "' is not a whole number"));
    return;
  }
  if (with_amount && !absl::SimpleAtoi(words[3], &amount)) {
    bad(absl::StrCat("amount '", words[3], "' is not a whole number"));
    return;
  }
  actor::Future<actor::AnyMessage> reply;
  if (verb == "open") {
    reply =
        actor::Ask<actor::AnyMessage>(accounts, OpenAccount{account}, timeout);
  } else if (verb == "deposit") {
    reply = actor::Ask<actor::AnyMessage>(accounts, Deposit{account, amount},
                                          timeout);
  } else if (verb == "withdraw") {
    reply = actor::Ask<actor::AnyMessage>(accounts, Withdraw{account, amount},
                                          timeout);
  } else {
    reply =
        actor::Ask<actor::AnyMessage>(accounts, GetBalance{account}, timeout);
  }
  in_flight->Add();
  reply.OnComplete([id, account, out, in_flight,
                    timeout](const actor::Future<actor::AnyMessage>& r) {
    out->Add(AnswerLine(id, account, r, timeout));
    in_flight->Done();
  });
}

// Written to when the actor system has terminated (a member removed from
// the cluster shuts its system down), so that reading stdin stops.
class Wakeup {
 public:
  Wakeup() {
    if (::pipe(fds_) != 0) fds_[0] = fds_[1] = -1;
  }
  ~Wakeup() {
    for (int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
  }
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;
  void Wake() {
    const char c = 1;
    if (fds_[1] >= 0) (void)!::write(fds_[1], &c, 1);
  }
  int fd() const { return fds_[0]; }

 private:
  int fds_[2] = {-1, -1};
};

// The next line of stdin (without '\n'); nullopt at its end, when it
// cannot be read (then `error` says why), or once `wakeup` is written to
// (then `woken` is set). A read interrupted by a signal is retried.
std::optional<std::string> ReadLine(std::string& buffer, bool& eof,
                                    absl::Status& error, const Wakeup& wakeup,
                                    bool& woken) {
  while (true) {
    if (const size_t nl = buffer.find('\n'); nl != std::string::npos) {
      std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      return line;
    }
    if (eof) {
      if (buffer.empty()) return std::nullopt;
      return std::exchange(buffer, std::string());
    }
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wakeup.fd(), POLLIN, 0}};
    const int ready = ::poll(fds, wakeup.fd() >= 0 ? 2 : 1, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      error = absl::UnavailableError(
          absl::StrCat("cannot wait for stdin: ", std::strerror(errno)));
      return std::nullopt;
    }
    if (wakeup.fd() >= 0 && (fds[1].revents & POLLIN) != 0) {
      woken = true;
      return std::nullopt;
    }
    if (fds[0].revents == 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof(chunk));
    if (n > 0) {
      buffer.append(chunk, static_cast<size_t>(n));
    } else if (n == 0) {
      eof = true;
    } else if (errno != EINTR) {
      error = absl::UnavailableError(
          absl::StrCat("cannot read stdin: ", std::strerror(errno)));
      return std::nullopt;
    }
  }
}

}  // namespace

absl::Status RunServe(const StoreLocation& store, const ServeOptions& options) {
  const DataDir& data = store.data;
  if (!store.on_postgres()) {
    if (absl::Status s = PrepareForWriting(data.path); !s.ok()) return s;
    if (absl::Status s = CheckNotInUse(data.path); !s.ok()) return s;
    if (data.is_default) {
      std::fprintf(stderr, "bank serve: no --data given, using %s\n",
                   data.path.c_str());
    }
  }
  // Made before the actor system, so it outlives every answer.
  auto out =
      std::make_shared<BatchedLineWriter>(STDOUT_FILENO, 1000, kMaxAnswerDelay);
  StoreOptions store_options{data.path,
                             /*fsync=*/true,
                             /*create_if_missing=*/true,
                             /*read_only=*/false,
                             store.postgres_url,
                             store.schema};
  if (store.on_postgres()) {
    store_options.lease_ttl = options.lease_ttl;
    store_options.lease_owner = options.owner;
  }
  if (!options.listen_host.empty()) {
    store_options.cluster = ClusterOptions{
        options.listen_host, options.listen_port, options.member_ttl};
  }
  // Made before the system, so that it outlives the system's callback.
  auto wakeup = std::make_shared<Wakeup>();
  absl::StatusOr<std::unique_ptr<BankSystem>> system =
      BankSystem::Start(store_options);
  if (!system.ok()) return system.status();
  if (store_options.cluster.has_value()) {
    std::fprintf(stderr, "bank serve: a cluster member at %s\n",
                 (*system)->address().c_str());
    (*system)->system().WhenTerminated().OnComplete(
        [wakeup](const actor::Future<void>&) { wakeup->Wake(); });
  }
  const actor::ActorRef accounts = (*system)->accounts();
  auto in_flight = std::make_shared<InFlight>();
  out->Add("ready");
  out->Flush();

  std::string buffer;
  bool eof = false;
  bool removed = false;
  absl::Status error;
  while (std::optional<std::string> line =
             ReadLine(buffer, eof, error, *wakeup, removed)) {
    Handle(*line, accounts, options.answer_timeout, out, in_flight);
  }
  // Once the system has terminated, every Ask still waiting fails at once.
  in_flight->AwaitNone();
  out->Flush();
  if (removed) {
    return absl::UnavailableError(
        "this process was removed from the cluster (it was paused, or cut "
        "off from the database, for longer than the member ttl) and has "
        "stopped: the other members serve its accounts now; commands not "
        "yet read were not done");
  }
  return error;
}

}  // namespace cairn::examples::bank
