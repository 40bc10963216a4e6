// ResultDirectory: creation check, atomic result.json, streamed windows.csv and latency.hlog.
// Streams are flushed (not fsynced) after each window: that survives a crash of proofload,
// which is the failure that matters mid-run; they are fsynced once, at the end.
#include "report/result_directory.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "common/recorded_file.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "measure/hlog.h"
#include "report/atomic_file.h"
#include "report/html/pages.h"
#include "report/result_json.h"
#include "report/run_report.h"
#include "report/windows_csv.h"
#include "result/recorded_json.h"

namespace proofload::report {
namespace {

// A window is a few KiB (its routes' and observers' figures); a journal line past this is not one.
constexpr size_t kMaxJournalLineBytes = size_t{16} << 20;

[[noreturn]] void unusable(const std::filesystem::path& directory, const std::string& reason) {
  throw UsageError("cannot write results to " + directory.string() + ": " + reason);
}

[[noreturn]] void io_failure(const std::filesystem::path& path, int error) {
  throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(error));
}

std::FILE* open_stream(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "we");  // 'e': close-on-exec
  if (file == nullptr) io_failure(path, errno);
  return file;
}

// Writes and flushes, naming the system's reason of the call that failed (a full disk is
// ENOSPC, not the EIO a later check of the stream's error flag could only guess).
void write_stream(std::FILE* file, std::string_view text, const std::filesystem::path& path) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file) != text.size()) {
    io_failure(path, errno != 0 ? errno : EIO);
  }
  errno = 0;
  if (std::fflush(file) != 0) io_failure(path, errno != 0 ? errno : EIO);
}

// result.json: `document` (without "windows") with the journal's windows spliced in as its last
// key, one line at a time: the windows are never all in memory. Removes the journal once the
// file is committed.
void write_with_journal(const std::filesystem::path& directory, nlohmann::json document) {
  document.erase("windows");
  std::string head = result_json_text(document);
  const std::string_view kClose = "\n}\n";
  if (head.size() < kClose.size() ||
      head.compare(head.size() - kClose.size(), kClose.size(), kClose) != 0) {
    throw std::logic_error("result.json text does not end with a closing brace");
  }
  head.resize(head.size() - kClose.size());

  AtomicFileWriter out(directory / ResultDirectory::kResultJson);
  out.write(head);
  out.write(",\n  \"windows\": [");
  const std::filesystem::path journal_path = directory / ResultDirectory::kWindowsJournal;
  // Only a regular file, each line a window before it goes in: `proofload report` may be given a
  // directory from anywhere, and result.json is never replaced by something that does not parse.
  const auto journal = open_recorded_stdio(journal_path);
  bool first = true;
  if (journal) {
    std::string line;
    int64_t number = 0;
    LineRead read;
    while ((read = read_recorded_line(journal.get(), line, kMaxJournalLineBytes)) ==
           LineRead::kLine) {
      ++number;
      if (!result::parse_recorded_object(line)) {
        throw UsageError(journal_path.string() + " line " + std::to_string(number) +
                         " is not a window; result.json is left as it was");
      }
      out.write(first ? "\n    " : ",\n    ");
      out.write(line);
      first = false;
    }
    // kEnd also at a last line cut by a crash: that is not a window.
    if (read == LineRead::kTooLong) {
      throw UsageError(journal_path.string() + " line " + std::to_string(number + 1) +
                       " is longer than " + bytes_text(kMaxJournalLineBytes) +
                       ", longer than any window; result.json is left as it was");
    }
  }
  out.write(first ? "]\n}\n" : "\n  ]\n}\n");
  out.commit();
  ::unlink(journal_path.c_str());
}

}  // namespace

ResultDirectory::ResultDirectory(std::filesystem::path directory)
    : directory_(std::move(directory)) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) unusable(directory_, error.message());
  if (!std::filesystem::is_directory(directory_, error)) {
    unusable(directory_, std::strerror(ENOTDIR));
  }
  // Permissions, read-only mounts, quotas and a full disk all show in one honest test: create
  // the reserve. posix_fallocate takes the blocks for real (a sparse file would not).
  const std::filesystem::path reserve = directory_ / kReserve;
  const int fd = ::open(reserve.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) unusable(directory_, std::strerror(errno));
  const int reserve_error = ::posix_fallocate(fd, 0, kReserveBytes);
  ::close(fd);
  if (reserve_error != 0) {
    ::unlink(reserve.c_str());
    unusable(directory_, std::string(std::strerror(reserve_error)) + " (a run keeps " +
                             std::to_string(kReserveBytes >> 20) +
                             " MiB free for its final results)");
  }
}

ResultDirectory::~ResultDirectory() {
  release_reserve();
  hlog_.reset();
  if (csv_ != nullptr) std::fclose(csv_);
  if (hlog_file_ != nullptr) std::fclose(hlog_file_);
  if (journal_ != nullptr) std::fclose(journal_);
}

void ResultDirectory::open(const RunResult& initial) {
  write_file_atomically(directory_ / kResultJson,
                        result_json_text(running_result_to_json(initial)));
  // An earlier run's summary must not sit beside this run's result.json if this one dies.
  if (::unlink((directory_ / kSummaryMd).c_str()) != 0 && errno != ENOENT) {
    io_failure(directory_ / kSummaryMd, errno);
  }
  start_wall_ns_ = initial.start_wall_ns;

  const std::filesystem::path csv_path = directory_ / kWindowsCsv;
  csv_ = open_stream(csv_path);
  observed_columns_ = initial.observed_columns;
  goodput_slo_ = initial.spec.goodput_slo();
  stream_columns_ = initial.spec.streams();
  write_stream(csv_, windows_csv_header(observed_columns_, stream_columns_), csv_path);

  const std::filesystem::path hlog_path = directory_ / kLatencyHlog;
  hlog_file_ = open_stream(hlog_path);
  hlog_ = std::make_unique<measure::HlogWriter>(hlog_file_);
  hlog_->write_header(static_cast<double>(start_wall_ns_) / 1e9);
  if (hlog_->error() != 0) io_failure(hlog_path, hlog_->error());

  journal_ = open_stream(directory_ / kWindowsJournal);
}

void ResultDirectory::append_window(const measure::WindowStats& w, int64_t window_start_wall_ns,
                                    const std::vector<ObservedFigures>& observed) {
  if (csv_ == nullptr || !hlog_) {
    throw std::logic_error("ResultDirectory::append_window before open()");
  }
  WindowSummary summary = summarize_window(w, goodput_slo_);
  summary.observed = observed;
  write_stream(csv_, windows_csv_row(summary, observed_columns_, stream_columns_),
               directory_ / kWindowsCsv);
  write_stream(journal_, window_to_json(summary).dump() + "\n", directory_ / kWindowsJournal);

  const double start_s = static_cast<double>(window_start_wall_ns - start_wall_ns_) / 1e9;
  hlog_->write_interval(start_s, static_cast<double>(w.duration_ns) / 1e9, w.latency_us);
  // The writer keeps going after a failed write (it records the reason rather than throwing).
  if (hlog_->error() != 0) io_failure(directory_ / kLatencyHlog, hlog_->error());
}

void ResultDirectory::close_streams() {
  hlog_.reset();
  const std::pair<std::FILE**, const char*> streams[] = {
      {&csv_, kWindowsCsv}, {&hlog_file_, kLatencyHlog}, {&journal_, kWindowsJournal}};
  for (auto [file, name] : streams) {
    if (*file == nullptr) continue;
    std::FILE* const stream = *file;
    *file = nullptr;  // closed below whatever happens: never closed twice
    // A stream whose error flag is set failed in an earlier write, which threw with its reason
    // then: closing it again must not report a second, vaguer error (EIO).
    const bool failed_before = std::ferror(stream) != 0;
    int error = 0;
    if (!failed_before) {
      errno = 0;
      if (std::fflush(stream) != 0) {
        error = errno != 0 ? errno : EIO;
      } else if (::fsync(::fileno(stream)) != 0) {
        error = errno;
      }
    }
    if (std::fclose(stream) != 0 && error == 0 && !failed_before) error = errno;
    if (error != 0) io_failure(directory_ / name, error);
  }
}

void ResultDirectory::finish(const RunResult& final_result) {
  // result.json is the record that matters most: written even if a stream failed to close.
  std::exception_ptr stream_failure;
  try {
    close_streams();
  } catch (const std::runtime_error&) {
    stream_failure = std::current_exception();
  }
  release_reserve();
  try {
    write_with_journal(directory_, result_to_json(final_result));
  } catch (const std::runtime_error& e) {
    // The windows did not fit (they are the bulk of the file). The result without them fits in
    // the space the reserve held: status, totals and verdicts are not lost, the windows stay in
    // the journal (and windows.csv) until `proofload report DIR` puts them in.
    nlohmann::json document = result_to_json(final_result);
    document["windows"] = nlohmann::json::array();
    document["pending_windows"] = {{"journal", kWindowsJournal}, {"reason", e.what()}};
    write_file_atomically(directory_ / kResultJson, result_json_text(document));
    write_summary();
    throw std::runtime_error(std::string(e.what()) + "; result.json holds the run without its " +
                             "windows, which stay in " + kWindowsJournal + " and " + kWindowsCsv +
                             ": free space and run `proofload report " + directory_.string() +
                             "` to put them in");
  }
  write_summary();
  if (stream_failure) std::rethrow_exception(stream_failure);
}

void ResultDirectory::release_reserve() {
  if (!directory_.empty()) ::unlink((directory_ / kReserve).c_str());
}

bool complete_pending_windows(const std::filesystem::path& directory) {
  const std::filesystem::path path = directory / ResultDirectory::kResultJson;
  nlohmann::json document = result::read_recorded_json(path.string());
  if (!document.is_object() || !document.contains("pending_windows")) return false;
  document.erase("pending_windows");
  write_with_journal(directory, std::move(document));
  return true;
}

// From the committed file, not from final_result: the summary is then exactly what `proofload
// report DIR` renders from the same file later (bytes that were not UTF-8 replaced alike).
void ResultDirectory::write_summary() { write_run_reports(directory_); }

void write_run_reports(const std::filesystem::path& directory) {
  const std::filesystem::path result_path = directory / ResultDirectory::kResultJson;
  RecordedFileStream in(result_path);
  if (!in) throw std::runtime_error("cannot read back " + result_path.string());
  RunForReport run;
  try {
    run = parse_result_for_report(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("cannot read back " + result_path.string() + ": " + e.what());
  } catch (const result::RecordedJsonTooDeep& e) {
    throw UsageError(result_path.string() + ": " + e.what());
  }
  write_run_reports(directory, run);
}

void write_run_reports(const std::filesystem::path& directory, const RunForReport& run) {
  const std::string summary = render_run_summary(run.result);
  const std::string page = html::render_run_html(run, summary);
  write_file_atomically(directory / ResultDirectory::kSummaryMd, summary);
  write_file_atomically(directory / html::kReportHtml, page);
}

}  // namespace proofload::report
