#pragma once
// What each kind of alert means: its severity, the title a person reads and the metric its value is in
// (for the number format of model/metrics). The engine raises them (sim), the store keeps them with their
// value and threshold, and the app lists, groups and filters them by this table.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ct::model {

enum class AlertSeverity { Info = 0, Warning = 1, Critical = 2 };

struct AlertKindInfo {
    std::string kind;   ///< "inlet_high"
    std::string title;  ///< "Inlet above 27 °C"
    AlertSeverity severity = AlertSeverity::Warning;
    std::string metric;  ///< the metric its value and threshold are in ("inlet_max_c"); "" when it has none
    std::string about;   ///< what to do about it, one line
};

/// The table's entry; an unknown kind is a warning titled after its id.
AlertKindInfo alertKind(std::string_view kind);
const std::vector<AlertKindInfo>& alertKinds();
/// "info", "warning", "critical".
const char* toString(AlertSeverity s);
/// The inverse of toString; nullopt for anything else.
std::optional<AlertSeverity> parseSeverity(std::string_view s);
/// An alert's severity: its own (an alert rule's, stored with it) when it has one, else its kind's.
AlertSeverity severityOf(std::string_view kind, std::string_view own = {});

}  // namespace ct::model
