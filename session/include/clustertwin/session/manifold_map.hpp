#pragma once
// Manifold mapping (Echeverría & Hemker, "Manifold mapping: a two-level optimization technique", Computing and
// Visualization in Science 11, 2008): a cheap (coarse) model's responses mapped onto an expensive (fine) one's,
// so that an optimiser can search on the coarse model and still converge to the fine model's optimum.
//
// With fine runs f_0..f_k and coarse runs c_0..c_k at the same parameters (k the latest, the reference), a coarse
// response c maps to  f_k + S (c − c_k),  S = ΔF ΔC⁺ + (I − P_F)(I − P_C),  where the columns of ΔF and ΔC are
// f_j − f_k and c_j − c_k and P_F, P_C project onto their spans. With one pair S = I: output space mapping, the
// coarse model shifted to equal the fine one at the reference. With more, S also matches the fine model's change
// along the directions the runs explored, which is what makes the fixed point the fine model's optimum.
#include <cstddef>
#include <vector>

namespace ct::session {

class ManifoldMap {
public:
    /// At most this many earlier pairs besides the reference (the number of parameters is enough; older ones
    /// describe the model far from where the search is).
    explicit ManifoldMap(std::size_t history = 4) : history_(history) {}

    /// A fine response and the coarse one at the same parameters, of the same length as the earlier ones (NaN:
    /// a sample missing; it counts as no difference). It becomes the reference.
    void add(std::vector<double> fine, std::vector<double> coarse);
    /// The coarse response mapped onto the fine model; unchanged while nothing was added.
    std::vector<double> map(const std::vector<double>& coarse) const;
    std::size_t pairs() const { return fine_.size(); }
    /// The directions in use (ΔC's independent columns).
    std::size_t rank() const { return cols_.size(); }

private:
    void rebuild();

    std::size_t history_;
    std::vector<std::vector<double>> fine_, coarse_;  ///< oldest first; the last is the reference
    // ΔC = Qc·R (modified Gram–Schmidt, dependent columns dropped), ΔF's kept columns, Qf of ΔF.
    std::vector<std::size_t> cols_;  ///< the pairs whose differences are kept
    std::vector<std::vector<double>> qc_, qf_, df_;
    std::vector<std::vector<double>> r_;  ///< upper triangular, r_[i][j] for j ≥ i
};

}  // namespace ct::session
