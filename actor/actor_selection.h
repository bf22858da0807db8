#ifndef CAIRN_ACTOR_ACTOR_SELECTION_H_
#define CAIRN_ACTOR_ACTOR_SELECTION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/any_message.h"
#include "actor/future.h"

namespace cairn::actor {

class ActorSystem;

// The actors at a path, looked up each time a message is sent: elements may
// hold `*` (any run of characters) and `?` (any one character), and `..`
// goes to the parent. A value type; cheap to copy.
//
// Thread safety: every method from any thread.
class ActorSelection {
 public:
  // `path` is absolute (`akka://system/user/a`, `/user/a`) or relative to
  // `anchor` (`child/grandchild`, `../sibling`).
  static ActorSelection Parse(ActorSystem* system, ActorRef anchor,
                              std::string_view path);

  // Sends to every actor the path matches. The path is followed hop by hop
  // through each actor's mailbox, as in Akka, so it sees children that
  // actors created before the message reached them. Where nothing matches,
  // Identify is answered with an empty ActorIdentity and anything else goes
  // to dead letters.
  template <typename T>
  void Tell(T message) const {
    TellAny(AnyMessage::Of(std::move(message)),
            ActorRef(internal::CurrentSelf()));
  }
  template <typename T>
  void Tell(T message, const ActorRef& sender) const {
    TellAny(AnyMessage::Of(std::move(message)), sender);
  }
  void TellAny(const AnyMessage& message, const ActorRef& sender) const;

  // The actors the path matches right now, looked up from the calling
  // thread (a snapshot: actors whose constructors have not run yet may not
  // have created their children).
  std::vector<ActorRef> Resolve() const;
  // The first actor that answers Identify within `timeout`; fails with
  // ActorNotFound (a std::runtime_error) when none does.
  Future<ActorRef> ResolveOne(absl::Duration timeout) const;

  std::string ToString() const;

 private:
  ActorSelection(ActorRef anchor, std::vector<std::string> elements)
      : anchor_(std::move(anchor)), elements_(std::move(elements)) {}

  ActorRef anchor_;
  std::vector<std::string> elements_;
};

// Whether `name` matches `pattern` with `*` and `?` wildcards.
bool WildcardMatch(std::string_view pattern, std::string_view name);

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ACTOR_SELECTION_H_
