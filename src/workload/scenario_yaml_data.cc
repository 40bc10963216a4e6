// The `data:` section of a scenario file (see scenario_yaml_parts.h and docs/scenario.md): one
// kind per variable, its options and ranges; lists, line files and CSV columns are read here,
// so an unreadable file or a missing column is a parse error. Throws UsageError only.
#include <algorithm>
#include <array>
#include <limits>

#include "common/usage_error.h"
#include "workload/data_source.h"
#include "workload/default_words.h"
#include "workload/scenario_yaml_parts.h"
#include "workload/template.h"

namespace proofload::workload::scenario_yaml {
namespace {

constexpr std::array<std::string_view, 8> kDataKinds = {"values", "file", "int",  "sequence",
                                                        "uuid",   "csv",  "word", "pool"};
constexpr std::array<std::string_view, 10> kDataKeys = {
    "values", "file", "csv", "column", "order", "word", "int", "sequence", "uuid", "pool"};
constexpr std::array<std::string_view, 2> kOrders = {"random", "sequential"};
constexpr std::array<std::string_view, 1> kWordKeys = {"file"};
constexpr std::array<std::string_view, 2> kIntKeys = {"min", "max"};
constexpr std::array<std::string_view, 2> kSequenceKeys = {"start", "step"};
constexpr std::array<std::string_view, 0> kNoKeys = {};
constexpr std::array<std::string_view, 2> kPoolKeys = {"size", "of"};
constexpr int64_t kMaxPoolSize = 10'000'000;
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string resolved(const Context& context, const std::string& path) {
  std::filesystem::path p(path);
  return (p.is_absolute() ? p : context.base_dir / p).string();
}

std::vector<std::string> read_lines_at(const Context& context, const FieldMap& map,
                                       std::string_view key, std::string& path) {
  path = *map.get_string(key);
  std::vector<std::string> lines;
  try {
    lines = read_lines_file(resolved(context, path));
  } catch (const UsageError& error) {
    map.fail_at_value(key, error.what());
  }
  if (lines.empty())
    map.fail_at_value(key, "the file '" + path + "' has no values (blank lines are skipped)");
  return lines;
}

std::vector<std::string> read_values(const Context& context, const YAML::Node& list,
                                     const std::string& what) {
  if (!list.IsSequence() || list.size() == 0) {
    context.source.fail(list,
                        what + (list.IsSequence() ? ": needs at least one value"
                                                  : ": expected a list like [a, b], got " +
                                                        std::string(yaml_reader::node_kind(list))));
  }
  std::vector<std::string> values;
  for (const auto& item : list) {
    values.push_back(yaml_reader::read_string(context.source, item, "a value of " + what));
  }
  return values;
}

// `word:`, `sequence:` and `uuid:` may be written with nothing after them.
bool no_options(const FieldMap& map, std::string_view key) {
  return map.node()[std::string(key)].IsNull();
}

DataSpec parse_data_entry(const Context& context, const YAML::Node& key, const YAML::Node& value,
                          const std::string& name, const std::string& where, bool inner) {
  DataSpec spec;
  spec.name = name;
  spec.where = context.location(key.Mark());
  if (value.IsSequence()) {
    // The short form "company: [acme, globex]".
    spec.kind = DataSpec::Kind::kList;
    spec.values = read_values(context, value, where);
    return spec;
  }
  if (value.IsNull()) {
    context.source.fail(key, where + " needs a kind: one of " + join_names(kDataKinds));
  }
  FieldMap map(context.source, value, where, kDataKeys);
  std::string_view kind;
  for (std::string_view candidate : kDataKeys) {
    bool is_kind = std::find(kDataKinds.begin(), kDataKinds.end(), candidate) != kDataKinds.end();
    if (!is_kind || !map.has(candidate)) continue;
    if (!kind.empty()) {
      // Point at whichever of the two comes second in the file.
      bool later = map.key_mark(candidate).pos > map.key_mark(kind).pos;
      std::string_view second = later ? candidate : kind;
      std::string_view first = later ? kind : candidate;
      map.fail_at_key(
          second, "a data entry has one kind, and '" + std::string(first) + "' is already given");
    }
    kind = candidate;
  }
  if (kind.empty()) {
    context.source.fail(value, where + " needs a kind: one of " + join_names(kDataKinds));
  }
  if (map.has("column") && kind != "csv") map.fail_at_key("column", "goes with 'csv' only");
  if (map.has("order")) {
    if (kind != "values" && kind != "file" && kind != "csv") {
      map.fail_at_key("order",
                      "goes with 'values', 'file' or 'csv' only (the others are drawn at random)");
    }
    std::string order = *map.get_string("order");
    if (std::find(kOrders.begin(), kOrders.end(), order) == kOrders.end()) {
      map.fail_at_value("order", unknown_choice("order", order, kOrders));
    }
    spec.sequential = order == "sequential";
  }

  if (kind == "values") {
    spec.kind = DataSpec::Kind::kList;
    spec.values = read_values(context, *map.present("values"), map.what("values"));
  } else if (kind == "file") {
    spec.kind = DataSpec::Kind::kFileLines;
    spec.values = read_lines_at(context, map, "file", spec.path);
  } else if (kind == "csv") {
    spec.kind = DataSpec::Kind::kCsvColumn;
    if (!map.has("column")) map.fail_missing("column");
    spec.path = *map.get_string("csv");
    spec.column = *map.get_string("column");
    try {
      spec.values = read_csv_column(resolved(context, spec.path), spec.column);
    } catch (const UsageError& error) {
      bool about_column = std::string_view(error.what()).find("has no column") != std::string::npos;
      map.fail_at_value(about_column ? "column" : "csv", error.what());
    }
    if (spec.values.empty()) {
      map.fail_at_value("csv", "column '" + spec.column + "' of '" + spec.path + "' has no values");
    }
  } else if (kind == "word") {
    spec.kind = DataSpec::Kind::kWord;
    if (!no_options(map, "word")) {
      FieldMap word(context.source, *map.present("word"), "'word' of " + where, kWordKeys);
      if (word.has("file")) spec.values = read_lines_at(context, word, "file", spec.path);
    }
    if (spec.values.empty()) {
      for (std::string_view w : default_words()) spec.values.emplace_back(w);
    }
  } else if (kind == "int") {
    spec.kind = DataSpec::Kind::kIntRange;
    FieldMap range(context.source, *map.present("int"), "'int' of " + where, kIntKeys);
    if (!range.has("min")) range.fail_missing("min");
    if (!range.has("max")) range.fail_missing("max");
    spec.min = *range.get_integer("min", kInt64Min, kInt64Max);
    spec.max = *range.get_integer("max", kInt64Min, kInt64Max);
    if (spec.min > spec.max) {
      range.fail_at_value("max", "must not be below 'min' (" + std::to_string(spec.min) + ")");
    }
  } else if (kind == "sequence") {
    spec.kind = DataSpec::Kind::kSequence;
    if (!no_options(map, "sequence")) {
      FieldMap sequence(context.source, *map.present("sequence"), "'sequence' of " + where,
                        kSequenceKeys);
      spec.start = sequence.get_integer("start", kInt64Min, kInt64Max).value_or(spec.start);
      spec.step = sequence.get_integer("step", kInt64Min, kInt64Max).value_or(spec.step);
      if (spec.step == 0)
        sequence.fail_at_value("step", "must not be 0 (every value would be the same)");
      // A sequence must not wrap within any run: its 2^40th value (1.1e12 requests, 12 days at a
      // million a second) must still be a 64-bit integer, so no value ever repeats.
      const uint64_t room =
          spec.step > 0 ? static_cast<uint64_t>(kInt64Max) - static_cast<uint64_t>(spec.start)
                        : static_cast<uint64_t>(spec.start) - static_cast<uint64_t>(kInt64Min);
      const uint64_t stride = spec.step > 0 ? static_cast<uint64_t>(spec.step)
                                            : static_cast<uint64_t>(-(spec.step + 1)) + 1;
      // room / stride further values fit after the start (room / stride + 1 may overflow).
      if (room / stride < (uint64_t{1} << 40) - 1) {
        sequence.fail_at_value(
            "step", "leaves the 64-bit range after " + std::to_string(room / stride + 1) +
                        " values from 'start'; a sequence must reach 2^40 values without wrapping");
      }
    }
  } else if (kind == "uuid") {
    spec.kind = DataSpec::Kind::kUuid;
    if (!no_options(map, "uuid")) {
      FieldMap uuid(context.source, *map.present("uuid"), "'uuid' of " + where, kNoKeys);
    }
  } else if (kind == "pool") {
    spec.kind = DataSpec::Kind::kPool;
    if (inner) map.fail_at_key("pool", "a pool cannot be drawn from another pool");
    FieldMap pool(context.source, *map.present("pool"), "'pool' of " + where, kPoolKeys);
    if (!pool.has("size")) pool.fail_missing("size");
    if (!pool.has("of")) pool.fail_missing("of");
    spec.pool_size = *pool.get_integer("size", 1, kMaxPoolSize);
    const YAML::Node& of = *pool.present("of");
    spec.pool_of.push_back(parse_data_entry(context, of, of, name, "'of' of " + where, true));
    spec.pool_of.back().where = context.location(of.Mark());
  }
  return spec;
}

}  // namespace

std::vector<DataSpec> parse_data(const Context& context, const FieldMap& top) {
  const YAML::Node& node = *top.present("data");
  if (!node.IsMap()) {
    top.fail_at_value("data", "expected a map of variable names (\"word: {word: {}}\"), got " +
                                  std::string(yaml_reader::node_kind(node)));
  }
  std::vector<DataSpec> data;
  for_each_named(
      context, node, "'data'", "variable", [&](const YAML::Node& key, const YAML::Node& value) {
        std::string where = "data '" + key.Scalar() + "'";
        if (!is_variable_name(key.Scalar())) {
          context.source.fail(key,
                              where + ": '" + key.Scalar() +
                                  "' cannot be a variable name: use letters, digits and '_', not "
                                  "starting with a digit");
        }
        data.push_back(parse_data_entry(context, key, value, key.Scalar(), where, false));
      });
  return data;
}

}  // namespace proofload::workload::scenario_yaml
