#include "actor/testkit/event_filter.h"

#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "actor/event_stream.h"
#include "actor/testkit/deterministic.h"
#include "base/mutex.h"

namespace cairn::actor::testkit {

EventFilter EventFilter::Log(LogLevel level, std::string contains) {
  EventFilter f;
  f.level_ = level;
  f.what_ = absl::StrCat(LogLevelName(level), " log event");
  if (!contains.empty())
    absl::StrAppend(&f.what_, " containing \"", contains, "\"");
  f.contains_ = std::move(contains);
  return f;
}

EventFilter EventFilter::Error(std::string contains) {
  return Log(LogLevel::kError, std::move(contains));
}
EventFilter EventFilter::Warning(std::string contains) {
  return Log(LogLevel::kWarning, std::move(contains));
}
EventFilter EventFilter::Info(std::string contains) {
  return Log(LogLevel::kInfo, std::move(contains));
}
EventFilter EventFilter::Debug(std::string contains) {
  return Log(LogLevel::kDebug, std::move(contains));
}

EventFilter& EventFilter::From(std::string source) {
  absl::StrAppend(&what_, " from \"", source, "\"");
  source_ = std::move(source);
  return *this;
}

bool EventFilter::MatchesLog(const LogEvent& event) const {
  return event.level == level_ && absl::StrContains(event.message, contains_) &&
         absl::StrContains(event.message, exception_) &&
         absl::StrContains(event.source, source_);
}

void EventFilter::Expect(ActorSystem& system, int n,
                         const std::function<void()>& block,
                         absl::Duration timeout) const {
  // Counted on the publishing threads; shared so that a late event finds
  // the counter alive while the subscription is being removed.
  struct Count {
    base::Mutex mu;
    base::CondVar cv;
    int seen ABSL_GUARDED_BY(mu) = 0;
  };
  auto count = std::make_shared<Count>();
  auto add = [count] {
    {
      base::MutexLock lock(&count->mu);
      ++count->seen;
    }
    count->cv.SignalAll();
  };
  EventStream& stream = system.EventStream();
  int64_t token;
  if (dead_letter_) {
    token = stream.SubscribeFunction<actor::DeadLetter>(
        [match = dead_letter_, add](const actor::DeadLetter& d) {
          if (match(d.message)) add();
        });
  } else {
    token = stream.SubscribeFunction<LogEvent>(
        [filter = *this, add](const LogEvent& e) {
          if (filter.MatchesLog(e)) add();
        });
  }
  int seen = 0;
  actor::internal::CallingThreadRunner* queue =
      internal::DeterministicQueue(system);
  try {
    block();
    if (queue != nullptr) {
      // Deterministic mode: whatever will come has come once all ran.
      internal::DispatchAllOrFail(*queue, kDefaultMaxTurns);
      timeout = absl::ZeroDuration();
    }
    const absl::Time deadline = absl::Now() + timeout;
    base::MutexLock lock(&count->mu);
    while (count->seen < n) {
      if (count->cv.WaitWithDeadline(&count->mu, deadline)) break;
    }
    seen = count->seen;
  } catch (...) {
    stream.UnsubscribeFunction(token);
    throw;
  }
  stream.UnsubscribeFunction(token);
  if (seen != n) {
    std::string when;
    if (seen < n) {
      when = queue != nullptr
                 ? " once nothing was left to run"
                 : absl::StrCat(" within ", absl::FormatDuration(timeout));
    }
    throw TestKitAssertion(absl::StrCat("EventFilter: expected ", n, " ", what_,
                                        when, ", got ", seen));
  }
}

}  // namespace cairn::actor::testkit
