// Process-wide settings a CPU training run needs. Plain C++ (no LibTorch); call once at start-up,
// before the first step.
#pragma once

namespace bertpt::model {

// Keeps freed memory in the process instead of returning it to the kernel. glibc serves blocks
// above 32 MB with mmap and unmaps them on free, so every step re-faults its big tensors page by
// page (the 32000×768 embedding gradient alone: ~0.6 s per step on this VM, against ~15 ms once
// the pages stay mapped). This turns mmap off and trimming down, so the steady-state step reuses
// the heap. Memory use then stays at the peak of a step (which training reaches every step
// anyway). No effect with other C libraries. Returns whether the settings were applied.
bool keep_freed_memory_mapped();

// The number of CPUs this process may run on (sched_getaffinity), at least 1. LibTorch's own
// default counts physical cores through cpuinfo and picks 1 on some VMs.
int available_cpus();

}  // namespace bertpt::model
