# The commands of the Slurm compatibility check (compat/run.sh), run in this order against a live
# Slurm and against Muster. `c NAME 'COMMAND'` runs COMMAND with bash in the work directory $W and
# records its stdout, stderr and exit status as NAME; `settle` waits until no job is RUNNING or
# PENDING-without-hold. Jobs submitted in the set-up: $J1 (8 GPUs on n1, 4 tasks, running, prints
# its environment), $J2 (2 nodes, running), $J3 (waits for n1's GPUs), $J4 (held).
# `jsonkeys` prints the sorted key paths of the JSON on its standard input (values differ).

# -- while J1 and J2 run
c sinfo                  'sinfo'
c sinfo_Nl               'sinfo -N -l'
c sinfo_s                'sinfo -s'
c sinfo_R                'sinfo -R'
c sinfo_t_idle           'sinfo -t idle'
c sinfo_t_bad            'sinfo -t nosuchstate'
c sinfo_o                "sinfo -o '%P %a %l %D %t %N'"
c sinfo_json_keys        'sinfo --json | jsonkeys'
c squeue                 'squeue'
c squeue_l               'squeue -l'
c squeue_o               "squeue -h -o '%i %j %T %r %D %C'"
c squeue_O               "squeue -O 'JobID,Name,State,Reason'"
c squeue_env_format      "SQUEUE_FORMAT='%i %P %j' squeue"
c squeue_sort            "squeue -h -S -i -o '%i %j'"
c squeue_t_pd            'squeue -t PD'
c squeue_t_bad           'squeue -t nosuchstate'
c squeue_j               'squeue -j $J1'
c squeue_j_bad           'squeue -j 999999'
c squeue_u               'squeue -u root -h -o %i'
c squeue_u_bad           'squeue -u nosuchuser'
c squeue_start           'squeue --start -h -o "%i %r"'
c squeue_json_keys       'squeue --json | jsonkeys'
c scontrol_job_running   'scontrol show job $J1'
c scontrol_job_pending   'scontrol show job $J3'
c scontrol_job_oneline   'scontrol -o show job $J4'
c scontrol_job_bad       'scontrol show job 999999'
c scontrol_node          'scontrol show node n1'
c scontrol_partition     'scontrol show partition'
c scontrol_part_debug    'scontrol show partition debug'
c scontrol_config        "scontrol show config | grep -E '^(ClusterName|FirstJobId|MinJobAge|SchedulerType|SelectType) '"
c scontrol_hostnames     'scontrol show hostnames n[1-3]'
c scontrol_ping          'scontrol ping'
c scontrol_hold          'scontrol hold $J3; squeue -h -j $J3 -o "%T %r"'
c scontrol_release       'scontrol release $J3; squeue -h -j $J3 -o "%T"'
c scontrol_update_time   'scontrol update JobId=$J4 TimeLimit=5; scontrol show job $J4 | grep -o "TimeLimit=[^ ]*"'
c scontrol_update_name   'scontrol update JobId=$J4 Name=renamed; squeue -h -j $J4 -o %j'
c scontrol_update_bad    'scontrol update JobId=$J4 NoSuchKey=1'
c scontrol_json_keys     'scontrol show job $J1 --json | jsonkeys'
# -- sbatch
c sbatch_ok              "sbatch --wrap 'true' -n1 -o /dev/null"
c sbatch_parsable        "sbatch --parsable --wrap 'true' -o /dev/null"
c sbatch_test_only       'sbatch --test-only -N1 --wrap true 2>&1 | sed "s/ to start at .* using/ to start at TIME using/"'
c sbatch_bad_partition   'sbatch -p nosuch --wrap true'
c sbatch_gpus_node       'sbatch --gres=gpu:9 --wrap true'
c sbatch_gpus_total      'sbatch --gpus=40 --wrap true'
c sbatch_bad_time        'sbatch --time=abc --wrap true'
c sbatch_too_much_mem    'sbatch --mem=999999 --wrap true'
c sbatch_too_many_cpus   'sbatch -n 100 -N1 --wrap true'
c sbatch_bad_gres        'sbatch --gres=tpu:1 --wrap true'
c sbatch_no_script       'sbatch < /dev/null'
c sbatch_not_script      'printf "echo hi\n" > noshebang.sh; sbatch noshebang.sh'
c sbatch_bad_option      'sbatch --bogus --wrap true'
c sbatch_bad_account     'sbatch -A nosuchaccount --wrap true'
c sbatch_bad_qos         'sbatch -q nosuchqos --wrap true'
c sbatch_directives      'printf "#!/bin/bash\n#SBATCH -J fromscript\n#SBATCH -t 3\n#SBATCH -o /dev/null\necho \$1\n" > d.sh; j=$(sbatch --parsable -H d.sh arg1); squeue -h -j $j -o "%j %l"; scancel $j'
c sbatch_env_input       'j=$(SBATCH_JOB_NAME=envname SBATCH_TIMELIMIT=7 sbatch --parsable -H -o /dev/null --wrap true); squeue -h -j $j -o "%j %l"; scancel $j'
c sbatch_nice            'j=$(sbatch --parsable -H --nice=10 -o /dev/null --wrap true); squeue -h -j $j -o "%y"; scancel $j'
c sbatch_comment         'j=$(sbatch --parsable -H --comment=hello -o /dev/null --wrap true); scontrol show job $j | grep -o "Comment=[^ ]*"; scancel $j'
c sbatch_array           'j=$(sbatch --parsable -H --array=1-3 -o /dev/null --wrap true); squeue -h -j $j -o "%i %T %r"; squeue -r -h -j $j -o "%i %T"; scancel $j'
c sbatch_array_step      'j=$(sbatch --parsable -H --array=0-6:2%2 -o /dev/null --wrap true); squeue -h -j $j -o "%i"; scancel $j'
c sbatch_array_bad       'sbatch --array=5-1 --wrap true'
c sbatch_dependency      'j=$(sbatch --parsable --dependency=afterok:$J1 -o /dev/null --wrap true); squeue -h -j $j -o "%T %r %E"; scancel $j'
c sbatch_dependency_bad  'sbatch --dependency=afterok:999999 --wrap true'
c sbatch_dependency_syn  'sbatch --dependency=after:x --wrap true'
c sbatch_singleton       'j=$(sbatch --parsable -J cpujob --dependency=singleton -o /dev/null --wrap true); squeue -h -j $j -o "%T %r"; scancel $j'
c sbatch_begin           'j=$(sbatch --parsable --begin=now+1hour -o /dev/null --wrap true); squeue -h -j $j -o "%T %r"; scancel $j'
c sbatch_help            'sbatch --help | head -3'
c sbatch_usage           'sbatch --usage | head -2'
c sbatch_version         'sbatch -V | sed "s/[0-9][0-9.]*/VER/"'
# -- every command's -V and --usage
c versions               'for x in srun salloc squeue sinfo scancel sacct scontrol; do $x -V 2>&1 | sed "s/[0-9][0-9.]*/VER/"; done'
c usages                 'for x in squeue sinfo scancel sacct; do $x --usage 2>&1 | head -1; done'
c helps                  'for x in srun salloc squeue sinfo scancel sacct scontrol; do $x --help >/dev/null 2>&1; echo "$x $?"; done'
# -- scancel
c scancel_bad            'scancel 999999'
c scancel_bad_id         'scancel abc'
c scancel_array_task     'j=$(sbatch --parsable -H --array=1-3 -o /dev/null --wrap true); scancel ${j}_2; squeue -r -h -j $j -o "%i %T" | sort; scancel $j'
c scancel_state_name     'j=$(sbatch --parsable -H -J tocancel -o /dev/null --wrap true); scancel -t PENDING -n tocancel; squeue -h -j $j -o %T'
c scancel_signal         'j=$(sbatch --parsable -o /dev/null --wrap "trap \"echo got; exit 0\" USR1; sleep 20 & wait"); sleep 3; scancel --signal=USR1 $j; sleep 2; squeue -h -j $j -o %T'
# -- srun and salloc
c srun_env               "srun -N1 -n1 --gres=gpu:2 bash -c 'env | grep -E \"^(SLURM_(JOB_ID|JOB_NAME|NTASKS|NNODES|PROCID|LOCALID|NODEID|STEP_ID|STEPID|GPUS_ON_NODE|STEP_GPUS|TASKS_PER_NODE|JOB_CPUS_PER_NODE|CPUS_ON_NODE|JOB_NODELIST|STEP_NODELIST|JOB_PARTITION)|CUDA_VISIBLE_DEVICES)=\" | sort'"
c srun_label             'srun -l -n2 -N1 echo hi | sort'
c srun_fail              'srun -n2 -N1 bash -c "exit 1"'
c srun_bad_option        'srun --bogus true'
c srun_too_big           'srun --gres=gpu:9 true'
c salloc_no_shell        'salloc --no-shell -N1 -J alloc 2>&1; squeue -h -n alloc -o "%j %T"; scancel -n alloc'
c srun_multi_prog        "printf '%s\n' '0 echo zero %t' '1-2 echo rest %t %o' > mp.conf; inbatch 'srun -n3 -l --multi-prog mp.conf | sort' -n3"
c srun_multi_prog_bad    "printf '0 echo zero\n' > mp1.conf; srun -n2 -N1 --multi-prog mp1.conf"
c srun_output_pattern    'inbatch "srun -n2 -o o-%t.txt sh -c \"echo task \\\$SLURM_PROCID\"" -n2; cat o-0.txt o-1.txt'
c srun_output_task       'inbatch "srun -n2 -o 1 sh -c \"echo only \\\$SLURM_PROCID\"" -n2'
c srun_export_none       'inbatch "X=1 srun -n1 --export=NONE /bin/sh -c \"echo X=\\\${X:-unset}\""'
c srun_export_list       'inbatch "X=1 Y=2 srun -n1 --export=X,Z=3 /bin/sh -c \"echo X=\\\${X:-unset} Y=\\\${Y:-unset} Z=\\\$Z\""'
c srun_task_prolog       "printf '#!/bin/sh\necho export FROM_PROLOG=yes\necho print from-prolog\n' > tp.sh; chmod +x tp.sh; inbatch 'srun -n1 --task-prolog=\$W/tp.sh sh -c \"echo FROM_PROLOG=\\\$FROM_PROLOG\"'"
c srun_cpu_bind_none     'inbatch "srun -n1 --cpu-bind=none echo bound-none"'
c srun_umask             'inbatch "umask 027; srun -n1 sh -c umask"'
c srun_jobid             'j=$(sbatch --parsable -o /dev/null --wrap "sleep 20"); until [ "$(squeue -h -j $j -o %T)" = RUNNING ]; do sleep 0.5; done; srun --jobid=$j -n1 sh -c "echo in \$SLURM_JOB_ID" | sed "s/$j/JOBID/"; scancel $j'
c squeue_steps           'j=$(sbatch --parsable -N2 -J stepper -o /dev/null --wrap "srun -N2 -n2 sleep 20"); until [ "$(squeue -h -j $j -o %T)" = RUNNING ]; do sleep 0.5; done; sleep 3; squeue -s | grep -e STEPID -e "^ *$j\\."; squeue -s -h -o "%i %A %j" | grep "^$j\\." | sort; scancel $j'
c srun_step_busy         'j=$(sbatch --parsable -n2 -o busy.out --wrap "srun -n1 sleep 3 & sleep 1.5; srun -n1 echo second; srun -n1 --exact sleep 2 & srun -n1 --exact sleep 2 & sleep 1; srun -n1 --overlap echo overlapped; wait"); while squeue -h -j $j 2>/dev/null | grep -q .; do sleep 0.5; done; cat busy.out'
c srun_stdin             "printf 'a\\nb\\n' | srun -N1 -n2 -l cat | sort; echo x | srun -N1 -n2 -i 1 -l sh -c 'cat; echo end' | sort; echo unread | srun -n1 -i none sh -c 'cat; echo none'"
c srun_step_cancelled    'j=$(sbatch --parsable -o sc.out --wrap "srun -n1 sleep 30"); for i in $(seq 60); do squeue -h -s -o %i | grep -q "^$j\\.0$" && break; sleep 0.5; done; scancel $j; for i in $(seq 60); do squeue -h -j $j 2>/dev/null | grep -q . || break; sleep 0.5; done; sleep 1; grep -o "\\*\\*\\* [A-Z]* [0-9.]* ON [a-z0-9]* CANCELLED" sc.out | sed "s/$j/JOBID/" | sort'
c srun_step_gpus         'printf "%s\n" "srun -n1 --exact --gpus=1 sh -c \"sleep 1; echo step \\\$SLURM_STEP_GPUS\" &" "srun -n1 --exact --gpus=1 sh -c \"sleep 1; echo step \\\$SLURM_STEP_GPUS\" &" wait "srun -n2 --gpus-per-task=1 -l printenv CUDA_VISIBLE_DEVICES" > sg.sh; inbatch "sh sg.sh" -n2 --gres=gpu:2 | sort'
c srun_no_allocate       'srun -Z -w n1 -n2 -l printenv SLURM_PROCID | sort'
c sbatch_wait            'sbatch --wait -o /dev/null --wrap "exit 3"; echo rc=$?'
c sbatch_test_only_part  'sbatch --test-only -N1 -p debug --wrap true'
c sbatch_test_only_bad   'sbatch --test-only --gres=gpu:99 --wrap true'
c sbatch_signal_bad      'sbatch --signal=USR1@x --wrap true'
c scancel_batch_only     'j=$(sbatch --parsable -o sb.out --wrap "trap \"echo batch-got-usr2\" USR2; for i in \$(seq 40); do sleep 0.25; done"); sleep 3; scancel -b -s USR2 $j; sleep 1; scancel $j; sleep 1; cat sb.out'
c held_priority          'scontrol show job $J4 | grep -o "Priority=[0-9]*"; squeue -h -j $J4 -o %Q'
c srun_verbose           'srun -v -N1 -n1 true'
c srun_bad_counts        'srun -n x true; srun -N x true; srun -N 1-x true; echo rc=$?'
c srun_env_input         'printf "%s\n" "SLURM_NTASKS=1 srun hostname | wc -l" "SLURM_STDOUTMODE=env.out srun -n1 echo hi; cat env.out" "SLURM_NNODES=x srun -N1 -n1 true; echo rc=\$?" "srun --ntasks-per-node=1 hostname | wc -l" > ei.sh; inbatch "sh ei.sh" -N2 --ntasks-per-node=2'
c srun_exclusive_spread  'printf "%s\n" "srun -n1 --exclusive sh -c \"echo \\\$SLURMD_NODENAME; sleep 1\" &" "srun -n1 --exclusive sh -c \"echo \\\$SLURMD_NODENAME; sleep 1\" &" wait > ex.sh; inbatch "sh ex.sh" -N2 -n2 | sort'
c sbatch_begin_bad       'sbatch --begin=elevenses --wrap true; sbatch --begin=now+1h --wrap true; echo rc=$?'
c scontrol_hostlist      'scontrol show hostlist n3,n1,n2; scontrol show hostlistsorted n3,n1,n2'
c scontrol_help_list     'scontrol --help | head -60'
c help_options           'for x in squeue sinfo scancel; do $x --help | sed -n "/^Help options:/,\$p"; done'
c sacct_help_times       'sacct --help | tail -7'
c usages_more            'for x in sprio srun salloc; do $x --usage 2>&1; done'
c scancel_held           'scancel $J4; squeue -h -t all -j $J4 -o %T'
settle
# -- accounting, after the set-up jobs ended
c batch_env              'cat $W/cap_$J1.out | grep -E "^(SLURM_(JOB_ID|JOB_NAME|NTASKS|NNODES|JOB_NUM_NODES|GPUS_ON_NODE|JOB_GPUS|TASKS_PER_NODE|JOB_CPUS_PER_NODE|CPUS_ON_NODE|JOB_NODELIST|NODELIST|JOB_PARTITION|SUBMIT_DIR|RESTART_COUNT|JOB_QOS|JOB_ACCOUNT|CLUSTER_NAME)|CUDA_VISIBLE_DEVICES)="'
c sacct                  'sacct -j $J1,$J2,$J3,$J4'
c sacct_X                'sacct -a -X -j $J1,$J2,$J3,$J4 -o JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode,AllocTRES%50'
c sacct_P                'sacct -X -P -j $J1,$J2 -o JobID,JobName,State,ExitCode,NNodes,NodeList'
c sacct_p                'sacct -X -p -j $J1 -o JobID,State'
c sacct_b                'sacct -b -j $J1,$J2'
c sacct_l_header         'sacct -j $J1 -l -P | head -1'
c sacct_n                'sacct -n -X -j $J1 -o JobID,JobName'
c sacct_bad_field        'sacct -o NoSuchField'
c sacct_json_keys        'sacct -j $J1 --json | jsonkeys'
