#ifndef CAIRN_ACTOR_LOGGING_H_
#define CAIRN_ACTOR_LOGGING_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cairn::actor {

class EventStream;

enum class LogLevel {
  kDebug = 0,
  kInfo = 1,
  kWarning = 2,
  kError = 3,
  kOff = 4
};

// "DEBUG", "INFO", "WARNING" (or "WARN"), "ERROR", "OFF", any case.
absl::StatusOr<LogLevel> ParseLogLevel(std::string_view text);
const char* LogLevelName(LogLevel level);

// A log event, published on the event stream; the default logger writes
// those at or above akka.loglevel to stderr. Subscribe to LogEvent to
// receive them all.
struct LogEvent {
  LogLevel level;
  std::string source;  // usually an actor path
  std::string message;
};

// Publishes log events for one source. Cheap to copy.
// Thread safety: from any thread, while its system lives.
class LoggingAdapter {
 public:
  LoggingAdapter(EventStream* stream, std::string source, LogLevel min_level)
      : stream_(stream), source_(std::move(source)), min_level_(min_level) {}

  bool IsEnabled(LogLevel level) const { return level >= min_level_; }
  void Log(LogLevel level, std::string_view message) const;
  void Debug(std::string_view m) const { Log(LogLevel::kDebug, m); }
  void Info(std::string_view m) const { Log(LogLevel::kInfo, m); }
  void Warning(std::string_view m) const { Log(LogLevel::kWarning, m); }
  void Error(std::string_view m) const { Log(LogLevel::kError, m); }

 private:
  EventStream* stream_;
  std::string source_;
  LogLevel min_level_;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_LOGGING_H_
