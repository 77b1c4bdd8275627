#pragma once
// SHA-256 (FIPS 180-4) for run identities and checkpoint file hashes: stable across builds and machines,
// unlike std::hash.
#include <cstdint>
#include <string>
#include <string_view>

namespace ss {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t n);
    void update(std::string_view s) { update(s.data(), s.size()); }
    /// Lower-case hex of the 32-byte digest. Ends the hash: call once.
    std::string hex();

private:
    uint32_t m_h[8];
    unsigned char m_buf[64];
    uint64_t m_bits = 0;
    size_t m_used = 0;
    void block(const unsigned char* p);
};

/// Hex SHA-256 of a string.
std::string sha256Hex(std::string_view s);
/// Hex SHA-256 of a file's bytes; "" when it cannot be read.
std::string sha256File(const std::string& path);

} // namespace ss
