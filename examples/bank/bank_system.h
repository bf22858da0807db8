#ifndef CAIRN_EXAMPLES_BANK_BANK_SYSTEM_H_
#define CAIRN_EXAMPLES_BANK_BANK_SYSTEM_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "examples/bank/client.h"
#include "examples/bank/recovery_progress.h"
#include "examples/bank/recovery_wait.h"
#include "persistence/postgresql/postgres_options.h"

namespace cairn::examples::bank {

// How many accounts a bank keeps in memory at once by default (about
// 1.8 KB each): they take about 36 MB whatever the number of accounts (see
// README.md, "Memory", for what else grows with it).
inline constexpr size_t kDefaultActiveAccounts = 20000;

// The bank as a member of a cluster (docs/CLUSTER.md): several processes
// serve one bank, and a command given to any of them reaches its account
// wherever it lives (docs/SHARDING.md, "Across processes").
struct ClusterOptions {
  // This member's address (akka.remote.artery.canonical): where the other
  // members reach it. Port 0 picks a free one.
  std::string host = "127.0.0.1";
  int port = 0;
  // akka.cluster.membership.member-ttl: a member silent for this long (dead,
  // paused, cut off) is removed, and one removed while it runs shuts its
  // system down. Renewed every third of it.
  absl::Duration member_ttl = absl::Seconds(10);
  // Hosts no account, only sends (sharding::EntityRegion::StartProxy): a
  // client. Otherwise the accounts' shards are placed on this member too.
  bool proxy = false;
};

struct StoreOptions {
  std::string dir;  // the RocksDB store's directory
  // Sync every group commit to disk before acknowledging it. Off, an
  // acknowledged event survives a crash of the process, not of the machine.
  bool fsync = true;
  // Off for readers: a missing store is an error, not a new empty one.
  bool create_if_missing = true;
  // For readers: the store is opened read-only (RocksDbMode::kReadOnly),
  // as it was at the open; no file of it changes, and every Persist,
  // snapshot save and delete fails (FailedPrecondition naming the store).
  bool read_only = false;
  // A PostgreSQL connection string (libpq's; a postgresql:// URL): the
  // accounts' events and snapshots are then in `schema` of that server
  // (docs/POSTGRESQL.md), made on first use, and the fields above are
  // unused: no RocksDB store is opened. Empty: the RocksDB store in `dir`.
  // Never printed: it may hold a password.
  std::string postgres_url{};  // {}: StoreOptions{dir, fsync} may omit it
  std::string schema = "bank";
  // On PostgreSQL only: the accounts' shards are hosted on leases in the
  // same database and schema (sharding::EntityRegionSettings::lease_store,
  // persistence::PostgresLeases), so that several processes can serve one
  // bank, each account in one process at a time, every write fenced. A
  // process that dies holds its shards for at most this long (then
  // another may take them over); zero: no leases (one process).
  absl::Duration lease_ttl = absl::ZeroDuration();
  // Who holds the leases; empty: an id unique to the process (in a
  // cluster: the member, named by its address; must be empty there).
  std::string lease_owner{};
  // On PostgreSQL only: the system is a cluster member
  // (akka.actor.provider = cluster), its member row in the same database
  // and schema (persistence::PostgresMembers), and the accounts' region
  // routes across the members. Needs a lease_ttl, unless a proxy.
  std::optional<ClusterOptions> cluster{};
  // akka.persistence.at-least-once-delivery.redeliver-interval, for a
  // deposits client (depositor.h); zero: the default (5 s).
  absl::Duration redeliver_interval = absl::ZeroDuration();
  // The accounts' region's active-entity limit
  // (akka.cluster.sharding.passivation.active-entity-limit): beyond it the
  // least recently used account is passivated, and recovers from the store
  // on its next command, so memory stays bounded however many accounts
  // there are. Set here, not left to sharding's default. 0: no limit.
  size_t active_accounts = kDefaultActiveAccounts;
  // For readers of a store another process is writing (read_only set
  // too): the store is opened as a RocksDB secondary instance
  // (RocksDbMode::kSecondary), which keeps its own state in this
  // directory (outside the store, not shared) and reads the store as it
  // was at the open. Empty: a read-only open.
  std::string secondary_dir{};
};

// The options BankSystem::Start gives the PostgreSQL journal for `options`
// (its postgres_url and schema; PostgresOptions' defaults otherwise): for
// the other stores kept beside the accounts on that server (the leases, a
// projection's read model), so that they are in the same schema.
persistence::PostgresOptions PostgresOptionsOf(const StoreOptions& options);

// An actor system (named "bank") whose persistence uses the embedded
// RocksDB journal and snapshot store in options.dir (or PostgreSQL, given
// options.postgres_url), with the accounts'
// region started (account_region.h; its settings from akka.cluster.sharding,
// so idle accounts are passivated after 120 s, and beyond
// options.active_accounts the least recently used), and a client for it whose
// calls wait as long as recoveries progress (client.h): what every bank
// command runs on. An account recovers on its first command; nothing is
// recovered at the start. A command that reaches no account (it was
// queued for one that stopped at once: its shard lost its lease, or the
// system stopped; or its shard dropped it) is answered kFailed: it did not
// take effect.
//
// Destroying it terminates the actor system (the region stops its
// accounts gracefully first) and closes the store, after which a new
// BankSystem may open the same directory (that is the demo's simulated
// crash).
//
// Thread safety: as ActorSystem.
class BankSystem {
 public:
  // The store's error if it cannot be opened (locked, damaged, not a
  // store; on PostgreSQL: the server cannot be reached, as libpq names it,
  // or a bad schema name); InvalidArgument for a lease_ttl or a cluster
  // without a postgres_url, a cluster member without a lease_ttl or with
  // a lease_owner; in a cluster, Unavailable for a port in use.
  // `patience` is the client's.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BankSystem>> Start(
      const StoreOptions& options, Patience patience = Patience());

  ~BankSystem();
  BankSystem(const BankSystem&) = delete;
  BankSystem& operator=(const BankSystem&) = delete;

  actor::ActorSystem& system() { return *system_; }
  // The accounts' region: where the commands of protocol.h go.
  const actor::ActorRef& accounts() const { return accounts_; }
  // Valid while this object exists.
  const BankClient& client() const { return *client_; }
  const RecoveryProgress& progress() const { return *progress_; }
  // In a cluster: this member's address (akka://bank@host:port).
  std::string address() const;

 private:
  explicit BankSystem(std::unique_ptr<actor::ActorSystem> system)
      : system_(std::move(system)),
        progress_(std::make_shared<RecoveryProgress>()) {}

  std::unique_ptr<actor::ActorSystem> system_;
  const std::shared_ptr<RecoveryProgress> progress_;
  actor::ActorRef accounts_;
  std::unique_ptr<BankClient> client_;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_BANK_SYSTEM_H_
