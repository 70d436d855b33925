// libFuzzer target for one telemetry parser (CT_FUZZ_PARSER picks it; one executable per parser). Built with
// clang when CT_FUZZ=ON (scripts/fuzz); the parsers must never crash, hang or leak on any input.
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

namespace im = ct::importers;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::istringstream in(text);
    im::ParseOptions opt;
    opt.file_name = "fuzz";
    opt.default_time_s = 1e9;
#if defined(CT_FUZZ_SACCT)
    (void)im::parseSacct(in, opt, "JobID,JobName,User,Partition,NodeList,State,Submit,Start,End,AllocTRES");
#elif defined(CT_FUZZ_SLURM_JSON)
    (void)im::parseSlurmJson(in, opt);
#elif defined(CT_FUZZ_HOSTLIST)
    try {
        (void)im::expandHostlist(text);
    } catch (const im::ImportError&) {
    }
#else
    (void)CT_FUZZ_PARSER(in, opt, {}, size);
#endif
    return 0;
}
