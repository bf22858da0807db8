#ifndef CAIRN_ACTOR_ACTOR_PATH_H_
#define CAIRN_ACTOR_ACTOR_PATH_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "actor/address.h"

namespace cairn::actor {

// The address of an actor: `akka://system/user/parent/child`, or
// `akka://system@host:port/user/...` in a system other processes reach
// (remote/), plus the uid of one incarnation of it (a new actor under a
// reused name gets a new uid; a restarted actor keeps its uid). A value
// type.
class ActorPath {
 public:
  // uid 0 means "any incarnation" (a path not bound to one actor).
  ActorPath(Address address, std::vector<std::string> elements,
            int64_t uid = 0);
  // In the process-local system `system`.
  ActorPath(std::string system, std::vector<std::string> elements,
            int64_t uid = 0)
      : ActorPath(Address(std::move(system)), std::move(elements), uid) {}

  // Parses `akka://system/a/b` or `akka://system@host:port/a/b` (an
  // optional `#uid` suffix is read too). Fails with InvalidArgument naming
  // the bad part.
  static absl::StatusOr<ActorPath> Parse(std::string_view text);

  // Whether `name` may name an actor: non-empty, not starting with `$`
  // (reserved for generated names), and made of URI path characters
  // (letters, digits and -_.*$+:@&=,!~';). Explains what is wrong otherwise.
  static absl::Status ValidateName(std::string_view name);

  const std::string& system() const { return address_.system(); }
  const std::vector<std::string>& elements() const { return elements_; }
  const std::string& name() const;  // last element, or "" for the root
  int64_t uid() const { return uid_; }
  const Address& address() const { return address_; }

  ActorPath Child(std::string name, int64_t uid = 0) const;
  ActorPath WithUid(int64_t uid) const;

  // `akka://system/user/a` (no uid) and `akka://system/user/a#42`.
  std::string ToString() const;
  std::string ToStringWithUid() const;

  // Paths compare by address and elements; the uid is ignored, as in Akka.
  friend bool operator==(const ActorPath& a, const ActorPath& b) {
    return a.address_ == b.address_ && a.elements_ == b.elements_;
  }
  friend bool operator!=(const ActorPath& a, const ActorPath& b) {
    return !(a == b);
  }
  friend std::ostream& operator<<(std::ostream& os, const ActorPath& p) {
    return os << p.ToString();
  }

 private:
  Address address_;
  std::vector<std::string> elements_;
  int64_t uid_;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ACTOR_PATH_H_
