#ifndef CAIRN_ACTOR_INTERNAL_DISPATCHER_H_
#define CAIRN_ACTOR_INTERNAL_DISPATCHER_H_

#include <string>
#include <string_view>

namespace cairn::actor {
class ActorSystem;
}  // namespace cairn::actor

namespace cairn::actor::internal {

class ActorCell;

// Runs mailboxes on threads. A cell is handed over (with one reference the
// dispatcher owns) each time it has work and is not already scheduled; the
// dispatcher calls RunCell on it exactly once per hand-over.
//
// Thread safety: Execute from any thread; Attach/Detach from the cell's own
// processing; Shutdown once, from a thread that is not one of its workers.
class Dispatcher {
 public:
  Dispatcher(ActorSystem* system, std::string id, int throughput)
      : system_(system),
        id_(std::move(id)),
        throughput_(throughput < 1 ? 1 : throughput) {}
  virtual ~Dispatcher() = default;

  // The system whose actors run here (cells find their system through
  // their dispatcher rather than keep a pointer of their own).
  ActorSystem* system() const { return system_; }
  const std::string& id() const { return id_; }
  // User messages a cell processes per run before letting others go.
  int throughput() const { return throughput_; }

  virtual void Attach(ActorCell*) {}
  virtual void Detach(ActorCell*) {}
  // Takes the reference the caller added to `cell`.
  virtual void Execute(ActorCell* cell) = 0;
  // Stops and joins the threads; cells still queued are released unrun.
  virtual void Shutdown() = 0;

 private:
  ActorSystem* const system_;
  std::string id_;
  int throughput_;
};

// The name a dispatcher's thread shows in top, perf and debuggers: the
// id's last part without "-dispatcher", then `suffix`, within Linux's 15
// characters ("default-0" for akka.actor.default-dispatcher's first).
inline std::string ThreadNameOf(std::string_view id, std::string_view suffix) {
  std::string_view name = id.substr(id.rfind('.') + 1);  // npos + 1 == 0
  constexpr std::string_view kDispatcher = "-dispatcher";
  if (name.size() > kDispatcher.size() && name.ends_with(kDispatcher)) {
    name.remove_suffix(kDispatcher.size());
  }
  const std::size_t room = suffix.size() < 15 ? 15 - suffix.size() : 0;
  std::string thread(name.substr(0, room));
  thread += suffix;
  return thread.substr(0, 15);
}

// Runs one turn of `cell`'s mailbox and drops the dispatcher's reference.
void RunCell(ActorCell* cell);
// Drops the dispatcher's reference without running (at shutdown).
void ReleaseCell(ActorCell* cell);

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_DISPATCHER_H_
