// ActorCell's children and DeathWatch.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/actor_cell.h"
#include "actor/internal/system_access.h"
#include "actor/internal/system_settings.h"
#include "actor/messages.h"

namespace cairn::actor::internal {

std::string ActorCell::NextChildName(Family& f) {
  // Akka's generated names: `$` and the counter in base 64.
  static constexpr char kDigits[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+~";
  uint64_t n = f.next_name.fetch_add(1, std::memory_order_relaxed);
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
  ActorSystem& system = System();
  absl::StatusOr<Dispatcher*> dispatcher =
      SystemAccess::LookupDispatcher(system, props.dispatcher());
  if (!dispatcher.ok()) {
    throw ConfigurationException(std::string(dispatcher.status().message()));
  }
  absl::StatusOr<MailboxSettings> mailbox =
      SystemAccess::MakeMailbox(system, props);
  if (!mailbox.ok()) {
    throw ConfigurationException(std::string(mailbox.status().message()));
  }
  Family& x = EnsureFamily();
  // A generated name is unique without a look at the others: no given
  // name starts with `$` (ValidateName).
  const bool generated = child_name.empty();
  if (generated) child_name = NextChildName(x);
  if (const Props::DeploymentCheck& check = props.deployment_check()) {
    if (absl::Status ok = check(system.Settings(), Path().Child(child_name));
        !ok.ok()) {
      throw ConfigurationException(std::string(ok.message()));
    }
  }
  // Made before the lock is taken, which a parent's children (a guardian's
  // above all) share with the threads they terminate on: the lock covers
  // the checks and the insert only. Nobody sees the cell until the insert.
  // `ref` is taken before: once the child is in the registry, a parent
  // that is stopping may stop it, and drop the registry's reference, at
  // once.
  ActorCell* cell =
      new ActorCell(this, child_name, SystemAccess::NewUid(system), props,
                    *dispatcher, std::move(*mailbox));
  ActorRef ref(cell);
  enum class Refused { kNo, kStopping, kNameTaken } refused = Refused::kNo;
  {
    // Pairs with StopAllChildren: made (or found) the Family, then read the
    // bit, against set the bit, then look for the Family; seq_cst on both
    // sides, so either this sees the bit or the stopping actor sees the
    // child.
    AdaptiveMutexLock lock(&x.mu);
    if (status_.load(std::memory_order_seq_cst) & kChildrenClosed) {
      refused = Refused::kStopping;
    } else if (!generated &&
               x.children.contains(std::string_view(child_name))) {
      refused = Refused::kNameTaken;
    } else {
      cell->AddRef();  // the registry's reference
      x.children.insert(cell);
    }
  }
  if (refused != Refused::kNo) {
    // Never shared: undone here, its last reference `ref`'s.
    cell->dispatcher_->Detach(cell);
    if (refused == Refused::kStopping) {
      throw IllegalActorStateException(
          absl::StrCat("cannot create child '", child_name, "' of ",
                       Path().ToString(), ": it is stopping"));
    }
    throw InvalidActorNameException(absl::StrCat("actor name [", child_name,
                                                 "] is not unique under ",
                                                 Path().ToString()));
  }
  cell->Start();  // `ref` keeps it alive
  if (SystemAccess::Settings(system).debug_router_misconfiguration &&
      !props.is_router()) {
    WarnIfDeployedAsRouter(*cell);
  }
  return ref;
}

void ActorCell::WarnIfDeployedAsRouter(const ActorCell& child) {
  // Deployment paths are relative to /user, as in Akka.
  std::vector<std::string_view> names;
  const ActorCell* c = &child;
  for (; c->parent_ != nullptr && c->parent_->parent_ != nullptr;
       c = c->parent_) {
    names.push_back(c->name());
  }
  if (c->name() != "user") return;
  std::string path;
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    path.append("/").append(*it);
  }
  const std::string key =
      absl::StrCat("akka.actor.deployment.\"", path, "\".router");
  const hocon::Config& config = System().Settings();
  if (!config.HasPath(key)) return;
  absl::StatusOr<std::string> router = config.GetString(key);
  if (router.ok() && *router == "from-code") return;
  Publish(LogLevel::kWarning,
          absl::StrCat("Configuration says that [", path,
                       "] should be a router, but code disagrees. Remove the "
                       "config or add a router to its Props (e.g. "
                       "FromConfig::Props(props))."));
}

void ActorCell::Stop(const ActorRef& ref) {
  if (ref.IsNobody()) return;
  ActorCell* target = ref.impl()->AsCell();
  if (target != nullptr && target->parent_ == this &&
      FindChild(target) != nullptr) {
    family()->stopping_children.insert(target);  // it has a child
  }
  ref.impl()->SendSystem(new SystemMessage(SystemMessageKind::kTerminate));
}

ActorCell::DeathWatchState& ActorCell::Watches() {
  Extras& x = EnsureExtras();
  if (x.watch == nullptr) x.watch = std::make_unique<DeathWatchState>();
  return *x.watch;
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
  Extras* x = extras();
  if (x == nullptr || x->watch == nullptr) return subject;
  if (x->watch->watching.erase(subject) > 0) {
    subject.impl()->SendSystem(
        new SystemMessage(SystemMessageKind::kUnwatch, Self()));
  }
  x->watch->terminated_queued.erase(subject);
  return subject;
}

actor::ActorSelection ActorCell::ActorSelection(std::string_view path) {
  return actor::ActorSelection::Parse(&System(), Self(), path);
}

std::vector<ActorRef> ActorCell::GetChildren() const {
  std::vector<ActorRef> refs;
  Family* x = family();
  if (x == nullptr) return refs;
  AdaptiveMutexLock lock(&x->mu);
  refs.reserve(x->children.size() + x->terminated_children.size());
  for (ActorCell* child : x->children) refs.emplace_back(child);
  for (ActorCell* child : x->terminated_children) refs.emplace_back(child);
  return refs;
}

ActorRef ActorCell::Child(std::string_view name) const {
  Family* x = family();
  if (x == nullptr) return ActorRef();
  AdaptiveMutexLock lock(&x->mu);
  auto it = x->children.find(name);
  if (it != x->children.end()) return ActorRef(*it);
  // A terminated child is found until this cell has handled its end, as
  // before its name was freed (a Watch of it then gets Terminated at once).
  for (ActorCell* child : x->terminated_children) {
    if (child->name() == name) return ActorRef(child);
  }
  return ActorRef();
}

ActorCell* ActorCell::FindChild(const ActorCell* cell) {
  if (cell == nullptr) return nullptr;
  Family* x = family();
  if (x == nullptr) return nullptr;
  AdaptiveMutexLock lock(&x->mu);
  auto it = x->children.find(const_cast<ActorCell*>(cell));
  if (it != x->children.end() && *it == cell) return *it;
  auto dead = x->terminated_children.find(const_cast<ActorCell*>(cell));
  return dead != x->terminated_children.end() ? *dead : nullptr;
}

std::vector<ActorCell*> ActorCell::ChildCells() const {
  std::vector<ActorCell*> cells;
  Family* x = family();
  if (x == nullptr) return cells;
  AdaptiveMutexLock lock(&x->mu);
  cells.assign(x->children.begin(), x->children.end());
  cells.insert(cells.end(), x->terminated_children.begin(),
               x->terminated_children.end());
  return cells;
}

void ActorCell::StopAllChildren() {
  status_.fetch_or(kChildrenClosed, std::memory_order_seq_cst);
  Extras* x = extras_.load(std::memory_order_seq_cst);
  if (x == nullptr || x->family.load(std::memory_order_seq_cst) == nullptr) {
    return;
  }
  for (ActorCell* child : ChildCells()) {
    if (!IsStopping(child)) StopChild(child);
  }
}

void ActorCell::HandleDeathWatchNotification(SystemMessage& m) {
  // Forgotten first: a parent that ends with its last child tells the
  // subjects it still watches, and the dead child is not one.
  Extras* x = extras();
  const bool watched = x != nullptr && x->watch != nullptr &&
                       x->watch->watching.erase(m.ref) > 0;
  ActorCell* dead = m.ref.impl()->AsCell();
  if (dead != nullptr && dead->parent_ == this) HandleChildTerminated(dead);
  if (!watched || x->watch == nullptr) return;
  if (life_ == Life::kTerminating || life_ == Life::kTerminated) return;
  // Terminated is an ordinary message to self, behind what is queued.
  x->watch->terminated_queued.insert(m.ref);
  Deliver(new InlineEnvelope<Terminated>(
      Terminated{m.ref, m.existence_confirmed, m.address_terminated},
      m.ref.impl()));
}

void ActorCell::HandleChildTerminated(ActorCell* child) {
  Family& x = *family();  // it has had a child
  bool none_left;
  bool removed = false;
  {
    AdaptiveMutexLock lock(&x.mu);
    auto it = x.children.find(child);
    if (it != x.children.end() && *it == child) {
      x.children.erase(it);
      removed = true;
    } else {
      removed = x.terminated_children.erase(child) > 0;
    }
    none_left = x.children.empty() && x.terminated_children.empty();
  }
  x.stopping_children.erase(child);
  x.restart_stats.erase(child);
  // After the bookkeeping: this may drop the child's last reference.
  if (removed) child->Release();
  if (life_ == Life::kRecreating && !AnyChildStopping()) {
    FinishRecreate();
  } else if (life_ == Life::kTerminating && none_left) {
    FinishTerminate();
  }
}

void ActorCell::FreeChildName(ActorCell* child) {
  Family& x = *family();  // it has a child
  AdaptiveMutexLock lock(&x.mu);
  auto it = x.children.find(child);
  if (it == x.children.end() || *it != child) return;
  x.children.erase(it);
  x.terminated_children.insert(child);
}

void ActorCell::NotifyWatchersAndParent() {
  ActorRef self = Self();
  if (Extras* x = extras(); x != nullptr && x->watch != nullptr) {
    for (const ActorRef& watcher : x->watch->watchers) {
      // A parent that watches hears once, below: its notice serves as
      // both (HandleDeathWatchNotification). A second could come after
      // the first had closed it, and stay in its queue for good once the
      // dispatcher stopped, holding this cell, which holds the parent.
      if (watcher.impl() == parent_) continue;
      watcher.impl()->SendSystem(
          new SystemMessage(SystemMessageKind::kDeathWatchNotification, self));
    }
    for (const ActorRef& subject : x->watch->watching) {
      subject.impl()->SendSystem(
          new SystemMessage(SystemMessageKind::kUnwatch, self));
    }
    x->watch.reset();
  }
  if (parent_ != nullptr) {
    parent_->SendSystem(
        new SystemMessage(SystemMessageKind::kDeathWatchNotification, self));
  }
}

}  // namespace cairn::actor::internal
