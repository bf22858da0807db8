// ActorCell's children and DeathWatch.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"
#include "actor/messages.h"

namespace cairn::actor::internal {

ActorCell::Children& ActorCell::EnsureChildren() {
  Children* c = children();
  if (c != nullptr) return *c;
  auto* fresh = new Children();
  if (children_.compare_exchange_strong(c, fresh, std::memory_order_acq_rel)) {
    return *fresh;
  }
  delete fresh;  // another thread made it first
  return *c;
}

std::string ActorCell::NextChildName() {
  // Akka's generated names: `$` and the counter in base 64.
  static constexpr char kDigits[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+~";
  uint64_t n = children()->next_name++;
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
    Children& children = EnsureChildren();
    std::lock_guard<std::mutex> lock(children.mu);
    if (children.closed) {
      throw IllegalActorStateException(
          absl::StrCat("cannot create child '", child_name, "' of ",
                       Path().ToString(), ": it is stopping"));
    }
    if (child_name.empty()) {
      do {
        child_name = NextChildName();
      } while (children.entries.contains(child_name));
    } else if (children.entries.contains(child_name)) {
      throw InvalidActorNameException(absl::StrCat("actor name [", child_name,
                                                   "] is not unique under ",
                                                   Path().ToString()));
    }
    cell = new ActorCell(system_, this, child_name, system_->NewUid(), props,
                         *dispatcher, std::move(*mailbox));
    ref = ActorRef(cell);
    children.entries.emplace(child_name, ChildEntry{ref, cell, {}, false});
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
  std::vector<ActorRef> refs;
  Children* children = this->children();
  if (children == nullptr) return refs;
  std::lock_guard<std::mutex> lock(children->mu);
  refs.reserve(children->entries.size());
  for (const auto& [name, entry] : children->entries) {
    refs.push_back(entry.ref);
  }
  return refs;
}

ActorRef ActorCell::Child(std::string_view name) const {
  Children* children = this->children();
  if (children == nullptr) return ActorRef();
  std::lock_guard<std::mutex> lock(children->mu);
  auto it = children->entries.find(std::string(name));
  return it == children->entries.end() ? ActorRef() : it->second.ref;
}

ActorCell::ChildEntry* ActorCell::FindChild(const ActorCell* cell) {
  if (cell == nullptr) return nullptr;
  Children* children = this->children();
  if (children == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(children->mu);
  auto it = children->entries.find(cell->name_);
  return it != children->entries.end() && it->second.cell == cell ? &it->second
                                                                  : nullptr;
}

std::vector<ActorCell::ChildEntry*> ActorCell::ChildEntries() {
  std::vector<ChildEntry*> entries;
  Children* children = this->children();
  if (children == nullptr) return entries;
  std::lock_guard<std::mutex> lock(children->mu);
  entries.reserve(children->entries.size());
  for (auto& [name, entry] : children->entries) entries.push_back(&entry);
  return entries;
}

bool ActorCell::AnyChildStopping() {
  Children* children = this->children();
  if (children == nullptr) return false;
  std::lock_guard<std::mutex> lock(children->mu);
  for (const auto& [name, entry] : children->entries) {
    if (entry.stopping) return true;
  }
  return false;
}

void ActorCell::StopAllChildren() {
  {
    Children& children = EnsureChildren();
    std::lock_guard<std::mutex> lock(children.mu);
    children.closed = true;
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
    Children& children = *this->children();  // it has had a child
    std::lock_guard<std::mutex> lock(children.mu);
    auto it = children.entries.find(child->name_);
    if (it != children.entries.end() && it->second.cell == child) {
      children.entries.erase(it);
    }
    none_left = children.entries.empty();
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
