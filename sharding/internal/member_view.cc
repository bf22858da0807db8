#include "sharding/internal/member_view.h"

#include <utility>

namespace cairn::sharding::internal {

std::vector<cluster::Member> MemberView::Apply(
    const cluster::CurrentClusterState& state) {
  std::map<std::string, cluster::Member> live_before;
  for (const auto& [unique, member] : members_) {
    if (IsLive(unique)) live_before.emplace(unique, member);
  }
  members_.clear();
  unreachable_.clear();
  for (const cluster::Member& m : state.members) {
    members_[m.unique_address.ToString()] = m;
  }
  for (const cluster::Member& m : state.unreachable) {
    unreachable_.insert(m.unique_address.ToString());
  }
  std::vector<cluster::Member> gone;
  for (const auto& [unique, member] : live_before) {
    if (!IsLive(unique)) gone.push_back(member);
  }
  return gone;
}

std::vector<cluster::Member> MemberView::Update(const cluster::Member& member) {
  const std::string unique = member.unique_address.ToString();
  const bool was_live = IsLive(unique);
  members_[unique] = member;
  if (was_live && !IsLive(unique)) return {member};
  return {};
}

std::vector<cluster::Member> MemberView::SetReachable(
    const cluster::Member& member, bool reachable) {
  const std::string unique = member.unique_address.ToString();
  const bool was_live = IsLive(unique);
  members_[unique] = member;
  if (reachable) {
    unreachable_.erase(unique);
  } else {
    unreachable_.insert(unique);
  }
  if (was_live && !IsLive(unique)) return {member};
  return {};
}

void MemberView::SetHosting(const std::string& unique, bool hosting) {
  if (hosting) {
    hosting_.insert(unique);
  } else {
    hosting_.erase(unique);
  }
}

std::vector<cluster::Member> MemberView::LiveMembers() const {
  std::vector<cluster::Member> live;
  for (const auto& [unique, member] : members_) {
    if (IsLive(unique)) live.push_back(member);
  }
  return live;
}

std::vector<cluster::Member> MemberView::Remove(const cluster::Member& member) {
  const std::string unique = member.unique_address.ToString();
  const bool was_live = IsLive(unique);
  members_.erase(unique);
  unreachable_.erase(unique);
  hosting_.erase(unique);
  if (was_live) return {member};
  return {};
}

std::vector<std::string> MemberView::Candidates(
    const std::optional<cluster::UniqueAddress>& exclude) const {
  std::vector<std::string> candidates;
  for (const auto& [unique, member] : members_) {
    if (member.status != cluster::MemberStatus::kUp) continue;
    if (unreachable_.contains(unique) || !hosting_.contains(unique)) continue;
    if (!role_.empty() && !member.HasRole(role_)) continue;
    if (exclude.has_value() && member.unique_address == *exclude) continue;
    candidates.push_back(member.address().ToString());
  }
  return candidates;
}

std::optional<cluster::Member> MemberView::Live(
    const std::string& unique) const {
  if (!IsLive(unique)) return std::nullopt;
  return members_.at(unique);
}

std::optional<cluster::Member> MemberView::UpAt(
    const std::string& address) const {
  for (const auto& [unique, member] : members_) {
    if (member.address().ToString() == address &&
        member.status == cluster::MemberStatus::kUp) {
      return member;
    }
  }
  return std::nullopt;
}

bool MemberView::LiveAt(const std::string& address) const {
  for (const auto& [unique, member] : members_) {
    if (member.address().ToString() == address && IsLive(unique)) return true;
  }
  return false;
}

bool MemberView::IsLive(const std::string& unique) const {
  auto it = members_.find(unique);
  return it != members_.end() &&
         it->second.status != cluster::MemberStatus::kRemoved &&
         !unreachable_.contains(unique);
}

}  // namespace cairn::sharding::internal
