#include "remote/internal/association.h"

#include <utility>

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
    if (in_.has_handshake()) owner_->OnHandshake(this, in_.handshake());
    in_.Clear();
    HandOff(this);
    StartRead(&in_);
  }
  void OnDone(const grpc::Status& status) override {
    TakeOver(this);
    owner_->OnDone(this, status);
    owner_.reset();
    self_.reset();  // may destroy this
  }

  // Guarded by the owner's mu_.
  bool writing = false;   // a batch is being serialized or written
  bool detached = false;  // no longer the association's stream
  bool released = false;  // the hold is released, or about to be
  bool answered = false;  // the peer's handshake arrived

 private:
  grpc::ClientContext context_;
  wire::Frame out_;
  wire::Frame in_;
  std::shared_ptr<Association> owner_;
  std::shared_ptr<OutboundStream> self_;
};

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
  if (--users_ == 0) changed_.SignalAll();
}

void Association::Warn(std::string_view text) const {
  base::MutexLock lock(&mu_);
  // Under the lock: Close cannot finish meanwhile.
  if (!closed_) core_->log.Warning(text);
}

void Association::Send(Outbound message) {
  std::shared_ptr<OutboundStream> start;
  OutboundStream* write = nullptr;
  std::vector<Outbound> batch;
  const char* dropped = nullptr;
  {
    base::MutexLock lock(&mu_);
    // After the shutdown the system may be gone: dropped without a trace.
    if (!Use()) return;
    if (queue_.size() >=
        static_cast<size_t>(core_->settings.outbound_message_queue_size)) {
      dropped = "the queue to it is full (outbound-message-queue-size)";
    } else if (stream_ == nullptr &&
               core_->system->GetClock().Now() < backoff_until_) {
      dropped = "the connection to it failed (outbound-restart-backoff)";
    } else {
      queue_.push_back(std::move(message));
      if (stream_ == nullptr) {
        // The handshake goes first and alone: messages wait for its
        // answer, so none is written to a system that refuses them.
        start = std::make_shared<OutboundStream>(shared_from_this());
        stream_ = start.get();
        stream_->writing = true;
        ++live_streams_;
      } else if (stream_->answered && !stream_->writing) {
        stream_->writing = true;
        write = stream_;
        batch = TakeBatch();
      }
    }
  }
  if (dropped != nullptr) {
    std::vector<Outbound> one;
    one.push_back(std::move(message));
    DropAll(std::move(one), dropped);
  } else if (start != nullptr) {
    // The handshake's answer must come in time.
    std::weak_ptr<OutboundStream> weak = start;
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
    Write(start.get(), {}, true);
  } else if (write != nullptr) {
    Write(write, std::move(batch), false);
  }
  Unuse();
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

void Association::Write(OutboundStream* stream, std::vector<Outbound> batch,
                        bool first) {
  const int64_t limit = core_->settings.maximum_frame_size;
  while (true) {
    wire::Frame frame;
    if (first)
      *frame.mutable_handshake() = core_->MakeHandshake(remote_.ToString());
    std::vector<std::pair<Outbound, std::string>> unsendable;
    int64_t bytes = 0;
    size_t i = 0;
    for (; i < batch.size(); ++i) {
      Outbound& m = batch[i];
      wire::Envelope* e = frame.add_envelopes();
      absl::Status encoded =
          core_->codec.Encode(m.message, e->mutable_message());
      if (encoded.ok()) {
        e->set_recipient(*m.recipient);
        e->set_sender(core_->codec.RefToText(m.sender));
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
      if (bytes + size > limit && frame.envelopes_size() > 1) {
        frame.mutable_envelopes()->RemoveLast();
        break;  // the rest goes in the next frame
      }
      bytes += size;
      if (core_->settings.log_sent_messages) {
        core_->log.Debug(base::StrCat("sending a ", m.message.TypeName(),
                                      " to ", *m.recipient));
      }
    }
    bool release = false;
    std::vector<Outbound> next;
    std::vector<Outbound> stranded;
    {
      base::MutexLock lock(&mu_);
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
      if (frame.envelopes_size() == 0 && !first) {
        if (!stream->detached) next = TakeBatch();
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
    if (frame.envelopes_size() > 0 || first) {
      if (first) {
        stream->Begin(stub_.get(), std::move(frame));
      } else {
        stream->Write(std::move(frame));
      }
      return;
    }
    if (release) stream->Release();
    if (next.empty()) return;
    batch = std::move(next);
  }
}

void Association::OnWriteDone(OutboundStream* stream, bool ok) {
  std::vector<Outbound> dropped;
  std::vector<Outbound> batch;
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
      if (stream->answered) batch = TakeBatch();
      if (batch.empty()) {
        stream->writing = false;
        changed_.SignalAll();
      }
    }
  }
  if (use) DropAll(std::move(dropped), "the connection to it failed");
  if (!batch.empty()) Write(stream, std::move(batch), false);
  if (use) Unuse();
  if (release) {
    if (!ok) stream->Cancel();
    stream->Release();
  }
}

void Association::OnHandshake(OutboundStream* stream,
                              const wire::Handshake& answer) {
  const bool right = answer.from_address() == remote_.ToString();
  std::vector<Outbound> batch;
  {
    base::MutexLock lock(&mu_);
    if (!Use()) return;
    if (right) {
      stream->answered = true;
      if (!stream->detached && !stream->writing) {
        batch = TakeBatch();
        stream->writing = !batch.empty();
      }
    }
  }
  if (!batch.empty()) Write(stream, std::move(batch), false);
  if (!right) {
    core_->log.Warning(base::StrCat("the system at ", remote_.ToString(),
                                    " answered as ", answer.from_address(),
                                    "; closing the connection"));
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
    if (!status.ok()) {
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
  while (!closed_ &&
         (!queue_.empty() || (stream_ != nullptr && stream_->writing))) {
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
