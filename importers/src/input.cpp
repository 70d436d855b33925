#include "input.hpp"

#include <zlib.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <streambuf>

namespace ct::importers::detail {

/// A read-only streambuf over a gzFile, 64 KiB at a time.
class InputFile::GzBuf : public std::streambuf {
public:
    GzBuf(const std::string& path) : path_(path), f_(gzopen(path.c_str(), "rb")) {
        if (!f_) throw ImportError(path + ": cannot open");
        gzbuffer(f_, 128 * 1024);
    }
    ~GzBuf() override {
        if (f_) gzclose(f_);
    }
    GzBuf(const GzBuf&) = delete;
    GzBuf& operator=(const GzBuf&) = delete;

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const int n = gzread(f_, buf_.data(), static_cast<unsigned>(buf_.size()));
        if (n < 0) {
            int err = 0;
            const char* msg = gzerror(f_, &err);
            throw ImportError(path_ + ": cannot decompress: " + (msg ? msg : "zlib error"));
        }
        if (n == 0) {
            // A stream cut short ends without its trailer: say so instead of importing a silent prefix.
            int err = 0;
            gzerror(f_, &err);
            if (err == Z_BUF_ERROR) throw ImportError(path_ + ": the compressed file is truncated");
            return traits_type::eof();
        }
        setg(buf_.data(), buf_.data(), buf_.data() + n);
        return traits_type::to_int_type(*gptr());
    }

private:
    std::string path_;
    gzFile f_;
    std::array<char, 64 * 1024> buf_{};
};

InputFile::InputFile(const std::string& path) {
    std::ifstream probe(path, std::ios::binary);
    if (!probe) throw ImportError(path + ": cannot open");
    unsigned char magic[2] = {0, 0};
    probe.read(reinterpret_cast<char*>(magic), 2);
    const bool compressed = probe.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    const auto slash = path.find_last_of('/');
    name_ = slash == std::string::npos ? path : path.substr(slash + 1);
    if (compressed) {
        if (name_.size() > 3 && name_.compare(name_.size() - 3, 3, ".gz") == 0) name_.resize(name_.size() - 3);
        gz_ = std::make_unique<GzBuf>(path);
        stream_ = std::make_unique<std::istream>(gz_.get());
        stream_->exceptions(std::ios::badbit);  // GzBuf's ImportError reaches the caller instead of a silent end
    } else {
        std::error_code ec;
        const auto size = std::filesystem::file_size(path, ec);
        size_hint_ = ec ? 0 : size;
        probe.seekg(0);
        stream_ = std::make_unique<std::ifstream>(std::move(probe));
    }
}

InputFile::~InputFile() {
    stream_.reset();  // before the buffer it reads
}

}  // namespace ct::importers::detail
