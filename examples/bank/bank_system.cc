#include "examples/bank/bank_system.h"

#include <functional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "examples/bank/account_region.h"
#include "examples/bank/serialization.h"
#include "hocon/config.h"
#include "persistence/persistence.h"
#include "persistence/persistence_query.h"
#include "persistence/postgresql/postgresql_plugin.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/snapshot_store.h"

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
      "\"\n");
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

}  // namespace

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
    if (options.read_only) rocksdb.mode = persistence::RocksDbMode::kReadOnly;
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(rocksdb);
    if (!store.ok()) return store.status();
    register_store = [store = *std::move(store)](PluginRegistry& p) {
      return RegisterStore(p, store);
    };
  }

  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString(ConfigText(options));
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("bank", *config);
  if (!system.ok()) return system.status();
  std::unique_ptr<BankSystem> bank(new BankSystem(*std::move(system)));

  absl::StatusOr<std::shared_ptr<const persistence::SerializationRegistry>>
      serialization = NewBankSerialization();
  if (!serialization.ok()) return serialization.status();
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
  bank->accounts_ =
      StartAccountRegion(bank->system(), *std::move(settings), bank->progress_);
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
