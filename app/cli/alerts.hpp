#pragma once
// clustertwin-cli alerts: alert rules (built-in or a rules file) evaluated on a run of a database.
#include "args.hpp"

#include <memory>
#include <string>

namespace ct::importers {
struct AlertRuleSet;
}

namespace ct::cli {

extern const char* kAlertsHelp;
int cmdAlerts(const Args& a);
/// --rules FILE read for import and alerts; a bad file is invalid input (exit 2) naming the file and pointer.
std::shared_ptr<const importers::AlertRuleSet> loadRulesOption(const std::string& path);

}  // namespace ct::cli
