#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_GATE_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_GATE_H_

#include <condition_variable>
#include <mutex>

namespace cairn::persistence::testing {

// Holds threads at Wait() until the test calls Open(). It must outlive
// every thread that may wait at it.
//
// Thread safety: every method from any thread.
class Gate {
 public:
  Gate() = default;
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;

  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    opened_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    opened_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable opened_;
  bool open_ = false;  // guarded by mu_
};

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_GATE_H_
