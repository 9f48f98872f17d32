// Clang's thread-safety annotations (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html), as
// leveldb and Abseil spell them. Under clang with -Wthread-safety (the asan preset, run by CI, makes
// its findings errors) the compiler checks that every field marked GUARDED_BY(mu) is touched only
// with mu held, and that every function marked REQUIRES(mu) is called only with it held. Other
// compilers see nothing. Use them with base/mutex.h's Mutex and MutexLock: std::mutex and
// std::lock_guard carry no annotations, so the analysis cannot see them.
#pragma once

#if defined(__clang__)
#define MUSTER_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define MUSTER_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) MUSTER_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY MUSTER_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) MUSTER_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) MUSTER_THREAD_ANNOTATION(pt_guarded_by(x))
#define ACQUIRED_BEFORE(...) MUSTER_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) MUSTER_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define REQUIRES(...) MUSTER_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) MUSTER_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) MUSTER_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) MUSTER_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) MUSTER_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define EXCLUDES(...) MUSTER_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) MUSTER_THREAD_ANNOTATION(assert_capability(x))
#define RETURN_CAPABILITY(x) MUSTER_THREAD_ANNOTATION(lock_returned(x))
#define NO_THREAD_SAFETY_ANALYSIS MUSTER_THREAD_ANNOTATION(no_thread_safety_analysis)
