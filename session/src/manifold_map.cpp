// Manifold mapping (manifold_map.hpp): S v = ΔF ΔC⁺ v + (I − P_F)(I − P_C) v, with ΔC⁺ v from ΔC's QR.
#include <clustertwin/session/manifold_map.hpp>

#include <cmath>
#include <stdexcept>

namespace ct::session {

namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

/// a − b with a missing sample (NaN on either side) as no difference.
std::vector<double> diff(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> d(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) d[i] = std::isnan(a[i]) || std::isnan(b[i]) ? 0.0 : a[i] - b[i];
    return d;
}

/// Orthogonalises v against q (modified Gram–Schmidt, twice for accuracy); the coefficients added to `coef`.
void orthogonalise(std::vector<double>& v, const std::vector<std::vector<double>>& q, std::vector<double>* coef) {
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t j = 0; j < q.size(); ++j) {
            const double c = dot(q[j], v);
            for (std::size_t i = 0; i < v.size(); ++i) v[i] -= c * q[j][i];
            if (coef) (*coef)[j] += c;
        }
}

}  // namespace

void ManifoldMap::add(std::vector<double> fine, std::vector<double> coarse) {
    if (fine.size() != coarse.size() || (!fine_.empty() && fine.size() != fine_.front().size()))
        throw std::invalid_argument("manifold mapping: responses of different lengths");
    fine_.push_back(std::move(fine));
    coarse_.push_back(std::move(coarse));
    while (fine_.size() > history_ + 1) {
        fine_.erase(fine_.begin());
        coarse_.erase(coarse_.begin());
    }
    rebuild();
}

void ManifoldMap::rebuild() {
    cols_.clear();
    qc_.clear();
    qf_.clear();
    df_.clear();
    r_.clear();
    const std::size_t k = fine_.size() - 1;
    for (std::size_t j = 0; j < k; ++j) {
        std::vector<double> dc = diff(coarse_[j], coarse_[k]);
        const double norm = std::sqrt(dot(dc, dc));
        std::vector<double> coef(qc_.size(), 0.0);
        orthogonalise(dc, qc_, &coef);
        const double rest = std::sqrt(dot(dc, dc));
        if (!(rest > 1e-9 * norm) || !(norm > 0)) continue;  // no new direction: this pair adds nothing
        for (double& v : dc) v /= rest;
        coef.push_back(rest);
        for (std::size_t i = 0; i < r_.size(); ++i) r_[i].push_back(coef[i]);
        r_.push_back(std::vector<double>(coef.size(), 0.0));
        r_.back().back() = rest;
        qc_.push_back(std::move(dc));
        cols_.push_back(j);
        df_.push_back(diff(fine_[j], fine_[k]));
        std::vector<double> qf = df_.back();
        const double fnorm = std::sqrt(dot(qf, qf));
        orthogonalise(qf, qf_, nullptr);
        const double frest = std::sqrt(dot(qf, qf));
        if (frest > 1e-9 * fnorm && fnorm > 0) {
            for (double& v : qf) v /= frest;
            qf_.push_back(std::move(qf));
        }
    }
}

std::vector<double> ManifoldMap::map(const std::vector<double>& coarse) const {
    if (fine_.empty()) return coarse;
    if (coarse.size() != fine_.back().size()) throw std::invalid_argument("manifold mapping: a response of another length");
    const std::vector<double> v = diff(coarse, coarse_.back());
    // a = ΔC⁺ v = R⁻¹ Qcᵀ v; w = (I − P_C) v, then (I − P_F) w.
    const std::size_t n = qc_.size();
    std::vector<double> y(n);
    for (std::size_t j = 0; j < n; ++j) y[j] = dot(qc_[j], v);
    std::vector<double> a(n, 0.0);
    for (std::size_t i = n; i-- > 0;) {
        double s = y[i];
        for (std::size_t j = i + 1; j < n; ++j) s -= r_[i][j] * a[j];
        a[i] = s / r_[i][i];
    }
    std::vector<double> w = v;
    orthogonalise(w, qc_, nullptr);
    orthogonalise(w, qf_, nullptr);
    std::vector<double> out = fine_.back();
    for (std::size_t i = 0; i < out.size(); ++i) {
        double s = w[i];
        for (std::size_t j = 0; j < n; ++j) s += df_[j][i] * a[j];
        out[i] = std::isnan(out[i]) ? coarse[i] : out[i] + s;
    }
    return out;
}

}  // namespace ct::session
