#include "actor/logging.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "actor/event_stream.h"

namespace cairn::actor {

absl::StatusOr<LogLevel> ParseLogLevel(std::string_view text) {
  std::string upper = absl::AsciiStrToUpper(std::string(text));
  if (upper == "DEBUG") return LogLevel::kDebug;
  if (upper == "INFO") return LogLevel::kInfo;
  if (upper == "WARNING" || upper == "WARN") return LogLevel::kWarning;
  if (upper == "ERROR") return LogLevel::kError;
  if (upper == "OFF") return LogLevel::kOff;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log level '", std::string(text),
                   "' (expected DEBUG, INFO, WARNING, ERROR or OFF)"));
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    case LogLevel::kError:
      return "ERROR";
    case LogLevel::kOff:
      return "OFF";
  }
  return "?";
}

void LoggingAdapter::Log(LogLevel level, std::string_view message) const {
  if (!IsEnabled(level) || level == LogLevel::kOff) return;
  stream_->Publish(LogEvent{level, source_, std::string(message)});
}

}  // namespace cairn::actor
