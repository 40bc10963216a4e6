// A sizing's summary.md (see sizing_report.h).
#include "report/sizing_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "analyze/ladder_analysis.h"
#include "report/markdown_text.h"
#include "words/numbers.h"

namespace proofload::report {
namespace {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
using result::SizingConfigRecord;
using result::SizingResult;

std::optional<double> figure(const SizingConfigRecord& c, bool per_core) {
  return per_core ? c.per_core_rps : c.best_sustained_rps;
}

double floor_of(const SizingConfigRecord& c) {
  return c.noise_floor.value_or(analyze::kDefaultNoiseFloor);
}

std::string memory_text(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return fixed(bytes / (1024.0 * 1024 * 1024), 2) + " GiB";
  return fixed(bytes / (1024.0 * 1024), 1) + " MiB";
}

std::string cores_cell(const SizingConfigRecord& c) {
  return c.cores ? cores_text(*c.cores) : std::string(kNotMeasured);
}

// The widest noise floor any configuration was judged with: what a difference must exceed.
double widest_floor(const SizingResult& r) {
  double widest = 0;
  for (const SizingConfigRecord& c : r.configs) {
    if (c.best_sustained_rps) widest = std::max(widest, floor_of(c));
  }
  return widest > 0 ? widest : analyze::kDefaultNoiseFloor;
}

std::string lead_answer(const SizingResult& r, const SizingLead& lead, bool per_core) {
  if (!lead.first) {
    return per_core ? "Not known: no configuration with known cores met the SLO"
                    : "None: no configuration met the SLO at any level";
  }
  const SizingConfigRecord& a = r.configs[*lead.first];
  const std::string unit = per_core ? "/s per core" : "/s";
  std::string out =
      fmt::format("{}: {}{}", inline_code(a.name), rate_number(*figure(a, per_core)), unit);
  if (!lead.second || !lead.gain) return out + " (the only one with the figure)";
  const SizingConfigRecord& b = r.configs[*lead.second];
  out += fmt::format("; next {}: {}{}, {}{} ", inline_code(b.name),
                     rate_number(*figure(b, per_core)), unit, "+", percent_text(*lead.gain, 1));
  out += lead.beyond_noise
             ? fmt::format("(beyond the {} noise floor)", percent_text(lead.noise_floor, 1))
             : fmt::format("(inside the {} noise floor: level, not a finding)",
                           percent_text(lead.noise_floor, 1));
  return out;
}

void title_and_scope(std::string& out, const SizingResult& r) {
  const result::SizingSettings& s = r.settings;
  out += "# Sizing: which shape carries most?\n\n";
  std::vector<std::string> names;
  for (const SizingConfigRecord& c : r.configs) names.push_back(inline_code(c.name));
  out += fmt::format("Target {}. {} configuration{}: {}. Each ran {}",
                     r.source.target.empty() ? "not recorded" : inline_code(r.source.target),
                     r.configs.size(), r.configs.size() == 1 ? "" : "s", list_text(names),
                     s.search ? std::string("a rate search")
                              : fmt::format("a {} loop ladder over levels {}, each held {}", s.loop,
                                            levels_text(s.levels), seconds_text(s.hold_s)));
  out += fmt::format(", judged against the SLO {}.\n", inline_code(s.slo));
  out += fmt::format("Applied by {}, restored once at the end by {}{}.\n",
                     s.apply ? inline_code(*s.apply) : std::string("no hook"),
                     s.restore ? inline_code(*s.restore) : std::string("no hook"),
                     s.ready_until ? ", ready when " + inline_code(*s.ready_until) : "");
  out += fmt::format("Started {}, proofload {}.",
                     r.started_at.empty() ? "at a time not recorded" : r.started_at,
                     r.proofload_version);
  if (r.status != "complete") {
    out += fmt::format(" Ended {}: {}.", r.status,
                       r.end_reason.empty() ? "no reason recorded" : r.end_reason);
  }
  out += "\n\n";
}

void short_version(std::string& out, const SizingResult& r) {
  const SizingLead total = sizing_lead(r.configs, false);
  const SizingLead per_core = sizing_lead(r.configs, true);
  out += "## The short version\n\n| Question | Answer | Evidence |\n| --- | --- | --- |\n";
  auto evidence = [&](const SizingLead& lead) {
    if (!lead.first) return std::string("sizing.configs[]");
    const SizingConfigRecord& c = r.configs[*lead.first];
    return fmt::format("{}, level {}", c.directory, level_text(c.best_level.value_or(0)));
  };
  out += table_row({"Which shape carries most in total (best sustained within the SLO)?",
                    table_cell(lead_answer(r, total, false)), evidence(total)});
  out += table_row({"Which carries most per core of limit?",
                    table_cell(lead_answer(r, per_core, true)), evidence(per_core)});
  out += table_row({"How much is noise?",
                    fmt::format("One run per cell: differences under {} are not findings",
                                percent_text(widest_floor(r), 1)),
                    "each configuration's noise floor"});
  std::vector<std::string> busy;
  std::vector<std::string> saturated;
  for (const SizingConfigRecord& c : r.configs) {
    if (c.generator_busy) busy.push_back(inline_code(c.name));
    if (c.host_saturated) saturated.push_back(inline_code(c.name));
  }
  std::string limit = busy.empty() ? "No configuration flagged the generator"
                                   : "Maybe, in " + list_text(busy) +
                                         ": it used 80% or more of its cores at a level";
  if (!saturated.empty()) {
    limit += (busy.empty() ? "; but the host may have been, in " : "; and the host may have been, in ") +
             list_text(saturated) + ": its CPU was saturated (" +
             percent_text(analyze::kHostSaturatedShare, 0) +
             " or more of all its cores busy) at a level, shared by the generator and the "
             "instances";
  }
  out += table_row({saturated.empty() ? "Was the generator the limit?"
                                      : "Was the generator or the host the limit?",
                    limit, saturated.empty() ? "observers (self)" : "observers (self, host)"});
  out += "\n";
}

// The shape's CPU was observed for fewer of its instances than it has.
bool partly_observed(const SizingConfigRecord& c) {
  return c.instances && c.cpu_instances_observed && *c.cpu_instances_observed < *c.instances;
}

void configs_table(std::string& out, const SizingResult& r) {
  bool any_partly = false;
  out += "## The configurations\n\n";
  out +=
      "| configuration | cores | best sustained/s | p95 ms | per core/s | peak/s | knee | "
      "cores used | throttled | peak memory | generator | status |\n";
  out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n";
  auto cell = [](const std::optional<double>& v, auto format) {
    return v ? format(*v) : std::string(kNotMeasured);
  };
  for (const SizingConfigRecord& c : r.configs) {
    std::string used = cell(c.server_cores_max, cores_text);
    if (c.server_cores_max && partly_observed(c)) {
      used += fmt::format(" ({} of {} instances)", *c.cpu_instances_observed, *c.instances);
      any_partly = true;
    }
    std::string generator = c.generator_busy ? "busy" : "ok";
    if (c.host_saturated) generator += ", host saturated";
    out += table_row({table_cell(c.name), cores_cell(c), cell(c.best_sustained_rps, rate_number),
                      cell(c.best_p95_ms, [](double ms) { return fixed(ms, ms_decimals(ms)); }),
                      cell(c.per_core_rps, rate_number), cell(c.peak_rps, rate_number),
                      c.knee_level ? level_text(*c.knee_level) : std::string("none"), used,
                      cell(c.throttled_share, [](double v) { return percent_text(v, 1); }),
                      cell(c.memory_peak_bytes, memory_text), generator,
                      c.status.empty() ? "not run" : c.status});
  }
  out +=
      "\np95 ms: latency at the best sustained level; cores used: the server's highest mean CPU "
      "at a level, every observed instance's added; throttled: the highest share of CPU periods "
      "in which the cgroup was throttled, at any level; peak memory: the most any server "
      "observer saw. Each configuration's ladder, with its levels, is in its own directory "
      "(`proofload report` reads it).";
  if (any_partly) {
    out +=
        " (N of M instances): the CPU of only N of the shape's M instances was observed, so "
        "its cores used and CPU per request leave the others out; observe each with "
        "`${INSTANCE}` in the spec.";
  }
  out += "\n\n";
}

void findings(std::string& out, const SizingResult& r) {
  out += "## Findings\n\n";
  for (const SizingConfigRecord& c : r.configs) {
    if (c.status.empty()) {
      out += fmt::format("- {} did not run.\n", inline_code(c.name));
      continue;
    }
    std::string line = fmt::format("- {}: ", inline_code(c.name));
    if (c.best_sustained_rps) {
      line += fmt::format("best sustained {} at level {}", rate_text(*c.best_sustained_rps),
                          level_text(c.best_level.value_or(0)));
      line += c.per_core_rps
                  ? fmt::format(" ({} per core of {} cores, from {})", rate_text(*c.per_core_rps),
                                cores_text(*c.cores), c.cores_basis)
                  : " (per core not known: its cores are not; give --cores NAME=N)";
    } else {
      line += "no level met the SLO";
    }
    line += c.knee_level ? fmt::format("; knee at level {}", level_text(*c.knee_level))
                         : "; no knee within the levels tested";
    if (c.throttled_share && *c.throttled_share > 0) {
      line += fmt::format(
          "; its CPU quota was reached: its cgroup was throttled in up to {} of "
          "CPU periods (measured)",
          percent_text(*c.throttled_share, 1));
    } else if (c.throttled_share) {
      line += "; never throttled (measured)";
    }
    if (c.status != "complete")
      line += fmt::format(". Its ladder ended {}: {}", c.status, c.end_reason);
    out += line + ".\n";
  }
  out += "\n";
}

void not_shown(std::string& out, const SizingResult& r) {
  out += "## What this does not show\n\n";
  out += fmt::format(
      "- One ladder per configuration, run one after the other: no variance between runs of a "
      "cell, so differences under {} are not findings, and a drift of the host over the sizing "
      "is not separated from the shapes.\n",
      percent_text(widest_floor(r), 1));
  const bool any_throttle = std::any_of(r.configs.begin(), r.configs.end(),
                                        [](const auto& c) { return c.throttled_share; });
  const bool any_memory = std::any_of(r.configs.begin(), r.configs.end(),
                                      [](const auto& c) { return c.memory_peak_bytes; });
  if (!any_throttle) {
    out +=
        "- No cgroup was observed (`--observe cgroup:...`): nothing here says whether a CPU "
        "limit throttled the service.\n";
  }
  if (!any_memory) out += "- No observer reported memory: peak memory is not measured.\n";
  for (const SizingConfigRecord& c : r.configs) {
    if (!partly_observed(c)) continue;
    out += fmt::format(
        "- {}: the CPU of only {} of its {} instances was observed; its cores used and each "
        "level's CPU per request and requests/s per core of CPU used leave the others out.\n",
        inline_code(c.name), *c.cpu_instances_observed, *c.instances);
  }
  if (std::any_of(r.configs.begin(), r.configs.end(), [](const auto& c) { return !c.cores; })) {
    out += "- Configurations whose cores are not known have no per-core figure.\n";
  }
  if (r.settings.loop == "closed") {
    out +=
        "- Closed loop measures what each shape accepts, not what happens when demand does "
        "not wait.\n";
  }
  out +=
      "- Server figures come from the first observer that measures them; a shape of several "
      "instances, each in its own cgroup, shows the throttling of the one observed.\n\n";
}

}  // namespace

SizingLead sizing_lead(const std::vector<SizingConfigRecord>& configs, bool per_core) {
  SizingLead lead;
  for (size_t i = 0; i < configs.size(); ++i) {
    const std::optional<double> v = figure(configs[i], per_core);
    if (!v) continue;
    if (!lead.first || *v > *figure(configs[*lead.first], per_core)) {
      lead.second = lead.first;
      lead.first = i;
    } else if (!lead.second || *v > *figure(configs[*lead.second], per_core)) {
      lead.second = i;
    }
  }
  if (lead.first && lead.second) {
    const double a = *figure(configs[*lead.first], per_core);
    const double b = *figure(configs[*lead.second], per_core);
    lead.noise_floor = std::max(floor_of(configs[*lead.first]), floor_of(configs[*lead.second]));
    if (b > 0) {
      lead.gain = a / b - 1;
      lead.beyond_noise = *lead.gain > lead.noise_floor;
    }
  }
  return lead;
}

std::string render_sizing_summary(const SizingResult& r) {
  std::string out;
  title_and_scope(out, r);
  short_version(out, r);
  configs_table(out, r);
  findings(out, r);
  not_shown(out, r);
  out += "## Reproduce\n\n";
  out += command_block(r.command_line);
  out += "Re-render this report from the recorded data: `proofload report DIR`.\n";
  return out;
}

}  // namespace proofload::report
