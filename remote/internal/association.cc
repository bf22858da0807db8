#include "remote/internal/association.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "base/string_view.h"
#include "remote/internal/tsan_handoff.h"

namespace cairn::remote::internal {

// One gRPC stream of an association. gRPC calls its reactions; the
// association decides everything under its own lock. The hold taken at
// Begin keeps gRPC from finishing the stream (OnDone) while a write may
// still be started from outside a reaction; it is released once the
// association has detached the stream and no write is in flight.
//
// Owned by itself (self_) from Begin to OnDone; the handshake timer holds
// it weakly.
class OutboundStream final
    : public grpc::ClientBidiReactor<wire::Frame, wire::Frame>,
      public std::enable_shared_from_this<OutboundStream> {
 public:
  explicit OutboundStream(std::shared_ptr<Association> owner)
      : owner_(std::move(owner)) {}

  void Begin(wire::Transport::Stub* stub, wire::Frame first) {
    self_ = shared_from_this();
    out_ = std::move(first);
    HandOff(this);
    stub->async()->Associate(&context_, this);
    StartWrite(&out_);
    StartRead(&in_);
    AddHold();
    StartCall();
  }
  void Write(wire::Frame frame) {
    out_ = std::move(frame);
    HandOff(this);
    StartWrite(&out_);
  }
  void EndWrites() {
    HandOff(this);
    StartWritesDone();
  }
  void Release() {
    HandOff(this);
    RemoveHold();
  }
  void Cancel() {
    HandOff(this);
    context_.TryCancel();
  }

  void OnWriteDone(bool ok) override {
    TakeOver(this);
    owner_->OnWriteDone(this, ok);
  }
  void OnReadDone(bool ok) override {
    TakeOver(this);
    if (!ok) {
      owner_->OnReadFailed(this);
      return;
    }
    owner_->OnAnswer(this, in_);
    in_.Clear();
    HandOff(this);
    StartRead(&in_);
  }
  void OnDone(const grpc::Status& status) override {
    TakeOver(this);
    // Before the owner hears: the system may be destroyed once it has,
    // and the last refs to its actors must not go after that.
    sender_texts_.clear();
    owner_->OnDone(this, status);
    owner_.reset();
    self_.reset();  // may destroy this
  }

  // The text of a local sender's path, made once: a sender sends many
  // messages, and its path (an entity's is deep) cost more to make than
  // the rest of the envelope. Only the writer of a batch calls it (one at
  // a time: `writing`). Other senders (an Ask's, a remote one) go
  // through the codec each time: they are seldom seen twice.
  const std::string& SenderText(const actor::ActorRef& sender,
                                const MessageCodec& codec) {
    if (sender.IsNobody() || sender.impl()->AsCell() == nullptr) {
      other_sender_text_ = codec.RefToText(sender);
      return other_sender_text_;
    }
    if (auto it = sender_texts_.find(sender); it != sender_texts_.end()) {
      return it->second;
    }
    if (sender_texts_.size() >= kMaxSenderTexts) {
      // Full: stopped senders (which send no more) go first, and their
      // cells with them; if the running ones fill it, it starts again.
      absl::erase_if(sender_texts_, [](const auto& entry) {
        return entry.first.impl()->IsTerminated();
      });
      if (sender_texts_.size() >= kMaxSenderTexts / 2) sender_texts_.clear();
    }
    return sender_texts_.emplace(sender, codec.RefToText(sender)).first->second;
  }

  // Guarded by the owner's mu_.
  bool writing = false;   // a batch is being serialized or written
  bool detached = false;  // no longer the association's stream
  bool released = false;  // the hold is released, or about to be
  bool answered = false;  // the peer's handshake arrived
  uint64_t peer_uid = 0;  // the incarnation that answered

 private:
  static constexpr size_t kMaxSenderTexts = 1024;

  grpc::ClientContext context_;
  wire::Frame out_;
  wire::Frame in_;
  std::shared_ptr<Association> owner_;
  std::shared_ptr<OutboundStream> self_;
  absl::flat_hash_map<actor::ActorRef, std::string> sender_texts_;
  std::string other_sender_text_;
};

namespace {

bool IsEmpty(const wire::Frame& frame) {
  return frame.envelopes_size() == 0 && frame.system_messages_size() == 0 &&
         !frame.heartbeat() && !frame.terminating();
}

}  // namespace

Association::Association(std::shared_ptr<TransportCore> core,
                         actor::Address remote)
    : core_(std::move(core)),
      remote_(std::move(remote)),
      stub_(wire::Transport::NewStub(core_->ChannelTo(remote_))) {}

Association::~Association() = default;

bool Association::Use() {
  if (closed_) return false;
  ++users_;
  return true;
}

void Association::Unuse() {
  base::MutexLock lock(&mu_);
  UnuseLocked();
}

void Association::UnuseLocked() {
  if (--users_ == 0) changed_.SignalAll();
}

void Association::Send(Outbound message) {
  Action action;
  const char* dropped = nullptr;
  {
    base::MutexLock lock(&mu_);
    // After the shutdown the system may be gone: dropped without a trace.
    if (closed_) return;
    if (queue_.size() >=
        static_cast<size_t>(core_->settings.outbound_message_queue_size)) {
      dropped = "the queue to it is full (outbound-message-queue-size)";
    } else if (stream_ == nullptr &&
               core_->system->GetClock().Now() < backoff_until_) {
      dropped = "the connection to it failed (outbound-restart-backoff)";
    } else {
      queue_.push_back(std::move(message));
      action = Kick();
      // The busy case: queued for the write in flight, nothing more to
      // do outside the lock (and no second lock to count it done).
      if (action.start == nullptr && action.write == nullptr) return;
    }
    ++users_;  // Use(): not closed, checked above
  }
  if (dropped != nullptr) {
    std::vector<Outbound> one;
    one.push_back(std::move(message));
    DropAll(std::move(one), dropped);
  }
  Perform(std::move(action));
  Unuse();
}

void Association::SendSystem(wire::SystemMessage message) {
  Action action;
  bool overflow = false;
  {
    base::MutexLock lock(&mu_);
    if (!Use()) return;
    message.set_seq(next_seq_++);
    if (system_.empty()) unacked_since_ = core_->system->GetClock().Now();
    system_.push_back(std::move(message));
    overflow = system_.size() >
               static_cast<size_t>(core_->settings.system_message_buffer_size);
    if (!overflow) action = Kick();
  }
  Perform(std::move(action));
  if (overflow) {
    core_->PeerGone(remote_, 0,
                    "more system messages unacknowledged than "
                    "system-message-buffer-size");
  }
  Unuse();
}

void Association::SendWatch(const std::shared_ptr<const std::string>& text,
                            const actor::ActorPath& path,
                            const actor::ActorRef& watcher, bool watch) {
  {
    base::MutexLock lock(&mu_);
    if (!Use()) return;
  }
  // The ref the watcher holds: the one its Terminated will name.
  const actor::ActorRef subject = core_->system->ResolveActorRef(path);
  if (watch) {
    core_->watcher.AddWatch(remote_, subject, watcher);
  } else {
    core_->watcher.RemoveWatch(remote_, subject, watcher);
  }
  wire::SystemMessage m;
  wire::WatchMessage* w = watch ? m.mutable_watch() : m.mutable_unwatch();
  w->set_watchee(*text);
  w->set_watcher(core_->codec.RefToText(watcher));
  SendSystem(std::move(m));
  Unuse();
}

void Association::SendDeathWatchNotification(
    const std::shared_ptr<const std::string>& text,
    const actor::ActorPath& path, const actor::ActorRef& subject,
    bool existence_confirmed) {
  {
    base::MutexLock lock(&mu_);
    if (!Use()) return;
  }
  const actor::ActorRef watcher = core_->system->ResolveActorRef(path);
  wire::SystemMessage m;
  wire::DeathWatchNotificationMessage* n = m.mutable_death_watch_notification();
  // Named as the watch named it, so the watcher recognizes its ref.
  n->set_subject(core_->watcher.TakeRemoteWatcher(remote_, subject, watcher)
                     .value_or(core_->codec.RefToText(subject)));
  n->set_watcher(*text);
  n->set_existence_confirmed(existence_confirmed);
  SendSystem(std::move(m));
  Unuse();
}

void Association::RequestHeartbeat() {
  Action action;
  {
    base::MutexLock lock(&mu_);
    if (!Use()) return;
    heartbeat_pending_ = true;
    action = Kick();
  }
  Perform(std::move(action));
  Unuse();
}

void Association::OnTick() {
  Action action;
  bool give_up = false;
  {
    base::MutexLock lock(&mu_);
    if (system_.empty() || !Use()) return;
    give_up = core_->system->GetClock().Now() - unacked_since_ >
              core_->settings.give_up_system_message_after;
    if (!give_up) {
      system_written_ = 0;  // all unacknowledged ones go again
      action = Kick();
    }
  }
  Perform(std::move(action));
  if (give_up) {
    core_->PeerGone(remote_, 0,
                    "a system message unacknowledged for "
                    "give-up-system-message-after");
  }
  Unuse();
}

void Association::Quarantined(uint64_t uid, std::string_view why,
                              bool expected) {
  std::vector<Outbound> dropped;
  std::shared_ptr<OutboundStream> cancel;
  bool release = false;
  {
    base::MutexLock lock(&mu_);
    if (!Use()) return;
    if (numbered_uid_ != 0 && numbered_uid_ != uid) {
      // Already talking to a newer incarnation: nothing here is the
      // quarantined one's.
      UnuseLocked();
      return;
    }
    for (Outbound& m : queue_) dropped.push_back(std::move(m));
    queue_.clear();
    system_.clear();
    next_seq_ = 1;
    numbered_uid_ = 0;
    system_written_ = 0;
    unacked_since_ = absl::InfiniteFuture();
    heartbeat_pending_ = false;
    // A stream to that incarnation ends; one that a newer incarnation
    // answered, or that is not answered yet, goes on.
    if (stream_ != nullptr && stream_->answered && stream_->peer_uid == uid) {
      cancel = stream_->shared_from_this();
      // Not a failure to back off from: the next message connects at
      // once, and meets a new incarnation or a refusal.
      release = Detach(stream_, false, &dropped);
    }
  }
  core_->log.Log(expected ? actor::LogLevel::kInfo : actor::LogLevel::kWarning,
                 uid == 0
                     ? base::StrCat("the system at ", remote_.ToString(),
                                    ", never heard from, is given up: ", why)
                     : base::StrCat("the system at ", remote_.ToString(),
                                    " (uid ", uid, ") is quarantined: ", why));
  DropAll(std::move(dropped), "its system is quarantined");
  if (cancel != nullptr) {
    cancel->Cancel();
    if (release) cancel->Release();
  }
  Unuse();
}

void Association::AnnounceTermination() {
  Action action;
  {
    base::MutexLock lock(&mu_);
    if (stream_ == nullptr || !stream_->answered || !Use()) return;
    terminating_pending_ = true;
    action = Kick();
  }
  Perform(std::move(action));
  Unuse();
}

bool Association::HasWork() const {
  return !queue_.empty() || heartbeat_pending_ || terminating_pending_ ||
         (!system_.empty() && system_.back().seq() > system_written_);
}

Association::Work Association::TakeWork() {
  Work work;
  for (const wire::SystemMessage& m : system_) {
    if (m.seq() > system_written_) work.system.push_back(m);
  }
  if (!system_.empty()) system_written_ = system_.back().seq();
  work.heartbeat = std::exchange(heartbeat_pending_, false);
  work.batch = TakeBatch();
  // Last, after every message: it says nothing more will come.
  if (queue_.empty())
    work.terminating = std::exchange(terminating_pending_, false);
  return work;
}

Association::Action Association::Kick() {
  Action action;
  if (stream_ == nullptr) {
    // The next send or tick after the backoff tries again.
    if (core_->system->GetClock().Now() < backoff_until_ || !HasWork()) {
      return action;
    }
    // The handshake goes first and alone: the rest waits for its answer,
    // so nothing is written to a system that refuses it.
    action.start = std::make_shared<OutboundStream>(shared_from_this());
    stream_ = action.start.get();
    stream_->writing = true;
    ++live_streams_;
    system_written_ = 0;
  } else if (stream_->answered && !stream_->writing && HasWork()) {
    stream_->writing = true;
    action.write = stream_;
    action.work = TakeWork();
  }
  return action;
}

void Association::Perform(Action action) {
  if (action.start != nullptr) {
    // The handshake's answer must come in time.
    std::weak_ptr<OutboundStream> weak = action.start;
    core_->system->Scheduler().ScheduleOnce(
        core_->settings.handshake_timeout,
        [weak, this, keep = shared_from_this()] {
          std::shared_ptr<OutboundStream> s = weak.lock();
          if (s == nullptr) return;
          {
            base::MutexLock lock(&mu_);
            if (s->answered || s->detached || !Use()) return;
          }
          core_->log.Warning(base::StrCat(
              "no handshake answer from ", remote_.ToString(), " within ",
              absl::FormatDuration(core_->settings.handshake_timeout),
              " (handshake-timeout)"));
          Unuse();
          s->Cancel();
        });
    Write(action.start.get(), Work(), true);
  } else if (action.write != nullptr) {
    Write(action.write, std::move(action.work), false);
  }
}

std::vector<Outbound> Association::TakeBatch() {
  // Enough to fill a frame with small messages; Write hands back what does
  // not fit.
  constexpr size_t kMaxBatch = 1024;
  std::vector<Outbound> batch;
  const size_t n = std::min(queue_.size(), kMaxBatch);
  batch.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return batch;
}

void Association::Write(OutboundStream* stream, Work work, bool first) {
  const int64_t limit = core_->settings.maximum_frame_size;
  while (true) {
    wire::Frame frame;
    if (first) {
      *frame.mutable_handshake() = core_->MakeHandshake(remote_.ToString());
    }
    int64_t bytes = 0;
    // System messages count against the frame too: what does not fit goes
    // in the next (system_written_ is set back to the last that went).
    uint64_t unwritten_from = 0;
    for (wire::SystemMessage& m : work.system) {
      const int64_t size = static_cast<int64_t>(m.ByteSizeLong());
      if (bytes + size > limit && frame.system_messages_size() > 0) {
        unwritten_from = m.seq();
        break;
      }
      bytes += size;
      *frame.add_system_messages() = std::move(m);
    }
    frame.set_heartbeat(work.heartbeat);
    std::vector<Outbound>& batch = work.batch;
    std::vector<std::pair<Outbound, std::string>> unsendable;
    size_t i = 0;
    for (; i < batch.size(); ++i) {
      Outbound& m = batch[i];
      wire::Envelope* e = frame.add_envelopes();
      absl::Status encoded =
          core_->codec.Encode(m.message, e->mutable_message());
      if (encoded.ok()) {
        e->set_recipient(*m.recipient);
        e->set_sender(stream->SenderText(m.sender, core_->codec));
        if (m.elements != nullptr) {
          e->set_selection(true);
          for (const std::string& element : *m.elements) {
            e->add_elements(element);
          }
        }
      }
      // The whole envelope counts, paths included: a frame of many small
      // messages is mostly paths.
      const int64_t size = static_cast<int64_t>(e->ByteSizeLong());
      if (encoded.ok() &&
          e->message().bytes().size() > static_cast<size_t>(limit)) {
        encoded = absl::ResourceExhaustedError(
            base::StrCat(e->message().bytes().size(),
                         " bytes, over maximum-frame-size (", limit, ")"));
      } else if (encoded.ok() && size > limit + kPathAllowance / 2) {
        encoded = absl::ResourceExhaustedError(base::StrCat(
            "its paths take ", size - e->message().bytes().size(), " bytes"));
      }
      if (!encoded.ok()) {
        frame.mutable_envelopes()->RemoveLast();
        unsendable.emplace_back(std::move(m), std::string(encoded.message()));
        continue;
      }
      if (bytes + size > limit &&
          frame.envelopes_size() + frame.system_messages_size() > 1) {
        frame.mutable_envelopes()->RemoveLast();
        break;  // the rest goes in the next frame
      }
      bytes += size;
      if (core_->settings.log_sent_messages) {
        core_->log.Debug(base::StrCat("sending a ", m.message.TypeName(),
                                      " to ", *m.recipient));
      }
    }
    // Said last: only when every message of the batch is in this frame.
    frame.set_terminating(work.terminating && i == batch.size());
    bool release = false;
    Work next;
    std::vector<Outbound> stranded;
    {
      base::MutexLock lock(&mu_);
      if (work.terminating && i < batch.size()) terminating_pending_ = true;
      if (unwritten_from != 0) {
        system_written_ = std::min(system_written_, unwritten_from - 1);
      }
      for (size_t j = batch.size(); j > i; --j) {
        // Back to the head of the queue, unless the stream is no longer
        // the association's: then the queue was dropped, and these go too
        // (a newer stream must not send them after newer messages).
        if (stream->detached) {
          stranded.push_back(std::move(batch[j - 1]));
        } else {
          queue_.push_front(std::move(batch[j - 1]));
        }
      }
      if (IsEmpty(frame) && !first) {
        if (!stream->detached) next = TakeWork();
        if (next.empty()) {
          stream->writing = false;
          release = stream->detached && !stream->released;
          stream->released = stream->released || release;
          changed_.SignalAll();
        }
      }
    }
    for (auto& [m, why] : unsendable) {
      core_->log.Warning(base::StrCat("cannot send a ", m.message.TypeName(),
                                      " to ", *m.recipient, ": ", why));
      core_->DeadLetter(m.message, m.sender, *m.recipient);
    }
    DropAll(std::move(stranded), "the connection to it ended");
    if (!IsEmpty(frame) || first) {
      if (first) {
        stream->Begin(stub_.get(), std::move(frame));
      } else {
        stream->Write(std::move(frame));
      }
      return;
    }
    if (release) stream->Release();
    if (next.empty()) return;
    work = std::move(next);
  }
}

void Association::OnWriteDone(OutboundStream* stream, bool ok) {
  std::vector<Outbound> dropped;
  Work work;
  bool release = false;
  bool use = false;
  {
    base::MutexLock lock(&mu_);
    use = Use();
    // A failed write fails the stream; Detach's answer is ignored because
    // the write in flight (this one) releases below.
    if (!ok) Detach(stream, true, &dropped);
    if (stream->detached) {
      stream->writing = false;
      release = !stream->released;
      stream->released = true;
      changed_.SignalAll();
    } else {
      if (stream->answered) work = TakeWork();
      if (work.empty()) {
        stream->writing = false;
        changed_.SignalAll();
      }
    }
  }
  if (use) DropAll(std::move(dropped), "the connection to it failed");
  if (!work.empty()) Write(stream, std::move(work), false);
  if (use) Unuse();
  if (release) {
    if (!ok) stream->Cancel();
    stream->Release();
  }
}

void Association::OnAnswer(OutboundStream* stream, const wire::Frame& frame) {
  if (frame.has_handshake()) OnHandshake(stream, frame.handshake());
  if (frame.ack() > 0) {
    base::MutexLock lock(&mu_);
    // Only the incarnation the numbering is for acknowledges it.
    if (!stream->detached && stream->peer_uid == numbered_uid_) {
      bool popped = false;
      while (!system_.empty() && system_.front().seq() <= frame.ack()) {
        system_.pop_front();
        popped = true;
      }
      if (popped) {
        unacked_since_ = system_.empty() ? absl::InfiniteFuture()
                                         : core_->system->GetClock().Now();
      }
    }
  }
  if (frame.heartbeat_answer()) core_->watcher.HeartbeatFrom(remote_);
}

void Association::OnHandshake(OutboundStream* stream,
                              const wire::Handshake& answer) {
  {
    base::MutexLock lock(&mu_);
    if (!Use()) return;
  }
  std::string refusal;
  if (answer.from_address() != remote_.ToString()) {
    refusal = base::StrCat("answered as ", answer.from_address());
  } else if (!core_->SeenIncarnation(remote_, answer.from_uid())) {
    refusal =
        base::StrCat("its incarnation ", answer.from_uid(), " is quarantined");
  }
  Action action;
  if (refusal.empty()) {
    base::MutexLock lock(&mu_);
    stream->answered = true;
    stream->peer_uid = answer.from_uid();
    if (numbered_uid_ != answer.from_uid()) {
      // A new incarnation counts from 1: what it has not acknowledged is
      // numbered again (a watch meant for the old one's actors finds no
      // actor there, and is answered so).
      numbered_uid_ = answer.from_uid();
      next_seq_ = 1;
      for (wire::SystemMessage& m : system_) m.set_seq(next_seq_++);
      system_written_ = 0;
    }
    if (!stream->detached) action = Kick();
  }
  Perform(std::move(action));
  if (!refusal.empty()) {
    core_->log.Warning(base::StrCat("the system at ", remote_.ToString(), " ",
                                    refusal, "; closing the connection"));
    stream->Cancel();
  }
  Unuse();
}

void Association::OnReadFailed(OutboundStream* stream) {
  std::vector<Outbound> dropped;
  bool release = false;
  bool use = false;
  {
    base::MutexLock lock(&mu_);
    use = Use();
    release = Detach(stream, !closed_, &dropped);
  }
  if (use) {
    DropAll(std::move(dropped), "the connection to it ended");
    Unuse();
  }
  if (release) {
    stream->Cancel();
    stream->Release();
  }
}

void Association::OnDone(OutboundStream* stream, const grpc::Status& status) {
  std::vector<Outbound> dropped;
  bool use = false;
  {
    base::MutexLock lock(&mu_);
    use = Use();
    // Done: the hold was released before, whatever Detach answers.
    Detach(stream, !status.ok() && !closed_, &dropped);
  }
  if (use) {
    DropAll(std::move(dropped), "the connection to it ended");
    // A cancel is this system's own doing, logged where it was decided.
    if (!status.ok() && status.error_code() != grpc::StatusCode::CANCELLED) {
      core_->log.Warning(base::StrCat(
          "the connection to ", remote_.ToString(), " ended: ",
          status.error_message().empty()
              ? base::StrCat("code ", static_cast<int>(status.error_code()))
              : status.error_message()));
    }
    Unuse();
  }
  base::MutexLock lock(&mu_);
  --live_streams_;
  changed_.SignalAll();
}

bool Association::Detach(OutboundStream* stream, bool failed,
                         std::vector<Outbound>* dropped) {
  if (stream->detached) return false;
  stream->detached = true;
  if (stream_ == stream) {
    stream_ = nullptr;
    for (Outbound& m : queue_) dropped->push_back(std::move(m));
    queue_.clear();
    // Nobody to tell: a new stream starts from what is then needed.
    heartbeat_pending_ = false;
    terminating_pending_ = false;
    if (failed) {
      backoff_until_ = core_->system->GetClock().Now() +
                       core_->settings.outbound_restart_backoff;
    }
  }
  changed_.SignalAll();
  if (stream->writing || stream->released) return false;
  stream->released = true;
  return true;
}

void Association::DropAll(std::vector<Outbound> dropped, const char* why) {
  if (dropped.empty()) return;
  core_->log.Debug(base::StrCat(dropped.size(), " message(s) to ",
                                remote_.ToString(), " dropped: ", why));
  for (const Outbound& m : dropped) {
    core_->DeadLetter(m.message, m.sender, *m.recipient);
  }
}

void Association::Flush(absl::Time deadline) {
  base::MutexLock lock(&mu_);
  // Messages and the news of the shutdown; system messages are not
  // waited for (their acknowledgements may never come).
  while (!closed_ && (!queue_.empty() || terminating_pending_ ||
                      (stream_ != nullptr && stream_->writing))) {
    if (changed_.WaitWithDeadline(&mu_, deadline)) break;
  }
}

void Association::End() {
  std::vector<Outbound> dropped;
  std::shared_ptr<OutboundStream> ending;
  bool end_writes = false;
  {
    base::MutexLock lock(&mu_);
    if (closed_) return;
    // Nothing new touches the system from here on (Use fails).
    closed_ = true;
    if (stream_ != nullptr) {
      ending = stream_->shared_from_this();
      ending_ = ending;
      if (Detach(stream_, false, &dropped)) {
        // Idle: end its writes, then release it.
        ending->writing = true;  // no write may follow the end
        end_writes = true;
      }
    }
    for (Outbound& m : queue_) dropped.push_back(std::move(m));
    queue_.clear();
  }
  DropAll(std::move(dropped), "the transport shut down");
  if (end_writes) {
    ending->EndWrites();
    ending->Release();
  }
  // What touches the system now finishes.
  base::MutexLock lock(&mu_);
  while (users_ > 0) changed_.Wait(&mu_);
}

void Association::AwaitEnded(absl::Time deadline) {
  // gRPC finishes a stream whose writes ended once the peer has read them;
  // one still writing (the flush ran out of time) or a peer that does not
  // answer is cancelled at the deadline.
  std::shared_ptr<OutboundStream> ending;
  {
    base::MutexLock lock(&mu_);
    ending = ending_;
    while (live_streams_ > 0) {
      if (!changed_.WaitWithDeadline(&mu_, deadline)) continue;
      if (ending == nullptr) {
        // Only failed streams are left, each cancelled when it failed.
        deadline = absl::InfiniteFuture();
        continue;
      }
      break;
    }
    if (live_streams_ == 0) {
      ending_.reset();
      return;
    }
  }
  ending->Cancel();
  base::MutexLock lock(&mu_);
  while (live_streams_ > 0) changed_.Wait(&mu_);
  ending_.reset();
}

void Association::Close(absl::Time flush_deadline) {
  Flush(flush_deadline);
  End();
  AwaitEnded(flush_deadline);
}

}  // namespace cairn::remote::internal
