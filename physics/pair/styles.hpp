// The pair styles scanmd offers: one line per evaluator (LAMMPS's registration line). Every
// driver — the host scalar loop, the vector kernels, the CUDA kernel — and the deck reader are
// instantiated over this list, so adding a style is its evaluator header, its line here, and its
// tests. Header-only and free of fmt/toml (nvcc compiles it).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "physics/pair/buck.hpp"
#include "physics/pair/dpd.hpp"
#include "physics/pair/gauss.hpp"
#include "physics/pair/lj96_cut.hpp"
#include "physics/pair/lj_cut.hpp"
#include "physics/pair/lj_smooth_linear.hpp"
#include "physics/pair/mie_cut.hpp"
#include "physics/pair/mixed.hpp"
#include "physics/pair/morse.hpp"
#include "physics/pair/soft.hpp"
#include "physics/pair/table.hpp"
#include "physics/pair/yukawa.hpp"

namespace scanmd {

using PairStyles = std::tuple<LJCut,           // lj, lj/cut
                              LJSmoothLinear,  // lj/smooth/linear
                              Morse,           // morse
                              Yukawa,          // yukawa
                              Gauss,           // gauss
                              Buck,            // buck
                              MieCut,          // mie/cut
                              Soft,            // soft
                              LJ96Cut,         // lj96/cut
                              Table,           // table
                              DPD,             // dpd
                              DPDTstat>;       // dpd/tstat

// The styles run.precision = "mixed" runs (physics/pair/mixed.hpp): their evaluators in float.
// A style is added here when its eval<R> uses only +, −, ×, /, sqrt and det::exp (which have float
// versions on every backend); the others are refused with the deck.
using MixedPairStyles = std::tuple<Mixed<LJCut>,   // lj, lj/cut (WCA too)
                                   Mixed<Morse>>;  // morse

// What the drivers are instantiated for (the run's PairPotential holds one of these): every
// style, and the float variants.
using ComputedPairStyles =
    decltype(std::tuple_cat(std::declval<PairStyles>(), std::declval<MixedPairStyles>()));

// Whether style E has a float variant, Mixed<E> (in MixedPairStyles).
template <class E>
inline constexpr bool kHasMixed = []<std::size_t... I>(std::index_sequence<I...>) {
  return (std::is_same_v<std::tuple_element_t<I, MixedPairStyles>, Mixed<E>> || ...);
}
(std::make_index_sequence<std::tuple_size_v<MixedPairStyles>>{});

// f.template operator()<E>() for every style E of the list, in order.
template <class F>
constexpr void for_each_pair_style(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f.template operator()<std::tuple_element_t<I, PairStyles>>(), ...);
  }
  (std::make_index_sequence<std::tuple_size_v<PairStyles>>{});
}

// A variant-like list type over the styles the drivers run (ComputedPairStyles):
// Over<Tmpl> = std::variant<Tmpl<E>...> etc.
template <template <class...> class List, template <class> class Of>
struct OverPairStyles;
template <template <class...> class List, template <class> class Of>
using over_pair_styles_t = typename OverPairStyles<List, Of>::type;
template <template <class...> class List, template <class> class Of>
struct OverPairStyles {
  template <class T>
  struct Apply;
  template <class... E>
  struct Apply<std::tuple<E...>> {
    using type = List<Of<E>...>;
  };
  using type = typename Apply<ComputedPairStyles>::type;
};

}  // namespace scanmd
