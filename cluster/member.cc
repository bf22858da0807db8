#include "cluster/member.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace cairn::cluster {

std::string UniqueAddress::ToString() const {
  return absl::StrCat(address.ToString(), "#", uid);
}

std::string_view MemberStatusName(MemberStatus status) {
  switch (status) {
    case MemberStatus::kUp:
      return "Up";
    case MemberStatus::kLeaving:
      return "Leaving";
    case MemberStatus::kExiting:
      return "Exiting";
    case MemberStatus::kRemoved:
      return "Removed";
  }
  return "Unknown";
}

bool Member::HasRole(std::string_view role) const {
  return std::find(roles.begin(), roles.end(), role) != roles.end();
}

}  // namespace cairn::cluster
