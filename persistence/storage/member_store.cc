#include "persistence/storage/member_store.h"

namespace cairn::persistence {

const char* MemberStatusName(MemberStatus status) {
  switch (status) {
    case MemberStatus::kUp:
      return "up";
    case MemberStatus::kLeaving:
      return "leaving";
    case MemberStatus::kExiting:
      return "exiting";
  }
  return "unknown";
}

}  // namespace cairn::persistence
