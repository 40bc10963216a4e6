// See number_words.h.
#include "analyze/number_words.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "common/text.h"

namespace proofload::analyze::words {

std::string fixed_words(double value, int decimals) {
  int d = decimals;
  while (d < 6 && value != 0 &&
         std::strtod(fmt::format("{:.{}f}", value, d).c_str(), nullptr) == 0) {
    ++d;
  }
  std::string text = fmt::format("{:.{}f}", value, d);
  if (text.starts_with("-") && std::strtod(text.c_str(), nullptr) == 0) text.erase(0, 1);
  return group_thousands(text);
}

std::string given_words(double value) {
  std::string text = fixed_words(value, 3);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

std::string count_words(double count) { return fixed_words(std::round(count), 0); }
std::string rate_words(double rate) {
  return fixed_words(rate, std::abs(rate) >= 100 ? 0 : 1) + "/s";
}
std::string given_rate_words(double rate) { return given_words(rate) + "/s"; }
std::string share_words(double share) { return given_words(share * 100) + "%"; }
std::string seconds_words(double seconds) { return given_words(seconds) + " s"; }

std::string list_words(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace proofload::analyze::words
