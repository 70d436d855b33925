#include <clustertwin/model/data_paths.hpp>

#include <cstdlib>
#include <filesystem>

namespace ct::model {

namespace {

namespace fs = std::filesystem;

fs::path exeDir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

bool inBuildTree(const fs::path& exe_dir) {
    std::error_code ec;
    const std::string build = fs::weakly_canonical(CT_BUILD_DIR, ec).string();
    return !exe_dir.empty() && fs::weakly_canonical(exe_dir, ec).string().rfind(build, 0) == 0;
}

/// The first of `dirs` holding `marker`, canonical; empty when none does.
std::string firstWith(std::initializer_list<fs::path> dirs, const char* marker) {
    std::error_code ec;
    for (const fs::path& d : dirs)
        if (!d.empty() && fs::exists(d / marker, ec)) return fs::weakly_canonical(d, ec).string();
    return {};
}

}  // namespace

std::string resourceDir() {
    const char* env = std::getenv("CT_RESOURCE_DIR");
    const fs::path dir = exeDir();
    return firstWith({env && *env ? fs::path(env) : fs::path(), dir.empty() ? fs::path() : dir / "../share/clustertwin/resources",
                      inBuildTree(dir) ? fs::path(CT_SOURCE_RESOURCE_DIR) : fs::path()},
                     "scenarios/demo.json");
}

std::string documentationDir() {
    const fs::path dir = exeDir();
    return firstWith({dir.empty() ? fs::path() : dir / "../share/doc/clustertwin",
                      inBuildTree(dir) ? fs::path(CT_SOURCE_RESOURCE_DIR) / "../docs" : fs::path()},
                     "simulation.md");
}

}  // namespace ct::model
