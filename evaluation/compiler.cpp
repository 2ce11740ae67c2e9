#include "evaluation/compiler.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "evaluation/build_config.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/process.hpp"

namespace kforge::evaluation {

/// Folder of the precompiled header for this flag set: <cache>/pch/<hash of flags and shim>.
std::string pch_dir(const CompileOptions& o);

namespace {

constexpr const char* kCacheVersion = "kforge-compile-1";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

// Every header file under a folder, in name order, hashed together.
std::string headers_hash(const std::vector<std::string>& roots) {
  std::vector<std::filesystem::path> files;
  for (const auto& root : roots)
    for (const auto& f : std::filesystem::recursive_directory_iterator(root))
      if (f.is_regular_file()) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& f : files) all += f.string() + '\0' + read_file(f).text + '\0';
  return sha256_hex(all);
}

// The headers a compile reads besides LibTorch's: the light ones read evaluation/shim's pybind11
// names.
std::string shim_fingerprint(bool light) {
  static const std::string full = headers_hash({build::shim_dir});
  static const std::string light_headers = headers_hash({build::shim_light_dir, build::shim_dir});
  return light ? light_headers : full;
}

bool uses_light_headers(const CompileOptions& o) {
  return o.headers != Headers::full;
}

// The first error line of a compiler log, for the one-line summary.
std::string first_error(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line))
    if (line.find("error") != std::string::npos)
      return line.size() > 300 ? line.substr(0, 300) + "..." : line;
  return {};
}

// One lock per precompiled header: a compile waits for the header it reads to be built, not for
// another set's (LibTorch's takes 12 s to build; the light headers' compiles go on meanwhile).
std::mutex& pch_mutex(const std::filesystem::path& dir) {
  static std::mutex guard;
  static std::map<std::string, std::unique_ptr<std::mutex>> locks;
  std::lock_guard lock(guard);
  auto& m = locks[dir.string()];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}

// Flags of a cpu compile with o's headers, without the precompiled header, with placeholders for
// the files.
std::vector<std::string> base_cpu_command(const CompileOptions& o) {
  CompileOptions plain = o;
  plain.precompiled_header = false;
  return compile_command(plain, "SRC", "OUT");
}

// Builds <cache>/pch/<hash>/torch/extension.h.gch once for o's headers (the light ones or
// LibTorch's); returns false (and compiles go on without it) when g++ cannot. The .gch is
// published by rename, so concurrent builders do not collide.
bool ensure_precompiled_header(const CompileOptions& o, std::string& log) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(pch_dir(o)) / "torch";
  fs::path gch = dir / "extension.h.gch";
  if (fs::exists(gch)) return true;
  std::lock_guard lock(pch_mutex(dir));
  std::error_code ec;
  if (fs::exists(gch)) return true;
  if (fs::exists(dir / "failed")) return false;
  fs::create_directories(dir, ec);
  const char* shim = uses_light_headers(o) ? build::shim_light_dir : build::shim_dir;
  fs::copy_file(fs::path(shim) / "torch/extension.h", dir / "extension.h",
                fs::copy_options::overwrite_existing, ec);
  if (ec) return false;
  std::vector<std::string> cmd;
  for (const auto& a : base_cpu_command(o)) {
    if (a == "-shared" || a == "SRC" || a == "OUT" || a == "-o") continue;
    if (a.rfind("-L", 0) == 0 || a.rfind("-l", 0) == 0 || a.rfind("-Wl,", 0) == 0) continue;
    cmd.push_back(a);
  }
  fs::path tmp = dir / ("extension.h.gch.tmp" + std::to_string(::getpid()));
  cmd.insert(cmd.end(), {"-x", "c++-header", (dir / "extension.h").string(), "-o", tmp.string()});
  SpawnOptions spawn;
  spawn.argv = cmd;
  spawn.working_dir = dir;
  auto r = run(spawn, o.timeout, 1 << 20);
  if (!r.ok()) {
    log =
        "precompiling the header failed (" + r.describe() + "); compiling without it\n" + r.output;
    if (r.started && !r.timed_out) write_file_atomic(dir / "failed", log);
    fs::remove(tmp, ec);
    return false;
  }
  fs::rename(tmp, gch, ec);
  return !ec;
}

// What a compiler of candidate source may open: the toolchain and system headers (/usr), kforge's
// shim and LibTorch's and CUDA's headers and libraries, the precompiled header, and, writable,
// the compile folder. Source that includes or embeds (#include, .incbin) a file elsewhere, a
// user's key or kforge's token, gets "permission denied" instead of its contents.
FilesystemView compiler_view(const CompileOptions& o, const std::string& compile_dir) {
  namespace fs = std::filesystem;
  FilesystemView view;
  view.read_only = {"/usr",
                    "/lib",
                    "/lib64",
                    "/bin",
                    "/etc/ld.so.cache",
                    "/etc/ld.so.conf",
                    "/etc/ld.so.conf.d",
                    "/etc/alternatives",
                    "/proc/self",
                    "/proc/cpuinfo",
                    "/proc/meminfo",
                    "/proc/stat",
                    "/sys/devices/system/cpu",
                    build::shim_dir,
                    build::shim_light_dir,
                    build::torch_library_dir,
                    build::cuda_include_dir,
                    build::cuda_library_dir};
  for (const auto& dir : split(build::torch_include_dirs, ';')) view.read_only.push_back(dir);
  for (const char* tool : {build::cxx_compiler, build::nvcc})
    if (*tool) view.read_only.push_back(fs::path(tool).parent_path().parent_path().string());
  if (o.backend == Backend::cpu && o.precompiled_header) view.read_only.push_back(pch_dir(o));
  view.read_write = {compile_dir};
  view.devices = {"/dev/null", "/dev/zero", "/dev/urandom"};
  return view;
}

}  // namespace

std::string pch_dir(const CompileOptions& o) {
  std::string flags;
  for (const auto& a : base_cpu_command(o)) flags += a + '\n';
  return (std::filesystem::path(o.cache_dir) / "pch" /
          sha256_hex(flags + shim_fingerprint(uses_light_headers(o))).substr(0, 24))
      .string();
}

CodegenFlags codegen_flags(Backend backend) {
  if (backend == Backend::cpu) return {{"-O3", "-march=native", "-fopenmp"}, {"-fopenmp"}};
  return {{"-O3", "--expt-relaxed-constexpr", "-D__CUDA_NO_HALF_OPERATORS__",
           "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
           "-D__CUDA_NO_HALF2_OPERATORS__"},
          {}};
}

std::vector<std::string> compile_command(const CompileOptions& o, const std::string& source_path,
                                         const std::string& output_path) {
  std::vector<std::string> cmd;
  const bool light = uses_light_headers(o);
  // The light headers answer to LibTorch's header names; LibTorch's own folders are left out, so a
  // kernel that needs more than they offer fails to build with them and is built with LibTorch's.
  std::vector<std::string> includes = {std::string("-I") + build::shim_dir};
  if (light) includes.insert(includes.begin(), std::string("-I") + build::shim_light_dir);
  // The precompiled header's folder comes first: g++ takes torch/extension.h.gch from there.
  if (o.backend == Backend::cpu && o.precompiled_header && !o.cache_dir.empty())
    includes.insert(includes.begin(), "-I" + pch_dir(o));
  if (!light)
    for (const auto& dir : split(build::torch_include_dirs, ';')) includes.push_back("-I" + dir);
  std::string libdir = build::torch_library_dir;
  const CodegenFlags codegen = codegen_flags(o.backend);
  if (o.backend == Backend::cpu) {
    cmd = {build::cxx_compiler, "-std=c++17",          "-fPIC",
           "-shared",           "-fvisibility=hidden", "-DTORCH_EXTENSION_NAME=kforge_candidate"};
    cmd.insert(cmd.end(), codegen.compile.begin(), codegen.compile.end());
    for (const auto& f : split(build::torch_cxx_flags, ' ')) cmd.push_back(f);
    cmd.insert(cmd.end(), includes.begin(), includes.end());
    cmd.insert(cmd.end(), o.extra_flags.begin(), o.extra_flags.end());
    cmd.insert(cmd.end(), {source_path, "-o", output_path, "-Wl,--no-undefined"});
    if (!light)
      cmd.insert(cmd.end(), {"-L" + libdir, "-Wl,-rpath," + libdir, "-ltorch_cpu", "-lc10"});
    cmd.insert(cmd.end(), codegen.link.begin(), codegen.link.end());
  } else {
    std::string arch = o.cuda_arch.rfind("sm_", 0) == 0 ? o.cuda_arch.substr(3) : o.cuda_arch;
    cmd = {build::nvcc,
           "-std=c++17",
           "-x",
           "cu",
           "-shared",
           "-Xcompiler",
           "-fPIC,-fvisibility=hidden",
           "-gencode=arch=compute_" + arch + ",code=sm_" + arch,
           "-DKFORGE_CUDA",
           "-DTORCH_EXTENSION_NAME=kforge_candidate",
           "-Xptxas",
           "-v"};
    cmd.insert(cmd.end(), codegen.compile.begin(), codegen.compile.end());
    for (const auto& f : split(build::torch_cxx_flags, ' ')) cmd.push_back(f);
    cmd.insert(cmd.end(), includes.begin(), includes.end());
    if (*build::cuda_include_dir) cmd.push_back(std::string("-I") + build::cuda_include_dir);
    cmd.insert(cmd.end(), o.extra_flags.begin(), o.extra_flags.end());
    cmd.insert(cmd.end(), {source_path, "-o", output_path});
    if (!light)
      cmd.insert(cmd.end(), {"-L" + libdir, "-Xlinker", "-rpath=" + libdir, "-ltorch_cpu",
                             "-ltorch_cuda", "-lc10", "-lc10_cuda"});
    if (*build::cuda_library_dir) cmd.push_back(std::string("-L") + build::cuda_library_dir);
    cmd.push_back("-lcudart");
    cmd.insert(cmd.end(), codegen.link.begin(), codegen.link.end());
  }
  return cmd;
}

namespace {

// One compile with the headers of `o` (light or full).
CompileResult compile_with(std::string_view source, const CompileOptions& o) {
  CompileResult result;
  const bool light = uses_light_headers(o);
  result.headers = light ? "light" : "full";
  namespace fs = std::filesystem;
  std::string flags;
  for (const auto& a : compile_command(o, "SRC", "OUT")) flags += a + '\n';
  result.key = sha256_hex(std::string(kCacheVersion) + '\0' + flags + '\0' +
                          shim_fingerprint(light) + '\0' + std::string(source));
  fs::path dir = fs::path(o.cache_dir) / "compile";
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path so = dir / (result.key + ".so");
  fs::path log = dir / (result.key + ".log");
  fs::path failed = dir / (result.key + ".failed");
  fs::path src = dir / (result.key + (o.backend == Backend::cuda ? ".cu" : ".cpp"));
  // The log names the user's file rather than the cached copy (cached logs too).
  auto named = [&](std::string text) {
    if (!o.source_name.empty())
      for (size_t at; (at = text.find(src.string())) != std::string::npos;)
        text.replace(at, src.string().size(), o.source_name);
    return text;
  };
  if (fs::exists(so)) {
    result.ok = result.cache_hit = true;
    result.library_path = so;
    result.log = named(read_file(log).text);
    return result;
  }
  if (fs::exists(failed)) {
    result.cache_hit = true;
    result.log = named(read_file(log).text);
    result.error = named(read_file(failed).text);
    return result;
  }
  std::string pch_log;
  CompileOptions effective = o;
  if (o.backend == Backend::cpu && o.precompiled_header && !ensure_precompiled_header(o, pch_log))
    effective.precompiled_header = false;
  if (auto err = write_file_atomic(src, source); !err.empty()) {
    result.error = err;
    return result;
  }
  // The compiler writes into a private temporary name; the rename publishes it to the cache.
  const std::string unique =
      std::to_string(::getpid()) + "_" +
      std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  fs::path tmp_so = dir / (result.key + ".so.tmp" + unique);
  // nvcc names its intermediate files after the source and its process id, which is the same in
  // every PID namespace: two compiles of one source (two kforge processes) need their own TMPDIR.
  fs::path scratch = dir / ("tmp." + result.key.substr(0, 16) + "." + unique);
  fs::create_directories(scratch, ec);
  SpawnOptions spawn;
  spawn.argv = compile_command(effective, src, tmp_so);
  spawn.working_dir = dir;
  spawn.filesystem = compiler_view(effective, dir);
  spawn.allow_unconfined = o.allow_unconfined;
  spawn.environment = confined_environment(scratch);
  spawn.limits.cpu_seconds = static_cast<uint64_t>(o.timeout.count()) * 2;
  spawn.limits.file_size_bytes = 1ull << 30;
  auto run_result = run(spawn, o.timeout, 4 << 20);
  fs::remove_all(scratch, ec);
  result.seconds = run_result.seconds;
  result.log = pch_log + run_result.output;
  write_file_atomic(log, result.log);
  if (run_result.ok() && fs::exists(tmp_so)) {
    fs::rename(tmp_so, so, ec);
    if (ec) {
      result.error = "cannot publish " + so.string() + ": " + ec.message();
      return result;
    }
    result.ok = true;
    result.library_path = so;
    result.log = named(result.log);
    return result;
  }
  fs::remove(tmp_so, ec);
  if (!run_result.started) {
    result.error = "compiler did not start: " + run_result.start_error;
    return result;  // not cached: the machine, not the source, is at fault
  }
  if (run_result.timed_out) {
    result.error = "compiler " + run_result.describe();
    return result;  // not cached: a loaded machine may finish next time
  }
  std::string first = first_error(result.log);
  result.error =
      "compile failed (" + run_result.describe() + ")" + (first.empty() ? "" : ": " + first);
  write_file_atomic(failed, result.error);
  result.log = named(result.log);
  result.error = named(result.error);
  return result;
}

// compile_with, and for a CUDA source on which nvcc crashed, compile_with again with
// kCompilerCrashFlags (its log saying so).
CompileResult compile_past_crashes(std::string_view source, const CompileOptions& o) {
  CompileResult first = compile_with(source, o);
  if (o.backend != Backend::cuda || !compiler_crashed(first)) return first;
  CompileOptions lower = o;
  lower.extra_flags.insert(lower.extra_flags.end(), kCompilerCrashFlags.begin(),
                           kCompilerCrashFlags.end());
  CompileResult again = compile_with(source, lower);
  again.seconds += first.seconds;
  again.log = std::string(kCompilerCrashNote) + again.log;
  return again;
}

}  // namespace

bool compiler_crashed(const CompileResult& r) {
  if (r.ok) return false;
  // nvcc reports a crashed stage (cicc, ptxas) as 128 + its signal.
  for (const char* status :
       {"(exit 134)", "(exit 135)", "(exit 136)", "(exit 139)", "(killed by signal 6 ",
        "(killed by signal 7 ", "(killed by signal 8 ", "(killed by signal 11 "})
    if (r.error.rfind(std::string("compile failed ") + status, 0) == 0) return true;
  return false;
}

CompileResult compile_candidate(std::string_view source, const CompileOptions& o) {
  // The compiler's report of what each kernel uses is read once, here.
  auto with_kernels = [&](CompileResult r) {
    if (r.ok && o.backend == Backend::cuda) r.kernels = parse_ptxas_report(r.log);
    return r;
  };
  if (o.headers != Headers::automatic) return with_kernels(compile_past_crashes(source, o));
  CompileOptions light = o;
  light.headers = Headers::light;
  CompileResult first = compile_past_crashes(source, light);
  if (first.ok) return with_kernels(std::move(first));
  // What the user and an LLM see is LibTorch's verdict on the source, not the light headers'.
  CompileOptions full = o;
  full.headers = Headers::full;
  CompileResult result = compile_past_crashes(source, full);
  result.seconds += first.seconds;
  result.light_error = first.error;
  return with_kernels(std::move(result));
}

std::vector<CompileResult> compile_all(const std::vector<std::string>& sources,
                                       const CompileOptions& options, unsigned parallel) {
  std::vector<CompileResult> results(sources.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < sources.size();)
      results[i] = compile_candidate(sources[i], options);
  };
  std::vector<std::thread> threads;
  unsigned n = std::max(1u, std::min<unsigned>(parallel, static_cast<unsigned>(sources.size())));
  for (unsigned t = 0; t < n; ++t) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace kforge::evaluation
