#pragma once
// Physical constants and unit conversions used across models. Published figures live in resources/catalog.

namespace ct::model::units {

inline constexpr double kAirDensityKgM3 = 1.2;     ///< models.md §3
inline constexpr double kAirCpJPerKgK = 1005.0;    ///< models.md §3
inline constexpr double kWaterCpJPerKgK = 4180.0;  ///< models.md §4
inline constexpr double kWaterDensityKgM3 = 997.0;
inline constexpr double kM3sPerCfm = 4.719474e-4;       ///< 1 CFM in m³/s (models.md §3)
inline constexpr double kRackUnitM = 0.04445;           ///< 1U = 1.75 in
inline constexpr double kContinuousLoadFraction = 0.8;  ///< NEC 80 % rule for breakers

constexpr double cfmToM3s(double cfm) { return cfm * kM3sPerCfm; }
constexpr double m3sToCfm(double m3s) { return m3s / kM3sPerCfm; }
constexpr double lpmToM3s(double lpm) { return lpm / 60000.0; }

}  // namespace ct::model::units
