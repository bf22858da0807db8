#include "hocon/reference_registry.h"

#include <map>
#include <mutex>

namespace cairn::hocon {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::string> texts;
};

Registry& Get() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

bool RegisterReferenceConf(std::string_view module, std::string_view text) {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  r.texts[std::string(module)] = std::string(text);
  return true;
}

std::vector<std::pair<std::string, std::string>> RegisteredReferenceConfs() {
  Registry& r = Get();
  std::lock_guard<std::mutex> lock(r.mu);
  return {r.texts.begin(), r.texts.end()};
}

}  // namespace cairn::hocon
