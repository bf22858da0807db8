#include "actor/actor_selection.h"

#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/internal/actor_cell.h"
#include "actor/internal/selection_delivery.h"
#include "actor/internal/system_access.h"
#include "actor/messages.h"

namespace cairn::actor {

bool WildcardMatch(std::string_view pattern, std::string_view name) {
  // Greedy matching with backtracking to the last `*`.
  size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

ActorSelection ActorSelection::Parse(ActorSystem* system, ActorRef anchor,
                                     std::string_view path) {
  std::string_view rest = path;
  if (rest.starts_with("akka://")) {
    absl::StatusOr<std::pair<Address, size_t>> address =
        Address::ParsePrefix(rest);
    // A malformed address selects nothing: its messages are dead letters.
    if (!address.ok()) return ActorSelection(system->DeadLetters(), {});
    rest = rest.substr(address->second);
    // Followed from the root the address names: this system's, or another
    // system's through the transport (dead letters without one).
    return ActorSelection(
        system->ResolveActorRef(ActorPath(address->first, {})),
        absl::StrSplit(absl::string_view(rest.data(), rest.size()), '/',
                       absl::SkipEmpty()));
  }
  if (rest.starts_with("/")) {
    anchor = ActorRef(internal::SystemAccess::Root(*system));
  }
  std::vector<std::string> elements = absl::StrSplit(
      absl::string_view(rest.data(), rest.size()), '/', absl::SkipEmpty());
  return ActorSelection(std::move(anchor), std::move(elements));
}

std::vector<ActorRef> ActorSelection::Resolve() const {
  std::vector<ActorRef> current = {anchor_};
  for (const std::string& element : elements_) {
    std::vector<ActorRef> next;
    const bool wildcard = element.find_first_of("*?") != std::string::npos;
    for (const ActorRef& ref : current) {
      internal::ActorCell* cell = ref.impl()->AsCell();
      if (cell == nullptr) continue;
      if (element == "..") {
        if (cell->parent() != nullptr) next.push_back(ActorRef(cell->parent()));
      } else if (element == ".") {
        next.push_back(ref);
      } else if (!wildcard) {
        if (ActorRef child = cell->Child(element); !child.IsNobody()) {
          next.push_back(std::move(child));
        }
      } else {
        for (ActorRef& child : cell->GetChildren()) {
          if (WildcardMatch(element, child.impl()->AsCell()->name())) {
            next.push_back(std::move(child));
          }
        }
      }
    }
    current = std::move(next);
  }
  return current;
}

void ActorSelection::TellAny(const AnyMessage& message,
                             const ActorRef& sender) const {
  anchor_.Tell(
      internal::SelectionDelivery{
          std::make_shared<const std::vector<std::string>>(elements_), 0,
          message},
      sender);
}

Future<ActorRef> ActorSelection::ResolveOne(absl::Duration timeout) const {
  Promise<ActorRef> promise;
  Future<ActorIdentity> identity = Ask<ActorIdentity>(
      anchor_,
      internal::SelectionDelivery{
          std::make_shared<const std::vector<std::string>>(elements_), 0,
          AnyMessage::Of(Identify{})},
      timeout);
  identity.OnComplete(
      [promise, path = ToString()](const Future<ActorIdentity>& f) mutable {
        if (f.error() != nullptr || f.get().subject.IsNobody()) {
          promise.TrySetException(std::make_exception_ptr(std::runtime_error(
              absl::StrCat("ActorNotFound: no actor at ", path))));
        } else {
          promise.TrySetValue(f.get().subject);
        }
      });
  return promise.GetFuture();
}

std::string ActorSelection::ToString() const {
  return absl::StrCat("ActorSelection[", anchor_.Path().ToString(), "/",
                      absl::StrJoin(elements_, "/"), "]");
}

}  // namespace cairn::actor
