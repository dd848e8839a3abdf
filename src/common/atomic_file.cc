#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace bertpt {

namespace fs = std::filesystem;

std::string temp_name_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

void fsync_directory(const std::string& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // Best effort: some filesystems do not allow opening directories.
  ::fsync(fd);
  ::close(fd);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_path_(temp_name_for(path_)) {
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) {
    throw BadInput("cannot create " + temp_path_ + ": " + std::strerror(errno),
                   "check that the output directory exists and is writable");
  }
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(temp_path_.c_str());
  }
}

void AtomicFile::write(const void* data, size_t size) {
  if (!file_) throw Error(Error::Kind::Internal, "write to committed file " + path_);
  if (size && std::fwrite(data, 1, size, file_) != size) {
    throw BadInput("cannot write " + temp_path_ + ": " + std::strerror(errno), "is the disk full?");
  }
}

void AtomicFile::commit() {
  if (!file_) throw Error(Error::Kind::Internal, "double commit of " + path_);
  bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  int err = errno;
  ok = (std::fclose(file_) == 0) && ok;
  file_ = nullptr;
  if (!ok) {
    std::remove(temp_path_.c_str());
    throw BadInput("cannot write " + path_ + ": " + std::strerror(err), "is the disk full?");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    err = errno;
    std::remove(temp_path_.c_str());
    throw BadInput("cannot rename " + temp_path_ + " to " + path_ + ": " + std::strerror(err));
  }
  fsync_directory(fs::path(path_).parent_path().string());
}

void write_file_atomic(const std::string& path, std::string_view content) {
  AtomicFile f(path);
  f.write(content);
  f.commit();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput("cannot open " + path + ": " + std::strerror(errno), "check the path");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw BadInput("cannot read " + path + ": " + std::strerror(errno));
  return ss.str();
}

}  // namespace bertpt

namespace bertpt {

void write_directory_atomic(const std::string& dir, const std::string& tmp, const std::string& aside,
                            const std::function<void(const std::string& tmp)>& fill, const std::string& hint) {
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (!fs::create_directories(tmp, ec) || ec) {
    throw BadInput("cannot create directory " + tmp + ": " + ec.message(),
                   "check that the parent directory is writable");
  }
  try {
    fill(tmp);
    fsync_directory(tmp);
    if (fs::exists(dir)) {
      fs::remove_all(aside, ec);
      fs::rename(dir, aside);
      fs::rename(tmp, dir);
      fs::remove_all(aside, ec);
    } else {
      fs::rename(tmp, dir);
    }
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw BadInput("cannot write checkpoint " + dir + ": " + e.what(), hint);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  const fs::path parent = fs::path(dir).parent_path();
  fsync_directory(parent.empty() ? "." : parent.string());
}

}  // namespace bertpt
