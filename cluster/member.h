#ifndef CAIRN_CLUSTER_MEMBER_H_
#define CAIRN_CLUSTER_MEMBER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actor/address.h"

namespace cairn::cluster {

// A system of the cluster by address and incarnation (Akka's
// UniqueAddress): a process started again at the same address is another
// member.
struct UniqueAddress {
  actor::Address address = actor::Address("");  // "" until set
  uint64_t uid = 0;

  bool operator==(const UniqueAddress&) const = default;
  std::string ToString() const;  // akka://name@host:port#uid
};

// Akka's member statuses, for the states this cluster has: a member is up
// once its row is written (no leader moves it from Joining), leaving and
// exiting while it leaves gracefully, removed when its row is gone.
enum class MemberStatus { kUp, kLeaving, kExiting, kRemoved };

// "Up", "Leaving", "Exiting", "Removed" (Akka's names).
std::string_view MemberStatusName(MemberStatus status);

// A member as the cluster sees it. A value: events and states carry
// copies.
struct Member {
  UniqueAddress unique_address;
  MemberStatus status = MemberStatus::kUp;
  std::vector<std::string> roles;

  const actor::Address& address() const { return unique_address.address; }
  bool HasRole(std::string_view role) const;

  bool operator==(const Member&) const = default;
};

}  // namespace cairn::cluster

#endif  // CAIRN_CLUSTER_MEMBER_H_
