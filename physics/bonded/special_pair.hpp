// The special_bonds share of a bond term (LAMMPS factor_lj): with a 1-2 weight w strictly
// between 0 and 1 the bonded pair is out of the neighbour list, and its bond term adds w times the
// pair style's force and energy of its two atoms, within the pair's cutoff. The host compute
// (engine/bonded_forces.cpp) and the CUDA one (engine/cuda/bonded.cu) do these operations in this
// order (SCANMD_HD; nvcc --fmad=false), so that both get the same bits: fbond += share.fpair, the
// energy share counted in evdwl once converted to fixed point.
#pragma once

#include "kernels/hd.hpp"
#include "physics/pair/pair_style.hpp"

namespace scanmd {

struct SpecialShare {
  double fpair = 0.0;   // w × the style's F/r, added to the bond's fbond
  double energy = 0.0;  // w × the style's energy (evdwl)
  bool in = false;      // within the pair cutoff (else nothing is added)
};

// Pair styles that read the pairs' motion (DPD) have no such share: refused with the deck.
template <class E>
requires(!MotionStyle<E>) SCANMD_HD inline SpecialShare
    special_share(double rsq, const typename E::Params& pp, double w) {
  SpecialShare s;
  if (rsq < pp.cutoff_sq) {
    const PairTerms<double> t = E::eval(rsq, pp);
    s.fpair = w * t.fpair;
    s.energy = w * t.energy;
    s.in = true;
  }
  return s;
}

}  // namespace scanmd
