#include "persistence/rocksdb/internal/rocksdb_logger.h"

#include <cstdarg>
#include <cstdio>
#include <string_view>
#include <utility>

namespace cairn::persistence::rocksdb_internal {
namespace {

// printf-style formatting of one message, without the trailing newlines
// RocksDB puts on some.
std::string Format(const char* format, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  const int size = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (size <= 0) return std::string();
  std::string text(static_cast<size_t>(size) + 1, '\0');
  std::vsnprintf(text.data(), text.size(), format, ap);
  text.resize(static_cast<size_t>(size));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

class SinkLogger final : public rocksdb::Logger {
 public:
  SinkLogger(RocksDbLogSink sink, std::string path)
      : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL),
        sink_(std::move(sink)),
        path_(std::move(path)) {}

  // RocksDB's unlevelled calls are info messages.
  void Logv(const char*, va_list) override {}
  void LogHeader(const char*, va_list) override {}

  void Logv(const rocksdb::InfoLogLevel level, const char* format,
            va_list ap) override {
    if (level < GetInfoLogLevel() ||
        level >= rocksdb::InfoLogLevel::HEADER_LEVEL) {
      return;
    }
    const RocksDbLogLevel ours = level == rocksdb::InfoLogLevel::WARN_LEVEL
                                     ? RocksDbLogLevel::kWarning
                                     : RocksDbLogLevel::kError;
    const std::string message = Format(format, ap);
    if (sink_) {
      sink_(ours, message);
    } else {
      std::fprintf(stderr, "[rocksdb %s] %s: %s\n",
                   ours == RocksDbLogLevel::kWarning ? "WARN" : "ERROR",
                   path_.c_str(), message.c_str());
    }
  }

 private:
  const RocksDbLogSink sink_;
  const std::string path_;
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewRocksDbLogger(RocksDbLogSink sink,
                                                  std::string path) {
  return std::make_shared<SinkLogger>(std::move(sink), std::move(path));
}

}  // namespace cairn::persistence::rocksdb_internal
