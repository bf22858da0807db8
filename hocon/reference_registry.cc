#include "hocon/reference_registry.h"

#include <map>

#include "base/mutex.h"

namespace cairn::hocon {
namespace {

struct Registry {
  base::Mutex mu;
  std::map<std::string, std::string> texts ABSL_GUARDED_BY(mu);
};

Registry& Get() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

bool RegisterReferenceConf(std::string_view module, std::string_view text) {
  Registry& r = Get();
  base::MutexLock lock(&r.mu);
  r.texts[std::string(module)] = std::string(text);
  return true;
}

std::vector<std::pair<std::string, std::string>> RegisteredReferenceConfs() {
  Registry& r = Get();
  base::MutexLock lock(&r.mu);
  return {r.texts.begin(), r.texts.end()};
}

}  // namespace cairn::hocon
