#include "ir/substitute.h"

namespace tg {

UOpRef Substitute(const UOpRef& root, const NodeMap& replace) {
  if (replace.empty()) return root;
  NodeMap done;
  for (const UOpRef& u : root->toposort()) {
    if (auto it = replace.find(u.get()); it != replace.end()) {
      done[u.get()] = it->second;
      continue;
    }
    std::vector<UOpRef> src;
    bool changed = false;
    for (const UOpRef& s : u->src()) {
      const UOpRef& now = done.at(s.get());
      changed = changed || now != s;
      src.push_back(now);
    }
    done[u.get()] = changed ? u->replace_src(std::move(src)) : u;
  }
  return done.at(root.get());
}

}  // namespace tg
