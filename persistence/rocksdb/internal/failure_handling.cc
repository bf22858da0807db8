#include "persistence/rocksdb/internal/failure_handling.h"

#include <memory>

#include "persistence/rocksdb/internal/rocksdb_logger.h"
#include "rocksdb/listener.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

class NoAutomaticRecovery final : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "cairn.NoAutomaticRecovery"; }
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status,
                            bool* auto_recovery) override {
    *auto_recovery = false;
  }
};

}  // namespace

void SetFailureHandling(const RocksDbOptions& options,
                        rocksdb::DBOptions& db_options) {
  db_options.info_log = NewRocksDbLogger(options.log, options.path);
  db_options.listeners.push_back(std::make_shared<NoAutomaticRecovery>());
  db_options.max_bgerror_resume_count = 0;
}

}  // namespace cairn::persistence::rocksdb_internal
