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

#include "common/usage_error.h"
#include "measure/hlog.h"
#include "report/atomic_file.h"
#include "report/result_json.h"
#include "report/run_report.h"
#include "report/windows_csv.h"

namespace proofload::report {
namespace {

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

// fflush and check the stream's error flag (set by any earlier failed write).
void flush_stream(std::FILE* file, const std::filesystem::path& path) {
  errno = 0;
  if (std::fflush(file) != 0 || std::ferror(file)) io_failure(path, errno != 0 ? errno : EIO);
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
  // Permissions, read-only mounts and quotas all show in one honest test: create a file.
  const std::filesystem::path probe =
      directory_ / (".proofload-write-check." + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) unusable(directory_, std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

ResultDirectory::~ResultDirectory() {
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
  const std::string header = windows_csv_header(observed_columns_);
  std::fwrite(header.data(), 1, header.size(), csv_);
  flush_stream(csv_, csv_path);

  const std::filesystem::path hlog_path = directory_ / kLatencyHlog;
  hlog_file_ = open_stream(hlog_path);
  hlog_ = std::make_unique<measure::HlogWriter>(hlog_file_);
  hlog_->write_header(static_cast<double>(start_wall_ns_) / 1e9);
  flush_stream(hlog_file_, hlog_path);

  journal_ = open_stream(directory_ / kWindowsJournal);
}

void ResultDirectory::append_window(const measure::WindowStats& w, int64_t window_start_wall_ns,
                                    const std::vector<ObservedFigures>& observed) {
  if (csv_ == nullptr || !hlog_) {
    throw std::logic_error("ResultDirectory::append_window before open()");
  }
  WindowSummary summary = summarize_window(w);
  summary.observed = observed;
  const std::string row = windows_csv_row(summary, observed_columns_);
  std::fwrite(row.data(), 1, row.size(), csv_);
  flush_stream(csv_, directory_ / kWindowsCsv);

  const std::string line = window_to_json(summary).dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), journal_);
  flush_stream(journal_, directory_ / kWindowsJournal);

  const double start_s = static_cast<double>(window_start_wall_ns - start_wall_ns_) / 1e9;
  hlog_->write_interval(start_s, static_cast<double>(w.duration_ns) / 1e9, w.latency_us);
  flush_stream(hlog_file_, directory_ / kLatencyHlog);
  // The writer keeps going after a failed write (it records it rather than throwing).
  if (!hlog_->ok()) io_failure(directory_ / kLatencyHlog, EIO);
}

void ResultDirectory::close_streams() {
  hlog_.reset();
  const std::pair<std::FILE**, const char*> streams[] = {
      {&csv_, kWindowsCsv}, {&hlog_file_, kLatencyHlog}, {&journal_, kWindowsJournal}};
  for (auto [file, name] : streams) {
    if (*file == nullptr) continue;
    std::FILE* const stream = *file;
    *file = nullptr;  // closed below whatever happens: never closed twice
    int error = 0;
    errno = 0;
    if (std::fflush(stream) != 0 || std::ferror(stream)) {
      error = errno != 0 ? errno : EIO;
    } else if (::fsync(::fileno(stream)) != 0) {
      error = errno;
    }
    if (std::fclose(stream) != 0 && error == 0) error = errno;
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
  write_final_result(final_result);
  write_summary();
  if (stream_failure) std::rethrow_exception(stream_failure);
}

// From the committed file, not from final_result: the summary is then exactly what `proofload
// report DIR` renders from the same file later (bytes that were not UTF-8 replaced alike).
void ResultDirectory::write_summary() {
  const std::filesystem::path result_path = directory_ / kResultJson;
  std::ifstream in(result_path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read back " + result_path.string());
  nlohmann::json result;
  try {
    result = parse_result_for_summary(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("cannot read back " + result_path.string() + ": " + e.what());
  }
  write_file_atomically(directory_ / kSummaryMd, render_run_summary(result));
}

// result.json as result_json_text would write it, with the windows read back from the journal
// one line at a time (the last key, "windows", is sorted last, so it is appended at the end).
void ResultDirectory::write_final_result(const RunResult& final_result) {
  nlohmann::json document = result_to_json(final_result);
  document.erase("windows");
  std::string head = result_json_text(document);
  const std::string_view kClose = "\n}\n";
  if (head.size() < kClose.size() || head.compare(head.size() - kClose.size(), kClose.size(), kClose) != 0) {
    throw std::logic_error("result.json text does not end with a closing brace");
  }
  head.resize(head.size() - kClose.size());

  AtomicFileWriter out(directory_ / kResultJson);
  out.write(head);
  out.write(",\n  \"windows\": [");
  const std::filesystem::path journal_path = directory_ / kWindowsJournal;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> journal(std::fopen(journal_path.c_str(), "re"),
                                                          &std::fclose);
  bool first = true;
  if (journal) {
    // getline's buffer, freed however this ends (a write below may throw).
    struct LineBuffer {
      char* data = nullptr;
      size_t capacity = 0;
      ~LineBuffer() { std::free(data); }
    } line;
    ssize_t length;
    while ((length = ::getline(&line.data, &line.capacity, journal.get())) > 0) {
      if (line.data[length - 1] != '\n') break;  // a line cut by a crash is not a window
      out.write(first ? "\n    " : ",\n    ");
      out.write(std::string_view(line.data, static_cast<size_t>(length - 1)));
      first = false;
    }
  }
  out.write(first ? "]\n}\n" : "\n  ]\n}\n");
  out.commit();
  ::unlink(journal_path.c_str());
}

}  // namespace proofload::report
