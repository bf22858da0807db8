#ifndef CAIRN_BASE_VARIANT_TRAITS_H_
#define CAIRN_BASE_VARIANT_TRAITS_H_

#include <type_traits>
#include <variant>

namespace cairn::base {

// Whether T is a std::variant.
template <typename T>
struct IsVariant : std::false_type {};
template <typename... Ts>
struct IsVariant<std::variant<Ts...>> : std::true_type {};

// Whether T is one of the alternatives of V (false when V is not a
// std::variant).
template <typename T, typename V>
struct IsAlternativeOf : std::false_type {};
template <typename T, typename... Ts>
struct IsAlternativeOf<T, std::variant<Ts...>>
    : std::bool_constant<(std::is_same_v<T, Ts> || ...)> {};

}  // namespace cairn::base

#endif  // CAIRN_BASE_VARIANT_TRAITS_H_
