#ifndef CAIRN_BASE_OVERLOADED_H_
#define CAIRN_BASE_OVERLOADED_H_

namespace cairn::base {

// Several callables as one overload set, for std::visit and for handlers
// that take each type with its own lambda:
//
//   std::visit(Overloaded{[](const Deposit& d) { ... },
//                         [](const Withdraw& w) { ... }},
//              command);
template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace cairn::base

#endif  // CAIRN_BASE_OVERLOADED_H_
