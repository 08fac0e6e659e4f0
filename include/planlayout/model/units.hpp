// Unit conversions of the performance model: SI and binary prefixes and bits per byte. These are
// definitions, not numbers that set a time or memory, so they live here rather than in the
// registry; tests/lint/model_numbers.py allows nothing else in this file.
#pragma once

namespace planlayout::units {

inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kMilli = 1e-3;
inline constexpr double kMicro = 1e-6;
inline constexpr double kNano = 1e-9;
inline constexpr double kPico = 1e-12;
inline constexpr double kKibi = 1024.0;
inline constexpr double kMebi = 1024.0 * 1024.0;
inline constexpr double kGibi = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kBitsPerByte = 8.0;

}  // namespace planlayout::units
