#include "examples/bank/bank_system.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_system_setup.h"
#include "cluster/cluster_setup.h"
#include "examples/bank/account_region.h"
#include "examples/bank/protocol.h"
#include "examples/bank/serialization.h"
#include "examples/bank/undelivered.h"
#include "hocon/config.h"
#include "persistence/persistence.h"
#include "persistence/persistence_query.h"
#include "persistence/postgresql/postgres_leases.h"
#include "persistence/postgresql/postgres_members.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/postgresql/postgres_plugin.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/snapshot_store.h"
#include "remote/remote_setup.h"
#include "sharding/entity_region.h"

namespace cairn::examples::bank {
namespace {

using persistence::kPostgresJournalPluginId;
using persistence::kPostgresSnapshotStorePluginId;
using persistence::PluginContext;
using persistence::PluginRegistry;
using persistence::RocksDbStore;

constexpr char kJournalPluginId[] = "bank.journal";
constexpr char kSnapshotStorePluginId[] = "bank.snapshot-store";

// `text` as a quoted HOCON (JSON) string, whatever it holds.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(
          &out, "\\u00",
          absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Library warnings still show; routine INFO lines would drown the demo's
// story. Ctrl-C ends a command at once, as for any command-line tool: the
// store is safe from crashes anyway (that is what it is for). The bank's
// own plugins (RocksDB) are registered in Start; PostgreSQL's are the
// built-in ones, configured here.
std::string ConfigText(const StoreOptions& options) {
  const bool postgres = !options.postgres_url.empty();
  std::string text = absl::StrCat(
      "akka.loglevel = WARNING\n",
      "akka.coordinated-shutdown.run-by-process-exit-hook = off\n",
      "akka.persistence.journal.plugin = \"",
      postgres ? kPostgresJournalPluginId : kJournalPluginId, "\"\n",
      "akka.persistence.snapshot-store.plugin = \"",
      postgres ? kPostgresSnapshotStorePluginId : kSnapshotStorePluginId,
      "\"\n", "akka.cluster.sharding.passivation.active-entity-limit = ",
      options.active_accounts == 0 ? std::string("off")
                                   : absl::StrCat(options.active_accounts),
      "\n");
  if (options.redeliver_interval > absl::ZeroDuration()) {
    absl::StrAppend(
        &text,
        "akka.persistence.at-least-once-delivery.redeliver-interval "
        "= ",
        absl::ToInt64Milliseconds(options.redeliver_interval), "ms\n");
  }
  if (options.cluster.has_value()) {
    const ClusterOptions& cluster = *options.cluster;
    const int64_t ttl_ms = absl::ToInt64Milliseconds(cluster.member_ttl);
    absl::StrAppend(
        &text, "akka.actor.provider = cluster\n",
        "akka.remote.artery.canonical.hostname = ", Quoted(cluster.host), "\n",
        "akka.remote.artery.canonical.port = ", cluster.port, "\n",
        "akka.cluster.membership.member-ttl = ", ttl_ms, "ms\n",
        // Renewals and reads often enough for any ttl, as for the defaults
        // (10 s, 3 s, 2 s).
        "akka.cluster.membership.renew-interval = ", ttl_ms * 3 / 10, "ms\n",
        "akka.cluster.membership.refresh-interval = ", ttl_ms / 5, "ms\n");
  }
  if (postgres) {
    absl::StrAppend(&text, kPostgresJournalPluginId,
                    ".connection-string = ", Quoted(options.postgres_url), "\n",
                    kPostgresJournalPluginId,
                    ".schema = ", Quoted(options.schema), "\n");
  }
  return text;
}

// The journal and snapshot store on `store`, as the plugins every
// persistent actor of the system uses.
absl::Status RegisterStore(PluginRegistry& plugins, const RocksDbStore& store) {
  absl::Status s = plugins.RegisterJournal(
      kJournalPluginId, [store](const PluginContext& context) {
        return store.NewJournal(context.serialization);
      });
  if (!s.ok()) return s;
  return plugins.RegisterSnapshotStore(
      kSnapshotStorePluginId,
      [store](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<persistence::SnapshotStore>> {
        return store.NewSnapshotStore(context.serialization);
      });
}

// What a cluster needs of the other options.
absl::Status CheckCluster(const StoreOptions& options) {
  if (options.postgres_url.empty()) {
    return absl::InvalidArgumentError(
        "a cluster keeps its members in the PostgreSQL database: it needs a "
        "PostgreSQL journal");
  }
  if (!options.cluster->proxy && options.lease_ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "a cluster member hosts its shards on leases: it needs a lease_ttl");
  }
  if (!options.lease_owner.empty()) {
    return absl::InvalidArgumentError(
        "in a cluster the member holds the leases: no lease_owner");
  }
  if (options.cluster->member_ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("member_ttl must be positive");
  }
  return absl::OkStatus();
}

}  // namespace

std::string BankSystem::address() const {
  return system_->address().ToString();
}

persistence::PostgresOptions PostgresOptionsOf(const StoreOptions& options) {
  persistence::PostgresOptions postgres;
  postgres.connection_string = options.postgres_url;
  postgres.schema = options.schema;
  return postgres;
}

absl::StatusOr<std::unique_ptr<BankSystem>> BankSystem::Start(
    const StoreOptions& options, Patience patience) {
  // The store is opened here, before any actor starts, and given to
  // persistence as the bank's own plugins (rather than named in the
  // built-in plugin's akka.persistence.journal.rocksdb.dir): a store that
  // cannot be opened (locked, damaged, not a store) is then reported at
  // once with RocksDB's reason, instead of as the failed recovery of the
  // first actor that needs it.
  std::function<absl::Status(PluginRegistry&)> register_store;
  if (options.postgres_url.empty()) {
    persistence::RocksDbOptions rocksdb;
    rocksdb.path = options.dir;
    rocksdb.fsync = options.fsync;
    rocksdb.create_if_missing = options.create_if_missing;
    if (options.read_only) {
      rocksdb.mode = options.secondary_dir.empty()
                         ? persistence::RocksDbMode::kReadOnly
                         : persistence::RocksDbMode::kSecondary;
      rocksdb.secondary_path = options.secondary_dir;
    }
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(rocksdb);
    if (!store.ok()) return store.status();
    register_store = [store = *std::move(store)](PluginRegistry& p) {
      return RegisterStore(p, store);
    };
  }

  absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
      serialization = NewBankSerialization();
  if (!serialization.ok()) return serialization.status();
  actor::ActorSystemOptions system_options;
  if (options.cluster.has_value()) {
    if (absl::Status s = CheckCluster(options); !s.ok()) return s;
    absl::StatusOr<std::unique_ptr<persistence::PostgresMembers>> members =
        persistence::PostgresMembers::Open(PostgresOptionsOf(options));
    if (!members.ok()) return members.status();
    // The commands and replies cross processes in the registry's forms.
    system_options.setup =
        actor::ActorSystemSetup()
            .With(cluster::ClusterSetup{
                std::shared_ptr<persistence::MemberStore>(*std::move(members))})
            .With(remote::RemoteSetup{*serialization});
  }
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString(ConfigText(options));
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("bank", *config, std::move(system_options));
  if (!system.ok()) return system.status();
  std::unique_ptr<BankSystem> bank(new BankSystem(*std::move(system)));
  AnswerUndeliveredCommands(bank->system(), bank->progress_);

  persistence::PersistenceSetup setup;
  setup.serialization = *std::move(serialization);
  setup.register_plugins = std::move(register_store);
  if (absl::Status s =
          persistence::Persistence::Get(bank->system()).Setup(std::move(setup));
      !s.ok()) {
    return s;
  }

  absl::StatusOr<sharding::EntityRegionSettings> settings =
      AccountRegionSettings(bank->system().Settings());
  if (!settings.ok()) return settings.status();
  const bool proxy = options.cluster.has_value() && options.cluster->proxy;
  if (options.lease_ttl > absl::ZeroDuration() || proxy) {
    if (options.postgres_url.empty()) {
      return absl::InvalidArgumentError(
          "leases need a PostgreSQL journal: the RocksDB store is one "
          "process's");
    }
    absl::StatusOr<std::unique_ptr<persistence::PostgresLeases>> store =
        persistence::PostgresLeases::Open(PostgresOptionsOf(options));
    if (!store.ok()) return store.status();
    // A proxy reads the holders only, to send each shard's messages
    // straight to it.
    settings->lease_store = *std::move(store);
    if (!proxy) {
      settings->lease_ttl = options.lease_ttl;
      settings->lease_owner = options.lease_owner;
      // A taken-over shard is tried again soon after its old holder's
      // lease runs out, however short the lease.
      settings->lease_retry_interval =
          std::min(settings->lease_retry_interval, options.lease_ttl / 4);
    }
  }
  if (options.cluster.has_value() && options.cluster->proxy) {
    bank->accounts_ = sharding::EntityRegion::StartProxy(
        bank->system(), kAccountsTypeName, *std::move(settings),
        std::make_shared<AccountExtractor>());
  } else {
    bank->accounts_ = StartAccountRegion(bank->system(), *std::move(settings),
                                         bank->progress_);
  }
  absl::StatusOr<persistence::Journal*> journal =
      persistence::Persistence::Get(bank->system()).JournalFor("");
  if (!journal.ok()) return journal.status();
  // Waits for the journal to be made: on PostgreSQL, a server that cannot
  // be reached, or a bad schema name, is reported here, at once.
  absl::StatusOr<persistence::ReadJournal*> queries =
      persistence::PersistenceQuery::Get(bank->system()).ReadJournalFor("");
  if (!queries.ok()) return queries.status();
  bank->client_ = std::make_unique<BankClient>(bank->accounts_, bank->progress_,
                                               *journal, *queries, patience);
  return bank;
}

BankSystem::~BankSystem() {
  client_.reset();
  accounts_ = actor::ActorRef();
  system_->Terminate().wait();
}

}  // namespace cairn::examples::bank
