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

constexpr char kScontrolHelp[] = R"scontrol(scontrol [<OPTION>] [<COMMAND>]                                            
    Valid <OPTION> values are:                                             
     -a, --all      Equivalent to "all" command                          
     -d, --details  Equivalent to "details" command                      
     --federation   Report federated job information if a member of a  one 
     -F, --future   Report information about nodes in "FUTURE" state.    
     -h, --help     Equivalent to "help" command                         
     --hide         Equivalent to "hide" command                         
     --local        Report information only about jobs on the local cluster.
	            Overrides --federation.                                
     -M, --cluster  Equivalent to "cluster" command. Implies --local.    
                    NOTE: SlurmDBD must be up.                             
     -o, --oneliner Equivalent to "oneliner" command                     
     -Q, --quiet    Equivalent to "quiet" command                        
     --sibling      Report information about all sibling jobs on a         
	            federated cluster. Implies --federation option.        
     -u,--uid       Update job as user "uid" instead of the invoking user.
     -v, --verbose  Equivalent to "verbose" command                      
     -V, --version  Equivalent to "version" command                      
									   
  <keyword> may be omitted from the execute line and scontrol will execute 
  in interactive mode. It will process commands as entered until explicitly
  terminated.                                                              
									   
    Valid <COMMAND> values are:                                            
     abort                    shutdown slurm controller immediately        
			      generating a core file.                      
     all                      display information about all partitions,    
			      including hidden partitions.                 
     cancel_reboot <nodelist> Cancel pending reboot on nodes.              
     cluster                  cluster to issue commands to.  Default is    
			      current cluster.  cluster with no name will  
			      reset to default.                            
                              NOTE: SlurmDBD must be up.                   
     completing               display jobs in completing state along with  
			      their completing or down nodes               
     create <SPECIFICATIONS>  create a new partition or reservation        
     details                  evokes additional details from the "show"  
			      command                                      
     delete <SPECIFICATIONS>  delete the specified partition or reservation
     errnumstr <ERRNO>        Given a Slurm error number, return a         
                              descriptive string.                          
     exit                     terminate scontrol                           
     fsdampeningfactor <factor> Set the FairShareDampeningFactor in slurmctld
     help                     print this description of use.               
     hold <job_list>          prevent specified job from starting. <job_list>
			      is either a space separate list of job IDs or
			      job names 
     holdu <job_list>         place user hold on specified job (see hold)  
     hide                     do not display information about hidden      
			      partitions                                   
     listpids <job_id<.step>> List pids associated with the given jobid, or
			      all jobs if no id is given (This will only   
			      display the processes on the node which the  
			      scontrol is ran on, and only for those       
			      processes spawned by Slurm and their         
			      descendants)                                 
     notify <job_id> msg      send message to specified job                
     oneliner                 report output one record per line.           
     pidinfo <pid>            return slurm job information for given pid.  
     ping                     print status of slurmctld daemons.           
     quiet                    print no messages other than error messages. 
     quit                     terminate this command.                      
     reboot [ASAP] [nextstate=] [reason=] <ALL|nodelist>		   
			      reboot the nodes when they become idle.      
     reconfigure              re-read configuration files.                 
     release <job_list>       permit specified job to start (see hold)     
     requeue <job_id>         re-queue a batch job                         
     requeuehold <job_id>     re-queue and hold a batch                    
     resume <jobid_list>      resume previously suspended job (see suspend)
     setdebug <level>         set slurmctld debug level                    
     setdebugflags [+|-]<flag>  add or remove slurmctld DebugFlags         
     schedloglevel <level>    set scheduler log level                      
     show <ENTITY> [<ID>]     display state of identified entity, default  
			      is all records.                              
     shutdown <OPTS>          shutdown slurm daemons                       
			      (the primary controller will be stopped)     
     suspend <job_list>       susend specified job (see resume)            
     top <job_list>           Put specified job first in queue for user    
     token [lifespan=] [username=] fetch an auth token                     
     takeover                 ask slurm backup controller to take over     
     uhold <jobid_list>       place user hold on specified job (see hold)  
     update <SPECIFICATIONS>  update job, node, partition, reservation, or 
			      step                                         
     verbose                  enable detailed logging.                     
     version                  display tool version number.                 
     wait_job <job_id>        wait until the nodes allocated to the job    
			      are booted and usable                        
     write batch_script <job_id> <optional filename>                       
                              Write the batch script for a given job to a  
                              local file. Default is slurm-<job_id>.sh if  
                              the (optional) filename is not given.        
     write config <optional filename>                                      
                              Write the current configuration to a file    
                              with the naming convention of                
                              slurm.conf.<datetime> in the same directory  
                              as the original slurm.conf.                  
                              If a filename is given that file location    
                              with a .<datetime> suffix is created.        
     !!                       Repeat the last command entered.             
									   
  <ENTITY> may be "aliases", "assoc_mgr", "bbstat", "burstBuffer", 
       "config", "daemons", "dwstat", "federation", "frontend",  
       "hostlist", "hostlistsorted", "hostnames", "job",           
       "licenses", "node", "partition", "reservation", "slurmd", 
       "step", or "topology"                                           
									   
  <ID> may be a configuration parameter name, job id, node name, partition 
       name, reservation name, job step id, license name or hostlist or    
       pathname to a list of host names.                                   
									   
  <HOSTLIST> may either be a comma separated list of host names or the     
       absolute pathname of a file (with leading '/' containing host names 
       either separated by commas or new-lines                             
									   
  <LEVEL> may be an integer value like SlurmctldDebug in the slurm.conf    
       file or the name of the most detailed errors to report (e.g. "info",
       "verbose", "debug", "debug2", etc.).                          
									   
  <SLEVEL> may be an integer value like SlurmSchedLogLevel in the          
       slurm.conf file or "enable" or "disable".                       
									   
  <OPTS> may be "slurmctld" to shutdown just the slurmctld daemon,       
       otherwise all slurm daemons are shutdown                            
									   
  Node names may be specified using simple range expressions,              
  (e.g. "lx[10-20]" corresponds to lx10, lx11, lx12, ...)                
  The job step id is the job id followed by a period and the step id.      
									   
  <SPECIFICATIONS> are specified in the same format as the configuration   
  file. You may wish to use the "show" keyword then use its output as    
  input for the update keyword, editing as needed.                         
									   
  All commands and options are case-insensitive, although node names and   
  partition names tests are case-sensitive (node names "LX" and "lx"   
  are distinct).                                                       


Muster: the commands and options above that Muster does not implement are refused with the reason
(docs/slurm-compatibility.md, "scontrol commands"); --json prints show job as JSON.
)scontrol";

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
    // Slurm 22.05's scontrol help, byte for byte (its "Valid <COMMAND> values are:" list is what
    // tools read), then what Muster does with it; --usage prints the same, as Slurm's does.
    {"scontrol", true, kScontrolHelp, kScontrolHelp},
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
         "  sdiag     the controller's counters and scheduling-cycle times; -r resets them (also 'sdiag')\n"
         "  why       why a pending job waits, when it will start, and what would start it sooner\n"
         "  sreport   usage reports over a period: cluster utilization, top users, accounts (also 'sreport')\n"
         "  place     load a cluster and a queue from YAML files, run the scheduler, show its decisions\n"
         "  sim       scheduling-quality benchmarks on real traces (sim openb: the FGD placement protocol)\n"
         "  admin     admin migrate: copy a stopped controller's state between stores (SQLite, PostgreSQL)\n"
         "\n"
         "Run 'muster <command> --help' for the options of a command.\n";
}

}  // namespace muster
