#include "persistence/storage/plugin_support/in_flight_writes.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "base/mutex.h"

namespace cairn::persistence::plugin_support {

InFlightWrites::InFlightWrites(absl::AnyInvocable<void(Read)> start)
    : start_(std::move(start)) {}

InFlightWrites::~InFlightWrites() = default;

InFlightWrites::Ticket InFlightWrites::Begin(
    absl::Span<const std::string> ids) {
  if (ids.empty()) return 0;
  base::MutexLock lock(&mu_);
  const Ticket ticket = ++last_ticket_;
  for (const std::string& id : ids) {
    Stream& stream = streams_[id];
    // Tickets are taken under mu_, so each stream's stay ascending; an id
    // named twice in one write is in flight once.
    if (stream.writing.empty() || stream.writing.back() != ticket) {
      stream.writing.push_back(ticket);
    }
  }
  return ticket;
}

void InFlightWrites::End(absl::Span<const std::string> ids, Ticket ticket) {
  const Ended ended[] = {{ids, ticket}};
  EndAll(ended);
}

void InFlightWrites::EndAll(absl::Span<const Ended> ended) {
  // Collected here and started after unlocking: `start_` may take locks of
  // its own, and a started read may call back in.
  std::vector<Read> released;
  {
    base::MutexLock lock(&mu_);
    for (const Ended& write : ended) {
      EndLocked(write.ids, write.ticket, released);
    }
  }
  for (Read& read : released) start_(std::move(read));
}

void InFlightWrites::EndLocked(absl::Span<const std::string> ids, Ticket ticket,
                               std::vector<Read>& released) {
  for (const std::string& id : ids) {
    auto it = streams_.find(id);
    if (it == streams_.end()) continue;  // named twice, already ended
    Stream& stream = it->second;
    auto own = std::find(stream.writing.begin(), stream.writing.end(), ticket);
    if (own == stream.writing.end()) continue;
    stream.writing.erase(own);
    // A read may go once no write begun before it is left. Reads arrive
    // with non-decreasing tickets, so those that may go are a prefix.
    const Ticket oldest = stream.writing.empty()
                              ? std::numeric_limits<Ticket>::max()
                              : stream.writing.front();
    size_t ready = 0;
    while (ready < stream.waiting.size() &&
           stream.waiting[ready].first < oldest) {
      released.push_back(std::move(stream.waiting[ready].second));
      ++ready;
    }
    stream.waiting.erase(stream.waiting.begin(),
                         stream.waiting.begin() + ready);
    held_ -= ready;
    if (stream.writing.empty() && stream.waiting.empty()) streams_.erase(it);
  }
}

void InFlightWrites::StartRead(const std::string& persistence_id, Read read) {
  {
    base::MutexLock lock(&mu_);
    auto it = streams_.find(persistence_id);
    if (it != streams_.end() && !it->second.writing.empty()) {
      // Every write in flight began before this read: wait for all of them.
      it->second.waiting.emplace_back(last_ticket_, std::move(read));
      ++held_;
      return;
    }
  }
  start_(std::move(read));
}

size_t InFlightWrites::held_reads() const {
  base::MutexLock lock(&mu_);
  return held_;
}

}  // namespace cairn::persistence::plugin_support
