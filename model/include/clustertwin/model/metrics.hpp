#pragma once
// One table of the metrics a run or an import records: the name a person reads, the unit it is shown in, how
// many decimals, and the order that puts what matters first (power, temperatures, utilisation). The inspector,
// the charts, the alert list and docs/metrics.md all read it; CSV and JSON exports keep the stored ids and units
// (`power_w`, W) so that other tools can parse them, and this table says what each one is.
#include <string>
#include <string_view>
#include <vector>

namespace ct::model {

/// How a stored unit is shown. Power and energy pick W/kW/MW (J/kJ/MJ…) from the value; the others are fixed.
enum class MetricScale { Fixed, Power, Energy };

struct MetricInfo {
    std::string id;           ///< the stored name: "power_w"
    std::string name;         ///< what a person reads: "Power"
    std::string stored_unit;  ///< as stored: "W", "degC", "ratio", "percent", "s", "MHz", "count", ""
    std::string unit;         ///< as shown: "kW", "°C", "%", "s", "MHz", "" (Power/Energy: chosen per value)
    double factor = 1;        ///< shown = stored × factor (Fixed only)
    int decimals = 1;
    int rank = 900;  ///< smaller first; unknown metrics come last, alphabetically
    MetricScale scale = MetricScale::Fixed;
    std::string about;   ///< one line for the docs and tooltips
    bool known = false;  ///< false: derived from the id and unit alone
};

/// The metric's entry: from the table when known, else derived from the id ("ecc_errors_uncorrected" ->
/// "ECC errors uncorrected") and the stored unit. `stored_unit` may be empty (then the table's is used).
MetricInfo metricInfo(std::string_view id, std::string_view stored_unit = {});

/// Every metric the engine and the importers write, in display order (for docs/metrics.md and its test).
const std::vector<MetricInfo>& knownMetrics();

/// The value as shown, with its unit: "12.4 kW", "27.3 °C", "85 %", "—" for NaN. Counts and ids that are large
/// integers print as integers, never in exponent form.
std::string formatMetric(double stored_value, const MetricInfo& m);

/// For an axis or a colour bar over values up to `max_abs` (stored units): the factor from stored to shown units
/// and the unit label ("kW" for 40,000 W, "MW" for 4e6 W).
struct AxisUnit {
    double factor = 1;
    std::string unit;
};
AxisUnit axisUnit(const MetricInfo& m, double max_abs);

/// Sorts metric ids into display order (rank, then name).
void sortMetrics(std::vector<std::string>& ids);

/// "Nice" axis ticks: at most about `max_ticks` round values (1, 2, 2.5 or 5 × 10^n steps) covering [lo, hi],
/// each printed with the same, smallest number of decimals that tells them apart.
struct Ticks {
    double first = 0, step = 1;
    int count = 0;
    int decimals = 0;
};
Ticks niceTicks(double lo, double hi, int max_ticks = 6);

}  // namespace ct::model
