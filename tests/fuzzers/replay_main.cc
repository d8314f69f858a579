// main() for fuzz targets built without libFuzzer: replays files (and the files in directories) given as
// arguments through LLVMFuzzerTestOneInput. With --mutate it also feeds every prefix of each file and a fixed
// set of single-byte corruptions of it, so the plain cc_test does a little fuzzing of its own.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void Run(const std::string& bytes) {
  // A copy in exactly-sized heap memory, so ASan sees a read past the end as libFuzzer would.
  std::vector<uint8_t> buf(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(buf.empty() ? nullptr : buf.data(), buf.size());
}

int Replay(const std::string& bytes, bool mutate) {
  Run(bytes);
  if (!mutate) return 1;
  int runs = 1;
  for (size_t n = 0; n < bytes.size() && n < 512; ++n, ++runs) Run(bytes.substr(0, n));
  std::mt19937 rng(12345);
  for (int i = 0; i < 400 && !bytes.empty(); ++i, ++runs) {
    std::string m = bytes;
    size_t at = rng() % m.size();
    m[at] = static_cast<char>(i % 3 == 0 ? 0xff : i % 3 == 1 ? 0 : rng());
    Run(m);
  }
  return runs;
}

std::vector<std::string> Expand(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return {};
  if (!S_ISDIR(st.st_mode)) return {path};
  std::vector<std::string> out;
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(path + "/" + e->d_name);
    closedir(d);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool mutate = false;
  int inputs = 0, runs = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mutate") == 0) {
      mutate = true;
      continue;
    }
    if (argv[i][0] == '-') continue;  // libFuzzer flags (-runs=, -max_total_time=) mean nothing here
    for (const std::string& f : Expand(argv[i])) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      runs += Replay(ss.str(), mutate);
      ++inputs;
    }
  }
  std::printf("replayed %d inputs (%d runs) without a crash\n", inputs, runs);
  return inputs > 0 ? 0 : 1;
}
