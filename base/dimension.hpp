// The physical dimension of a deck value (a length, an energy, a count of steps, ...) and its
// unit in each unit system, as LAMMPS's `units` command defines them: LJ reduced units (σ, ε,
// m, τ = σ√(m/ε), k_B = 1) by default, metal or real with `system.units` (base/units.hpp has
// the constants); the deck reference (`scanmd deck-reference`, docs/deck.md) prints all three.
// A tag only: nothing here converts a number. Header-only and free of fmt (the pair styles' headers, which nvcc compiles,
// give their coefficients' dimensions).
#pragma once

#include <string_view>

namespace scanmd {

enum class Dimension {
  None,           // a pure number: ratios, exponents, fractions, seeds, switches, names, paths
  Length,         // σ
  InverseLength,  // 1/σ (Morse α, Yukawa κ)
  InverseArea,    // 1/σ² (the Gaussian's b)
  Energy,         // ε
  Force,          // ε/σ (DPD's a)
  Friction,       // ε·τ/σ² (force per velocity: DPD's γ)
  EnergyLength,   // ε·σ (Yukawa's a)
  EnergyLength6,  // ε·σ⁶ (Buckingham's c)
  Time,           // τ
  Temperature,    // ε/k_B
  Mass,           // m
  NumberDensity,  // particles per σ³
  Pressure,       // ε/σ³
  Steps,          // a number of time steps
};

// A dimension's unit in each system: LAMMPS `units lj` (reduced), `units metal` (Å, eV, ps, K,
// g/mol, bar) and `units real` (Å, kcal/mol, fs, K, g/mol, atm). Number densities are particles
// per volume in every system (LAMMPS's `density` keyword is a mass density outside lj).
struct DimensionUnits {
  Dimension dimension;
  std::string_view name;  // "number density"
  std::string_view lj, metal, real;
};

inline constexpr DimensionUnits kDimensionUnits[] = {
    {Dimension::None, "none", "—", "—", "—"},
    {Dimension::Length, "length", "σ", "Å", "Å"},
    {Dimension::InverseLength, "inverse length", "σ⁻¹", "Å⁻¹", "Å⁻¹"},
    {Dimension::InverseArea, "inverse area", "σ⁻²", "Å⁻²", "Å⁻²"},
    {Dimension::Energy, "energy", "ε", "eV", "kcal/mol"},
    {Dimension::Force, "force", "ε/σ", "eV/Å", "kcal/(mol·Å)"},
    {Dimension::Friction, "force / velocity", "ε·τ/σ²", "eV·ps/Å²", "kcal·fs/(mol·Å²)"},
    {Dimension::EnergyLength, "energy × length", "ε·σ", "eV·Å", "kcal·Å/mol"},
    {Dimension::EnergyLength6, "energy × length⁶", "ε·σ⁶", "eV·Å⁶", "kcal·Å⁶/mol"},
    {Dimension::Time, "time", "τ", "ps", "fs"},
    {Dimension::Temperature, "temperature", "ε/k_B", "K", "K"},
    {Dimension::Mass, "mass", "m", "g/mol", "g/mol"},
    {Dimension::NumberDensity, "number density", "σ⁻³", "Å⁻³", "Å⁻³"},
    {Dimension::Pressure, "pressure", "ε/σ³", "bar", "atm"},
    {Dimension::Steps, "steps", "steps", "steps", "steps"},
};

constexpr const DimensionUnits& units_of(Dimension d) {
  for (const DimensionUnits& u : kDimensionUnits)
    if (u.dimension == d) return u;
  return kDimensionUnits[0];
}

}  // namespace scanmd
