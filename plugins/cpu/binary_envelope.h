// binary_envelope.h: the self-validating wrapper around the shared object that program_binary
// returns ("elf-so"). A host cache can hand back a truncated or corrupted file; dlopen() of a
// truncated ELF dies of SIGBUS instead of failing, so program_load checks the envelope first.
//
// The envelope is the kit's (plugins/kit/binary_envelope.h: layout version 2, magic "TGCPUBIN",
// no fingerprint); these functions are the plugin's names for it.
#ifndef TG_PLUGINS_CPU_BINARY_ENVELOPE_H_
#define TG_PLUGINS_CPU_BINARY_ENVELOPE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tg_cpu {

// FNV-1a, 64-bit (tg_kit::Fnv1a64): catches truncation and bit flips, not a deliberate forgery.
uint64_t Fnv1a64(std::string_view bytes);

// |payload| behind a header that lets UnsealBinary verify it.
std::string SealBinary(std::string_view payload);

// Checks magic, version, exact length and checksum of |sealed|. On success |*payload| views the
// bytes inside |sealed|; otherwise returns false and |*why| says truncated, corrupt or foreign.
bool UnsealBinary(std::string_view sealed, std::string_view* payload, std::string* why);

// The same guarantee for the shared objects in the plugin's own file cache (<cache>/cpu/<key>.so),
// which dlopen() must read in place, so the check goes at the end: a 24-byte trailer (magic
// "TGCPUSUM", uint64 payload length, uint64 FNV-1a-64 of the payload) after the ELF bytes. The
// dynamic loader maps segments by their offsets and never looks at trailing bytes.
std::string AppendTrailer(std::string_view payload);
// Checks the trailer of a cached file; on success |*payload| views the ELF bytes before it. A file
// that fails is rebuilt by the caller: written half-way by a crashed process, damaged on disk, or
// left by an older plugin version without a trailer.
bool CheckTrailer(std::string_view file, std::string_view* payload, std::string* why);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_BINARY_ENVELOPE_H_
