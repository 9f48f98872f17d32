// Finding the processes of jobs whose agent is gone. Every process musterd starts carries
// MUSTER_SPOOL=<its spool dir> in its environment; a restarted agent (and `muster down`) kill the
// processes that still carry it, so a killed agent leaves nothing behind once it, or the local
// cluster, is back. Cgroups are the primary mechanism where they exist; this is the fallback that
// also works without them. (A job that execs children with a scrubbed environment escapes it.)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace muster {

inline constexpr char kSpoolMarker[] = "MUSTER_SPOOL=";

// SIGKILLs every process (other than this one) whose environment holds MUSTER_SPOOL=<spool_dir>,
// but those of the runs `keep` says to keep (it is given each one's MUSTER_RUN=<job>.<run> entry,
// "" when it has none). Returns how many were killed.
int KillStrayProcesses(const std::string& spool_dir,
                       const std::function<bool(const std::string& run_marker)>& keep = nullptr);
// Sends `sig` to every process (other than this one) whose environment holds each of `markers`
// ("NAME=value" entries, exactly), through a pidfd (a pid that changed hands meanwhile gets
// nothing). Returns how many. A run is named by its spool and its run marker together: job 1's
// run 0 of another agent on this host (another cluster's, or another node's of a local cluster)
// carries the same MUSTER_RUN=1.0.
int SignalMarkedProcesses(const std::vector<std::string>& markers, int sig);

// A batch script's directory: <script_dir>/job<id>/slurm_script (the agent's directory, the user's
// script; nothing else can be in it).
std::string JobScriptDir(const std::string& script_dir, int64_t job_id);
// Removes one (the script, then the directory; nothing is followed), or, for the second, every
// job<id>/ in `script_dir`: what the jobs of a killed agent left.
void RemoveJobScriptDir(const std::string& script_dir, int64_t job_id);
void RemoveJobScriptDirs(const std::string& script_dir);

}  // namespace muster
