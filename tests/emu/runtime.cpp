// tests/emu/runtime.cpp — the CPU emulator's scheduler (blocks of fibers, barriers, warp
// collectives) and the CUDA runtime API calls scanmd makes, defined over host memory.
//
// The declarations come from the real CUDA headers; this file is linked instead of cudart.
// Streams and events exist only as handles: every launch and copy runs to completion when it is
// issued, which is one legal schedule of the same stream order. See cuda_emu.hpp for the model.
#include <cuda_runtime_api.h>
#include <sys/mman.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SCANMD_EMU_ASAN 1
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cuda_emu.hpp"

namespace scanmd_emu {

ThreadState* g_thread = nullptr;
uint3 g_block_idx{0, 0, 0};
dim3 g_block_dim{1, 1, 1};
dim3 g_grid_dim{1, 1, 1};

namespace {

constexpr std::size_t kStackBytes = 256 * 1024;

void fiber_main();

// ---- execution contexts: a hand-written switch on x86-64 (the callee-saved registers; no system
// call), ucontext elsewhere. ----------------------------------------------------------------------
// The x87 and SSE control words are not switched: every fiber and the scheduler run in the
// thread's one floating-point environment (no kernel changes it), and loading MXCSR and the x87
// control word on every switch was half of the switch's time.
#if defined(__x86_64__)
extern "C" void scanmd_emu_switch(void** save_sp, void* load_sp);
extern "C" void scanmd_emu_entry();
asm(R"(
    .text
    .globl scanmd_emu_switch
    .type scanmd_emu_switch, @function
scanmd_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size scanmd_emu_switch, .-scanmd_emu_switch
    .globl scanmd_emu_entry
    .type scanmd_emu_entry, @function
scanmd_emu_entry:
    callq *%rbx
    ud2
    .size scanmd_emu_entry, .-scanmd_emu_entry
)");

struct Context {
  void* sp = nullptr;
  const void* bottom = nullptr;  // the stack this context runs on (AddressSanitizer needs it)
  std::size_t size = 0;
};
void start_context(Context& c, void* stack, std::size_t bytes, std::size_t stagger) {
#if defined(SCANMD_EMU_ASAN)
  // A reused stack still carries the poisoned red zones of the last fiber's frames (it left by
  // a switch, never by returning).
  ASAN_UNPOISON_MEMORY_REGION(stack, bytes);
#endif
  // The frame scanmd_emu_switch pops: r15..r12, rbx = fiber_main, rbp, and the return address
  // scanmd_emu_entry; after the `ret` the stack pointer is 16-byte aligned.
  auto top = (reinterpret_cast<std::uintptr_t>(stack) + bytes - 64 - stagger) & ~std::uintptr_t{15};
  auto* frame = reinterpret_cast<std::uint64_t*>(top) - 7;
  std::memset(frame, 0, 7 * sizeof(std::uint64_t));
  frame[4] = reinterpret_cast<std::uint64_t>(&fiber_main);  // rbx
  frame[6] = reinterpret_cast<std::uint64_t>(&scanmd_emu_entry);
  c.sp = frame;
  c.bottom = stack;
  c.size = bytes;
}
void raw_switch(Context& from, Context& to) {
  scanmd_emu_switch(&from.sp, to.sp);
}
#else
struct Context {
  ucontext_t uc;
  const void* bottom = nullptr;
  std::size_t size = 0;
};
void start_context(Context& c, void* stack, std::size_t bytes, std::size_t /*stagger*/) {
#if defined(SCANMD_EMU_ASAN)
  ASAN_UNPOISON_MEMORY_REGION(stack, bytes);
#endif
  c.bottom = stack;
  c.size = bytes;
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = bytes;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, fiber_main, 0);
}
void raw_switch(Context& from, Context& to) {
  swapcontext(&from.uc, &to.uc);
}
#endif

// Switches between the scheduler and a fiber (never fiber to fiber), telling AddressSanitizer
// which stack is live. `exiting`: `from` is a fiber that will never run again.
Context g_scheduler;
void switch_context(Context& from, Context& to, bool exiting = false) {
#if defined(SCANMD_EMU_ASAN)
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(exiting ? nullptr : &fake_stack, to.bottom, to.size);
  raw_switch(from, to);
  // Back in `from`. A fiber is always resumed by the scheduler: keep the scheduler's stack.
  if (&from == &g_scheduler)
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
  else
    __sanitizer_finish_switch_fiber(fake_stack, &g_scheduler.bottom, &g_scheduler.size);
#else
  (void)exiting;
  raw_switch(from, to);
#endif
}

struct Fiber {
  ThreadState state;
  Context context;
  bool done = false;
};

struct Warp {
  unsigned exited = 0;      // lanes that exited or do not exist
  unsigned arrived = 0;     // lanes waiting in the current collective
  unsigned generation = 0;  // completed collectives
  std::uint64_t deposit[32] = {};
  std::uint64_t result[2][32] = {};  // values of collective g, in result[g % 2]
};

struct Block {
  const char* kernel = "";
  std::vector<Fiber> fibers;
  std::vector<Warp> warps;
  unsigned live = 0;  // threads that have not exited
  unsigned barrier_arrived = 0;
  unsigned barrier_generation = 0;
  std::uint64_t progress = 0;   // bumped whenever a wait can end
  std::vector<unsigned> order;  // the order in which a round resumes the threads
  const std::function<void()>* body = nullptr;
};

Block g_blk;
// SCANMD_EMU_SEED=<n> (n != 0): threads of a block and blocks of a grid run in a random order.
const std::uint64_t g_seed = [] {
  const char* v = std::getenv("SCANMD_EMU_SEED");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : 0ull;
}();
std::mt19937_64 g_rng(g_seed);
std::vector<void*> g_stacks;  // reused between launches
cudaError_t g_last_error = cudaSuccess;

void yield() {
  switch_context(g_blk.fibers[g_thread->linear].context, g_scheduler);
}

void fiber_main() {
#if defined(SCANMD_EMU_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &g_scheduler.bottom, &g_scheduler.size);
#endif
  (*g_blk.body)();
  Fiber& f = g_blk.fibers[g_thread->linear];
  f.done = true;
  g_blk.warps[g_thread->warp()].exited |= 1u << g_thread->lane();
  --g_blk.live;
  ++g_blk.progress;
  // An exited thread no longer holds up a block barrier.
  if (g_blk.barrier_arrived > 0 && g_blk.barrier_arrived == g_blk.live) {
    g_blk.barrier_arrived = 0;
    ++g_blk.barrier_generation;
  }
  switch_context(f.context, g_scheduler, /*exiting=*/true);
  std::abort();  // never resumed
}

void* stack_for(std::size_t t) {
  while (g_stacks.size() <= t) {
    void* s =
        mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
      std::fprintf(stderr, "cuda emulator: cannot map a fiber stack\n");
      std::abort();
    }
    g_stacks.push_back(s);
  }
  return g_stacks[t];
}

void run_block(unsigned threads) {
  g_blk.fibers.assign(threads, Fiber{});
  g_blk.warps.assign((threads + 31) / 32, Warp{});
  if (threads % 32 != 0) g_blk.warps.back().exited = ~0u << (threads % 32);  // missing lanes
  g_blk.live = threads;
  g_blk.barrier_arrived = 0;
  g_blk.barrier_generation = 0;
  for (unsigned t = 0; t < threads; ++t) {
    Fiber& f = g_blk.fibers[t];
    const unsigned dx = g_block_dim.x, dy = g_block_dim.y;
    f.state.idx = uint3{t % dx, (t / dx) % dy, t / (dx * dy)};
    f.state.linear = t;
    // Each stack's top 576 bytes further down than the last one's, modulo 64 KiB: the stacks
    // are 256 KiB apart, so their tops would otherwise share a set of the L1 and L2 caches
    // (one set for 256 fibers: a cache miss on nearly every switch).
    start_context(f.context, stack_for(t), kStackBytes, (std::size_t{t} * 576) % 65536);
  }
  // Round robin until every thread has exited; a full round without progress is a deadlock
  // (every live thread waits at a barrier or collective that cannot complete).
  // The order of a round: ascending thread index in even blocks, descending in odd ones, so a
  // read of another thread's write without a barrier in between is caught whichever of the two
  // threads has the lower index; with SCANMD_EMU_SEED, a random order per block.
  std::vector<unsigned>& order = g_blk.order;
  order.resize(threads);
  for (unsigned t = 0; t < threads; ++t) order[t] = t;
  if (g_seed != 0) {
    std::shuffle(order.begin(), order.end(), g_rng);
  } else if ((g_block_idx.x + g_block_idx.y + g_block_idx.z) % 2 == 1) {
    std::reverse(order.begin(), order.end());
  }
  while (g_blk.live > 0) {
    const std::uint64_t before = g_blk.progress;
    for (const unsigned t : order) {
      if (g_blk.fibers[t].done) continue;
      g_thread = &g_blk.fibers[t].state;
      switch_context(g_scheduler, g_blk.fibers[t].context);
    }
    g_thread = nullptr;
    if (g_blk.live > 0 && g_blk.progress == before) {
      std::fprintf(stderr,
                   "cuda emulator: deadlock in kernel %s, block (%u,%u,%u): %u live threads all "
                   "wait at a barrier or warp collective that cannot complete\n",
                   g_blk.kernel, g_block_idx.x, g_block_idx.y, g_block_idx.z, g_blk.live);
      std::abort();
    }
  }
}

}  // namespace

void fail(const char* what) {
  if (g_thread != nullptr)
    std::fprintf(stderr, "cuda emulator: %s (kernel %s, block (%u,%u,%u), thread (%u,%u,%u))\n",
                 what, g_blk.kernel, g_block_idx.x, g_block_idx.y, g_block_idx.z, g_thread->idx.x,
                 g_thread->idx.y, g_thread->idx.z);
  else
    std::fprintf(stderr, "cuda emulator: %s\n", what);
  std::abort();
}

void syncthreads() {
  const unsigned generation = g_blk.barrier_generation;
  if (++g_blk.barrier_arrived == g_blk.live) {
    g_blk.barrier_arrived = 0;
    ++g_blk.barrier_generation;
    ++g_blk.progress;
    return;
  }
  while (g_blk.barrier_generation == generation) yield();
}

const std::uint64_t* warp_exchange(unsigned mask, std::uint64_t value) {
  const unsigned lane = g_thread->lane(), w = g_thread->warp();
  Warp& warp = g_blk.warps[w];
  if (!(mask >> lane & 1u)) fail("warp collective: the calling lane is not in the mask");
  const unsigned generation = warp.generation;
  warp.deposit[lane] = value;
  warp.arrived |= 1u << lane;
  while ((warp.arrived & mask) != mask) {
    if (warp.exited & mask)
      fail("warp collective: the mask names a lane that has exited or does not exist");
    yield();
    if (warp.generation != generation) break;  // completed by the last lane to arrive
  }
  if (warp.generation == generation) {  // this lane completes the collective
    std::memcpy(warp.result[generation % 2], warp.deposit, sizeof warp.deposit);
    warp.arrived &= ~mask;
    ++warp.generation;
    ++g_blk.progress;
  }
  return warp.result[generation % 2];
}

namespace {
OpCounts g_ops;
}  // namespace

OpCounts op_counts() {
  return g_ops;
}

void run_grid(const Config& c, const char* kernel, const std::function<void()>& body) {
  ++g_ops.launches;
  const std::uint64_t threads = std::uint64_t{c.block.x} * c.block.y * c.block.z;
  const std::uint64_t blocks = std::uint64_t{c.grid.x} * c.grid.y * c.grid.z;
  if (blocks == 0 || threads == 0 || threads > 1024 || c.block.z > 64 || c.grid.y > 65535 ||
      c.grid.z > 65535 || c.shared_bytes > 48 * 1024) {
    g_last_error = cudaErrorInvalidConfiguration;
    return;
  }
  if (g_thread != nullptr) fail("kernel launched from device code");
  g_blk.kernel = kernel;
  g_blk.body = &body;
  g_grid_dim = c.grid;
  g_block_dim = c.block;
  std::vector<uint3> block_order;
  block_order.reserve(blocks);
  for (unsigned z = 0; z < c.grid.z; ++z)
    for (unsigned y = 0; y < c.grid.y; ++y)
      for (unsigned x = 0; x < c.grid.x; ++x) block_order.push_back(uint3{x, y, z});
  if (g_seed != 0) std::shuffle(block_order.begin(), block_order.end(), g_rng);
  for (const uint3& b : block_order) {
    g_block_idx = b;
    run_block(static_cast<unsigned>(threads));
  }
  g_blk.body = nullptr;
}

}  // namespace scanmd_emu

// ---- the CUDA runtime API, over host memory ----------------------------------------------------
using scanmd_emu::g_last_error;

namespace {
cudaError_t fail_with(cudaError_t e) {
  g_last_error = e;
  return e;
}
struct EmuEvent {
  std::chrono::steady_clock::time_point at;
};
struct EmuStream {
  int unused;
};
}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  if (std::getenv("SCANMD_EMU_NO_DEVICE") != nullptr) {
    *count = 0;
    return fail_with(cudaErrorNoDevice);
  }
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : fail_with(cudaErrorInvalidDevice);
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return fail_with(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "scanmd CPU emulator of CUDA");
  prop->totalGlobalMem = std::size_t{1} << 34;
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 1;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->sharedMemPerBlock = 48 * 1024;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) {
  const cudaError_t e = g_last_error;
  g_last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) {
  return g_last_error;
}
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    default:
      return "unknown error (emulator)";
  }
}
const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    default:
      return "cudaErrorUnknown";
  }
}

// Device memory is host memory, filled with a pattern (NaN doubles, huge integers) so that a
// kernel reading what nobody wrote gives itself away instead of reading zeros by luck.
cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (*p == nullptr) return fail_with(cudaErrorMemoryAllocation);
  std::memset(*p, 0xff, bytes);
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void** p, std::size_t bytes) {
  return cudaMalloc(p, bytes);
}
cudaError_t cudaFreeHost(void* p) {
  return cudaFree(p);
}
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind) {
  ++scanmd_emu::g_ops.copies;
  if (bytes > 0 && (dst == nullptr || src == nullptr)) return fail_with(cudaErrorInvalidValue);
  if (bytes > 0) std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
  return cudaMemcpy(dst, src, bytes, kind);
}
cudaError_t cudaMemset(void* p, int value, std::size_t bytes) {
  ++scanmd_emu::g_ops.memsets;
  if (bytes > 0 && p == nullptr) return fail_with(cudaErrorInvalidValue);
  if (bytes > 0) std::memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int value, std::size_t bytes, cudaStream_t) {
  return cudaMemset(p, value, bytes);
}
cudaError_t cudaStreamCreate(cudaStream_t* s) {
  *s = reinterpret_cast<cudaStream_t>(new EmuStream{});
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete reinterpret_cast<EmuStream*>(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = reinterpret_cast<cudaEvent_t>(new EmuEvent{std::chrono::steady_clock::now()});
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<EmuEvent*>(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  reinterpret_cast<EmuEvent*>(e)->at = std::chrono::steady_clock::now();
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) {
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<EmuEvent*>(end)->at -
                                                 reinterpret_cast<EmuEvent*>(start)->at)
            .count();
  return cudaSuccess;
}

}  // extern "C"
