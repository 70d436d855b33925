#pragma once
// Where a hall's aisles, containment panels and close-coupled cooling sit (models.md §3), shared by validation,
// the air solvers, the renderer and the editor: which aisles a containment closes, a row's line, and the
// leakage and recirculation figures a scenario gives or takes from the catalog.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/scenario.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ct::model {

/// A row's place on the floor: the footprints of its racks and in-row units together.
struct RowLine {
    Box2 extent;                    ///< bounding box of everything standing in the row
    Box2 core;                      ///< the band every rack of the row covers (across the row), over the row's length
    Facing facing = Facing::North;  ///< the racks' front
    bool along_x = true;            ///< the row runs along x (racks face north or south)
    double height_m = 0;            ///< tallest rack
    bool uniform = true;            ///< every rack faces the same way
};

/// Nullopt for a row with no racks or an unknown rack model.
std::optional<RowLine> rowLine(const Hall& h, const Row& row, const Catalog& c);

/// One aisle a containment closes: the floor between two rows' faces, over both rows' length.
struct ContainedAisle {
    Box2 box;
    bool along_x = true;  ///< the aisle runs along x
    std::string row_a, row_b;
    double roof_m = 0;  ///< height of the roof (the taller row's racks)
};

/// The aisles `c` closes: every aisle of its kind between consecutive rows of `c.rows` (a row is found in its
/// hall by id). When there is none, or a row is unknown, `problem` says why and the result is empty.
std::vector<ContainedAisle> containedAisles(const Hall& h, const Containment& c, const Catalog& cat, std::string* problem = nullptr);

/// The containment's leakage: its own figure, else its model's, else 0.
double leakageFraction(const Containment& c, const Catalog& cat);
/// A fixed share of a rack's exhaust that recirculates inside it: its own figure, else its blanking's measured
/// one; nullopt when the air through its openings follows the pressure across it (rackOpenings()).
std::optional<double> fixedRecirculation(const Rack& r, const Catalog& cat);

/// The discharge coefficient of a sharp-edged orifice (Idelchik, Handbook of Hydraulic Resistance; ISO 5167-2).
inline constexpr double kOrificeDischarge = 0.61;

/// An opening through a rack besides its servers, over a band of height (m from the rack's floor).
struct RackOpening {
    double z0_m = 0, z1_m = 0;
    double area_m2 = 0;
    double discharge = kOrificeDischarge;  ///< Q = discharge · area · √(2Δp/ρ)
};
/// The discharge coefficient of a slot `gap_m` wide and `length_m` long (the gap under a cabinet, or between two
/// cabinets side by side): 1/√(K_in + K_out + λ·L/D_h) with a sharp entry (K 0.5) and the exit's dynamic pressure
/// lost (K 1; Idelchik), D_h = 2 · gap, λ = 0.04 (smooth channel, Re 2,000–10,000: laminar 64/Re 0.032 at 2,000,
/// Blasius 0.043 at 3,000).
double slotDischarge(double gap_m, double length_m);

/// A gap between two cabinets standing side by side in a row and facing the same way: the hot aisle's air passes
/// through it to the cold one (Upsite Technologies, Dangers of Exhaust Air Circulation: between adjacent
/// cabinets). Racks `a` and `b` are indices into the row's racks; the gap is as high as the lower cabinet and as
/// deep as the two overlap.
struct CabinetGap {
    std::size_t a = 0, b = 0;
    double width_m = 0, height_m = 0, depth_m = 0;
};
/// The widest gap between cabinets taken as one (wider is an aisle of its own, whatever the grid).
inline constexpr double kMaxCabinetGapM = 0.1;
/// The gaps of at most kMaxCabinetGapM between neighbouring cabinets of a row (of known rack models).
std::vector<CabinetGap> cabinetGaps(const Row& row, const Catalog& cat);
/// The open area from a rack's back to its front (models.md §3): every empty U (or empty share of a chassis's
/// slots) a 450 × 44.45 mm opening (EIA-310: the clear width between the rails) times its blanking's open
/// share; where the blanking leaves the sides open, the gaps between the 482.6 mm rail flanges and the
/// cabinet's sides (its width less 20 mm of side panel each side) over the rails' height; and unless the
/// blanking seals it, the gap under the cabinet (the rack's `floor_gap_m`, else its model's) over its width, a
/// channel as deep as the rack (slotDischarge), and half of each gap `beside` it (cabinetGaps(); the caller
/// passes those its air grid cannot hold). Empty for a rack without a blanking, with a fixed recirculation, or
/// of an unknown model.
std::vector<RackOpening> rackOpenings(const Rack& r, const Catalog& cat, const std::vector<CabinetGap>& beside = {});
/// Their total area (m²).
double rackOpenArea(const Rack& r, const Catalog& cat, const std::vector<CabinetGap>& beside = {});

/// Whether a cooling unit stands in a row (its model is an in-row cooler).
bool isInRow(const CoolingUnit& u, const Catalog& cat);

}  // namespace ct::model
