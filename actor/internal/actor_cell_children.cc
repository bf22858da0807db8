// ActorCell's children and DeathWatch.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"
#include "actor/messages.h"

namespace cairn::actor::internal {

std::string ActorCell::NextChildName() {
  // Akka's generated names: `$` and the counter in base 64.
  static constexpr char kDigits[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+~";
  uint64_t n = next_child_name_++;
  std::string name = "$";
  do {
    name.push_back(kDigits[n % 64]);
    n /= 64;
  } while (n != 0);
  return name;
}

ActorRef ActorCell::ActorOf(const Props& props, std::string_view name) {
  std::string child_name(name);
  if (!child_name.empty()) {
    if (absl::Status valid = ActorPath::ValidateName(child_name); !valid.ok()) {
      throw InvalidActorNameException(std::string(valid.message()));
    }
  }
  absl::StatusOr<Dispatcher*> dispatcher =
      system_->LookupDispatcher(props.dispatcher());
  if (!dispatcher.ok()) {
    throw ConfigurationException(std::string(dispatcher.status().message()));
  }
  absl::StatusOr<MailboxSettings> mailbox = system_->MakeMailbox(props);
  if (!mailbox.ok()) {
    throw ConfigurationException(std::string(mailbox.status().message()));
  }
  ActorCell* cell;
  ActorRef ref;
  {
    std::lock_guard<std::mutex> lock(children_mu_);
    if (children_closed_) {
      throw IllegalActorStateException(
          absl::StrCat("cannot create child '", child_name, "' of ",
                       Path().ToString(), ": it is stopping"));
    }
    if (child_name.empty()) {
      do {
        child_name = NextChildName();
      } while (children_.contains(child_name));
    } else if (children_.contains(child_name)) {
      throw InvalidActorNameException(absl::StrCat("actor name [", child_name,
                                                   "] is not unique under ",
                                                   Path().ToString()));
    }
    cell = new ActorCell(system_, this, child_name, system_->NewUid(), props,
                         *dispatcher, std::move(*mailbox));
    ref = ActorRef(cell);
    children_.emplace(child_name, ChildEntry{ref, cell, {}, false});
  }
  cell->Start();
  return ref;
}

void ActorCell::Stop(const ActorRef& ref) {
  if (ref.IsNobody()) return;
  ActorCell* target = ref.impl()->AsCell();
  if (target != nullptr && target->parent_ == this) {
    if (ChildEntry* child = FindChild(target)) child->stopping = true;
  }
  ref.impl()->SendSystem(new SystemMessage(SystemMessageKind::kTerminate));
}

ActorRef ActorCell::Watch(const ActorRef& subject) {
  if (subject.IsNobody() || subject.impl() == this) return subject;
  if (Watches().watching.insert(subject).second) {
    subject.impl()->SendSystem(
        new SystemMessage(SystemMessageKind::kWatch, Self()));
  }
  return subject;
}

ActorRef ActorCell::Unwatch(const ActorRef& subject) {
  if (watch_ == nullptr) return subject;
  if (watch_->watching.erase(subject) > 0) {
    subject.impl()->SendSystem(
        new SystemMessage(SystemMessageKind::kUnwatch, Self()));
  }
  watch_->terminated_queued.erase(subject);
  return subject;
}

actor::ActorSelection ActorCell::ActorSelection(std::string_view path) {
  return actor::ActorSelection::Parse(system_, Self(), path);
}

std::vector<ActorRef> ActorCell::GetChildren() const {
  std::lock_guard<std::mutex> lock(children_mu_);
  std::vector<ActorRef> refs;
  refs.reserve(children_.size());
  for (const auto& [name, entry] : children_) refs.push_back(entry.ref);
  return refs;
}

ActorRef ActorCell::Child(std::string_view name) const {
  std::lock_guard<std::mutex> lock(children_mu_);
  auto it = children_.find(std::string(name));
  return it == children_.end() ? ActorRef() : it->second.ref;
}

ActorCell::ChildEntry* ActorCell::FindChild(const ActorCell* cell) {
  if (cell == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(children_mu_);
  auto it = children_.find(cell->name_);
  return it != children_.end() && it->second.cell == cell ? &it->second
                                                          : nullptr;
}

std::vector<ActorCell::ChildEntry*> ActorCell::ChildEntries() {
  std::lock_guard<std::mutex> lock(children_mu_);
  std::vector<ChildEntry*> entries;
  entries.reserve(children_.size());
  for (auto& [name, entry] : children_) entries.push_back(&entry);
  return entries;
}

bool ActorCell::AnyChildStopping() {
  std::lock_guard<std::mutex> lock(children_mu_);
  for (const auto& [name, entry] : children_) {
    if (entry.stopping) return true;
  }
  return false;
}

void ActorCell::StopAllChildren() {
  {
    std::lock_guard<std::mutex> lock(children_mu_);
    children_closed_ = true;
  }
  for (ChildEntry* c : ChildEntries()) {
    if (!c->stopping) StopChild(*c);
  }
}

void ActorCell::HandleDeathWatchNotification(SystemMessage& m) {
  ActorCell* dead = m.ref.impl()->AsCell();
  if (dead != nullptr && dead->parent_ == this) HandleChildTerminated(dead);
  if (watch_ == nullptr || watch_->watching.erase(m.ref) == 0) return;
  if (life_ == Life::kTerminating || life_ == Life::kTerminated) return;
  // Terminated is an ordinary message to self, behind what is queued.
  watch_->terminated_queued.insert(m.ref);
  Deliver(new InlineEnvelope<Terminated>(
      Terminated{m.ref, m.existence_confirmed, m.address_terminated},
      m.ref.impl()));
}

void ActorCell::HandleChildTerminated(ActorCell* child) {
  bool none_left;
  {
    std::lock_guard<std::mutex> lock(children_mu_);
    auto it = children_.find(child->name_);
    if (it != children_.end() && it->second.cell == child) children_.erase(it);
    none_left = children_.empty();
  }
  if (life_ == Life::kRecreating && !AnyChildStopping()) {
    FinishRecreate();
  } else if (life_ == Life::kTerminating && none_left) {
    FinishTerminate();
  }
}

void ActorCell::NotifyWatchersAndParent() {
  ActorRef self = Self();
  if (watch_ != nullptr) {
    for (const ActorRef& watcher : watch_->watchers) {
      watcher.impl()->SendSystem(
          new SystemMessage(SystemMessageKind::kDeathWatchNotification, self));
    }
    for (const ActorRef& subject : watch_->watching) {
      subject.impl()->SendSystem(
          new SystemMessage(SystemMessageKind::kUnwatch, self));
    }
    watch_.reset();
  }
  if (parent_ != nullptr) {
    parent_->SendSystem(
        new SystemMessage(SystemMessageKind::kDeathWatchNotification, self));
  }
}

}  // namespace cairn::actor::internal
