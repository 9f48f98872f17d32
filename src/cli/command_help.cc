#include "cli/command_help.h"

#include <cstring>

namespace muster {
namespace {

struct HelpText {
  const char* command;
  bool dash_h_is_help;  // squeue and sinfo read -h as --noheader
  const char* usage;
  const char* help;
};

constexpr HelpText kTexts[] = {
    {"squeue", false,
     "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
     "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
     "              [--reservation reservation] [--sort fields] [--start]\n"
     "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
     "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
     "\t      [-ahjlrsv]\n",
     "Usage: squeue [OPTIONS]\n"
     "  -A, --account=account(s)        accounts of the jobs to view\n"
     "  -h, --noheader                  no headers on output\n"
     "  -j, --jobs=job(s)               jobs to view, comma separated\n"
     "      --json                      jobs as JSON\n"
     "  -l, --long                      long report\n"
     "      --me                        the caller's jobs\n"
     "  -n, --name=job_name(s)          job names to view\n"
     "  -o, --format=format             format specification (%i %P %j %u %t %T %M %l %D %R ...)\n"
     "  -O, --Format=format             format specification by field names (JobID,Name,State,...)\n"
     "  -p, --partition=partition(s)    partitions to view\n"
     "  -r, --array                     one line per array task\n"
     "  -S, --sort=fields               comma separated sort keys (%-letters; '-' reverses)\n"
     "      --start                     expected start times of pending jobs\n"
     "  -t, --states=state(s)           job states to view (PD,R,CG,... or all)\n"
     "  -u, --user=user_name(s)         users to view\n"
     "  -V, --version                   version\n"
     "Environment: SQUEUE_FORMAT, SQUEUE_FORMAT2 (the default -o / -O).\n"
     "\n"
     "Help options:\n"
     "  --help                          show this help message\n"
     "  --usage                         display a brief summary of squeue options\n"},
    {"sinfo", false,
     "Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
     "             [-S fields] [-o format] [-O Format] [--federation] [--local]\n",
     "Usage: sinfo [OPTIONS]\n"
     "  -h, --noheader             no headers on output\n"
     "      --json                 partitions and nodes as JSON\n"
     "  -l, --long                 long output\n"
     "  -n, --nodes=NODES          nodes to view (a host list)\n"
     "  -N, --Node                 one line per node\n"
     "  -o, --format=format        format specification (%P %a %l %D %t %N %C %G ...)\n"
     "  -p, --partition=PARTITION  partitions to view\n"
     "  -R, --list-reasons         why nodes are down, drained or failing\n"
     "  -s, --summarize            node states summarized as A/I/O/T per partition\n"
     "  -t, --states=STATES        node states to view (idle,mix,alloc,drain,down,...)\n"
     "  -V, --version              version\n"
     "\n"
     "Help options:\n"
     "  --help                     show this help message\n"
     "  --usage                    display brief usage message\n"},
    {"scancel", true,
     "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n"
     "               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]\n"
     "               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
     "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
     "               [job_id[_array_id][.step_id]]\n",
     "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]...]\n"
     "  -A, --account=account      jobs of this account\n"
     "  -b, --batch                signal the batch shell alone (default signal KILL)\n"
     "  -f, --full                 signal the batch shell, its children and the steps\n"
     "  -n, --name=job_name        jobs of this name\n"
     "  -p, --partition=partition  jobs in this partition\n"
     "  -s, --signal=name | int    send a signal instead of cancelling (to the steps only,\n"
     "                             unless -b or -f)\n"
     "  -t, --state=states         jobs in these states\n"
     "  -u, --user=user_name       jobs of this user\n"
     "  -v, --verbose              say why a job could not be cancelled\n"
     "  -w, --nodelist=hosts       jobs on these nodes\n"
     "  -V, --version              version\n"
     "\n"
     "Help options:\n"
     "  --help                          show this help message\n"
     "  --usage                         display brief usage message\n"},
    {"scontrol", true,
     "Usage: scontrol [-o] [--json] <command> [<entity> [<id>]]\n",
     "Usage: scontrol [OPTIONS] COMMAND [ARGS]\n"
     "  -o, --oneliner   one line per record\n"
     "      --json       records as JSON\n"
     "Commands:\n"
     "  show job|node|partition|config [ID]   display a record (all of them without ID)\n"
     "  show hostnames [LIST]                 expand a host list, one name per line\n"
     "  update JobId=ID KEY=VALUE ...          change a pending job (TimeLimit, Name, Nice, ...)\n"
     "  update NodeName=N State=DRAIN|RESUME|DOWN [Reason=R]\n"
     "  hold|release|requeue ID               hold, release or requeue a job\n"
     "  ping                                  is the controller up\n"},
};

}  // namespace

int AnswerMetaOption(const std::string& command, const std::vector<std::string>& args, std::ostream& out) {
  const HelpText* text = nullptr;
  for (const HelpText& t : kTexts) {
    if (command == t.command) text = &t;
  }
  for (const std::string& a : args) {
    if (a == "-V" || a == "--version") {
      out << "muster " << kMusterVersion << " (" << command << ")\n";
      return 0;
    }
    if (text == nullptr) continue;
    if (a == "--usage") {
      out << text->usage;
      return 0;
    }
    if (a == "--help" || (a == "-h" && text->dash_h_is_help)) {
      out << text->help;
      return 0;
    }
  }
  return -1;
}

std::string MusterUsage() {
  return "usage: muster <command> [options]\n"
         "\n"
         "Commands:\n"
         "  up        start a local cluster (controller + node agents with fake GPUs) in the background\n"
         "  down      stop the local cluster started by 'muster up'\n"
         "  sbatch    submit a batch script (Slurm's options; also as the 'sbatch' symlink)\n"
         "  srun      run a parallel step on the nodes of the current allocation (also 'srun')\n"
         "  salloc    an interactive allocation, and a command (your shell) inside it (also 'salloc')\n"
         "  squeue    list jobs (also 'squeue')\n"
         "  sinfo     list partitions and nodes (also 'sinfo')\n"
         "  scancel   cancel or signal jobs (also 'scancel')\n"
         "  scontrol  show job|node|partition, update nodes, hold/release jobs (also 'scontrol')\n"
         "  sacct     accounting records of jobs and their steps, finished ones included (also 'sacct')\n"
         "  sprio     the priority factors of pending jobs (also 'sprio')\n"
         "  sshare    the fair-share tree: shares, usage and each user's factor (also 'sshare')\n"
         "  place     load a cluster and a queue from YAML files, run the scheduler, show its decisions\n"
         "  sim       scheduling-quality benchmarks on real traces (sim openb: the FGD placement protocol)\n"
         "\n"
         "Run 'muster <command> --help' for the options of a command.\n";
}

}  // namespace muster
