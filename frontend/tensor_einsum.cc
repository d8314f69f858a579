// einsum: every operand is permuted into one shared alphabetical axis order (size 1 where it lacks a
// letter), multiplied with broadcasting, summed over the letters the output drops, and permuted to
// the output order. Repeated letters in one operand take a diagonal first; "..." names batch axes.
#include <algorithm>
#include <cctype>
#include <map>

#include "frontend/op_util.h"
#include "frontend/shape_util.h"

namespace tg {
namespace {

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep) out.emplace_back();
    else out.back().push_back(c);
  }
  return out;
}

// Rewrites "..." into fresh letters, right-aligned per operand as numpy broadcasting does; without
// "->" the output is the ellipsis letters then the letters used once, sorted.
std::string ExpandEllipsis(std::string formula, const std::vector<Tensor>& xs) {
  if (formula.find("...") == std::string::npos) return formula;
  std::string fresh;
  for (char c = 'a'; c <= 'z'; ++c)
    if (formula.find(c) == std::string::npos) fresh.push_back(c);
  for (char c = 'A'; c <= 'Z'; ++c)
    if (formula.find(c) == std::string::npos) fresh.push_back(c);
  size_t arrow = formula.find("->");
  std::vector<std::string> inputs = SplitOn(formula.substr(0, arrow), ',');
  std::vector<int64_t> ell(inputs.size(), 0);
  int64_t most = 0;
  for (size_t i = 0; i < inputs.size() && i < xs.size(); ++i)
    if (inputs[i].find("...") != std::string::npos)
      most = std::max(most, ell[i] = std::max<int64_t>(0, xs[i].ndim() - static_cast<int64_t>(inputs[i].size()) + 3));
  std::string lhs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (size_t at = inputs[i].find("..."); at != std::string::npos)
      inputs[i].replace(at, 3, fresh.substr(most - ell[i], ell[i]));
    lhs += (i ? "," : "") + inputs[i];
  }
  std::string rhs;
  if (arrow != std::string::npos) {
    rhs = formula.substr(arrow + 2);
    if (size_t at = rhs.find("..."); at != std::string::npos) rhs.replace(at, 3, fresh.substr(0, most));
  } else {
    std::string once;
    for (char c : lhs)
      if (std::isalpha(c) && std::count(lhs.begin(), lhs.end(), c) == 1 && fresh.find(c) >= static_cast<size_t>(most))
        once.push_back(c);
    std::sort(once.begin(), once.end());
    rhs = fresh.substr(0, most) + once;
  }
  return lhs + "->" + rhs;
}

}  // namespace

Tensor Tensor::einsum(std::string_view formula_in, const std::vector<Tensor>& operands) {
  std::string formula;
  for (char c : formula_in)
    if (c != ' ') formula.push_back(c);
  formula = ExpandEllipsis(formula, operands);
  size_t arrow = formula.find("->");
  std::string lhs = formula.substr(0, arrow), rhs;
  if (arrow != std::string::npos) {
    rhs = formula.substr(arrow + 2);
  } else {  // implicit output: the letters used exactly once, sorted
    for (char c : lhs)
      if (std::isalpha(c) && std::count(lhs.begin(), lhs.end(), c) == 1) rhs.push_back(c);
    std::sort(rhs.begin(), rhs.end());
  }
  std::vector<std::string> inputs = SplitOn(lhs, ',');
  if (inputs.size() != operands.size())
    throw Error("einsum: \"" + std::string(formula_in) + "\" names " + std::to_string(inputs.size()) +
                " operands but " + std::to_string(operands.size()) + " were given");
  std::vector<Tensor> xs = operands;
  std::map<char, int64_t> sizes;
  for (size_t i = 0; i < xs.size(); ++i) {
    std::string& s = inputs[i];
    if (static_cast<int64_t>(s.size()) != xs[i].ndim())
      throw Error("einsum: operand " + std::to_string(i) + " has shape " + ShapeString(xs[i].shape()) + " but \"" + s +
                  "\" names " + std::to_string(s.size()) + " axes");
    for (size_t j = 0; j < s.size(); ++j) {  // a repeated letter takes the diagonal of its two axes
      size_t k = s.find(s[j], j + 1);
      if (k == std::string::npos) continue;
      xs[i] = xs[i].diagonal(0, static_cast<int>(j), static_cast<int>(k));
      char c = s[j];
      s.erase(k, 1), s.erase(j, 1), s.push_back(c);
      j = static_cast<size_t>(-1);
    }
    for (size_t j = 0; j < s.size(); ++j) {
      auto [it, fresh] = sizes.emplace(s[j], xs[i].shape()[j]);
      if (!fresh && it->second != xs[i].shape()[j])
        throw Error("einsum: letter '" + std::string(1, s[j]) + "' has size " + std::to_string(it->second) +
                    " and " + std::to_string(xs[i].shape()[j]) + "; a letter must have one size");
    }
  }
  for (char c : rhs)
    if (!sizes.count(c)) throw Error("einsum: output letter '" + std::string(1, c) + "' appears in no input");
  std::string alpha;
  for (auto& [c, n] : sizes) alpha.push_back(c);
  std::optional<Tensor> prod;
  for (size_t i = 0; i < xs.size(); ++i) {
    std::string sorted = inputs[i];
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> perm;
    for (char c : sorted) perm.push_back(static_cast<int>(inputs[i].find(c)));
    Shape aligned;
    for (char c : alpha) aligned.push_back(inputs[i].find(c) == std::string::npos ? 1 : sizes[c]);
    Tensor t = xs[i].permute(perm).reshape(aligned);
    prod = prod ? *prod * t : t;
  }
  std::vector<int> drop;
  for (size_t i = 0; i < alpha.size(); ++i)
    if (rhs.find(alpha[i]) == std::string::npos) drop.push_back(static_cast<int>(i));
  Tensor out = drop.empty() ? *prod : prod->sum(drop);
  std::string kept = rhs;
  std::sort(kept.begin(), kept.end());
  std::vector<int> order;
  for (char c : rhs) order.push_back(static_cast<int>(kept.find(c)));
  return out.permute(order);
}

}  // namespace tg
