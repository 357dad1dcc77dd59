#include "ndarray/backends/backend.h"

#include <mutex>

namespace mxnet::backends {
namespace {

struct Registry {
  std::mutex mu;
  std::vector<const BackendTable*> tables;
};

Registry& GetRegistry() {
  static Registry* r = new Registry();
  return *r;
}

}  // namespace

void RegisterBackend(const BackendTable* table) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> l(r.mu);
  r.tables.push_back(table);
}

std::vector<const BackendTable*> Backends() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> l(r.mu);
  return r.tables;
}

const BackendTable* FindBackend(std::string_view name) {
  for (const BackendTable* t : Backends())
    if (t->name == name) return t;
  return nullptr;
}

void ReleaseCaches() {
  for (const BackendTable* t : Backends())
    if (t->release) t->release();
}

}  // namespace mxnet::backends
