#ifndef CAIRN_HOCON_INTERNAL_EXCERPT_H_
#define CAIRN_HOCON_INTERNAL_EXCERPT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace cairn::hocon::internal {

// The most bytes of quoted input an error message shows in one place.
inline constexpr std::size_t kMaxExcerptBytes = 60;
// File names get more: they come from the file system (and are bounded by
// it) or are the name written in an include statement.
inline constexpr std::size_t kMaxFileNameExcerptBytes = 256;

// How an error message quotes input (a token, a key, a path, a
// substitution's name, a file name or contents, a value's text): `text`
// itself when it has at most `max_bytes` bytes; otherwise its start (whole
// UTF-8 characters) followed by "...", and its length:
// `aaaaaaaa...(10485760 bytes)`. Every error that quotes input goes
// through here, so a hostile input cannot make a message long.
std::string Excerpt(std::string_view text,
                    std::size_t max_bytes = kMaxExcerptBytes);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_EXCERPT_H_
