// See ladder_flags.h.
#include "cli/ladder_flags.h"

#include <cmath>

#include "cli/subcommand.h"
#include "common/usage_error.h"

namespace proofload::cli {

void add_judgement_flags(CLI::App* app, JudgementFlags& flags) {
  app->add_option("--slo", flags.slo,
                  "Bounds every level must meet (default 'p95<=1s,errors<=1%')");
  app->add_option("--count-429", flags.count_429,
                  "error (429s count as errors, the default) or apart");
  add_hidden_alias(app, "--429", flags.count_429);
  app->add_option("--noise-floor", flags.noise_floor,
                  "Run-to-run noise of throughput when not measured from repeats (default 5%)");
  app->add_option("--operating-fraction", flags.operating_fraction,
                  "Recommended operating target as a share of the knee (default 50%)");
}

double parse_fraction(const std::string& flag, const std::string& text) {
  std::string number = text;
  double scale = 1;
  if (!number.empty() && number.back() == '%') {
    number.pop_back();
    scale = 0.01;
  }
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(number, &used) * scale;
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != number.size() || !std::isfinite(value) || value <= 0 || value > 1) {
    throw UsageError(flag + " must be a share above 0 and at most 100% ('6.7%' or 0.067), got '" +
                     text + "'");
  }
  return value;
}

Judgement parse_judgement(const JudgementFlags& f) {
  if (f.count_429 != "error" && f.count_429 != "apart") {
    throw UsageError("--count-429 must be 'error' (429s count as errors) or 'apart', got '" +
                     f.count_429 + "'");
  }
  Judgement j;
  j.slo = analyze::parse_slo(f.slo ? *f.slo : std::string(analyze::kDefaultSlo),
                             f.count_429 == "error");
  j.slo.is_default = !f.slo;
  if (f.noise_floor) j.analysis.noise_floor = parse_fraction("--noise-floor", *f.noise_floor);
  j.analysis.operating_fraction = parse_fraction("--operating-fraction", f.operating_fraction);
  return j;
}

void record_judgement(const Judgement& j, result::LadderSettings& settings) {
  settings.slo = j.slo.text;
  settings.slo_is_default = j.slo.is_default;
  settings.count_429_as_error = j.slo.count_429_as_error;
  settings.noise_floor = j.analysis.noise_floor;
  settings.operating_fraction = j.analysis.operating_fraction;
}

}  // namespace proofload::cli
