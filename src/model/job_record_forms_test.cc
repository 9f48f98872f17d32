// Every JSON form of a fully populated job, byte for byte as the codec wrote it before the records'
// fields and the wire types shared one field-visitor protocol (issue 47; the texts below were
// written by the earlier code): the stored form (the stores read old rows), squeue --json's pretty
// full records and the job list (GET /v1/jobs). The wire forms are pinned in wire/job_forms_test.cc.
#include <gtest/gtest.h>

#include <string_view>

#include "model/job_list_json.h"
#include "model/job_record_test_util.h"
#include "model/record_json.h"

namespace muster {
namespace {

constexpr std::string_view kStored = R"json({"id":42,"name":"train \"llm\" ü\t","uid":4000000000,"gid":1001,"user":"alice","group":"ml","account":"research","qos":"high","nice":-5,"partition":"gpu","request":{"name":"req","partition":"gpu,cpu","min_nodes":2,"max_nodes":3,"ntasks":16,"ntasks_per_node":8,"cpus_per_task":4,"mem_per_node_mb":1024,"mem_per_cpu_mb":512,"mem_per_gpu_mb":2048,"gpu_type":"h100","gpus_per_node":8,"gpus_total":16,"gpus_per_task":1,"cpus_per_gpu":2,"gpu_milli":250,"gpu_memory_mb":20480,"constraint":"a&b","exclusive":true,"overcommit":true,"min_cpus_per_node":6,"tmp_disk_mb":100,"time_limit_s":3600,"nodelist":["gpu01","gpu02"],"exclude":["gpu09"]},"submit_args":["-N","2"],"script":"#!/bin/bash\nsrun hostname\n","interactive":true,"script_args":["a","b"],"workdir":"/home/alice","submit_host":"login1","submit_sid":777,"comment":"a comment","wckey":"proj","mail_type":6,"mail_user":"alice@example.org","submit_key":"key-1","array_job_id":40,"array_task_id":2,"array_tasks":"0-9%2","array_max_running":2,"het_job_id":41,"het_job_offset":1,"het_job_size":2,"het_environment":["A=1"],"environment":["PATH=/usr/bin","HOME=/home/alice"],"stdout":"out-%j.txt","stderr":"err-%j.txt","stdin":"/dev/zero","priority":-7,"time_limit_s":0,"requeue":false,"held":true,"dependency":"afterok:1","dependency_left":"afterok:1","begin_time":900,"warn_signal":10,"warn_time_s":60,"warn_batch_only":true,"warn_sent":true,"state":"SUSPENDED","reason":"None","reason_detail":"UnavailableNodes:n[3-4]","submit_time":1000,"eligible_time":1001,"start_time":1005,"expected_start":1004,"sched_nodes":"gpu[01-02]","end_time":2000,"exit_code":3,"exit_signal":9,"restart_count":4,"lost_launches":1,"allocation":[{"node":"gpu01","cpu_milli":2000,"memory_mb":4096,"tasks":1,"gpus":[0,1,7],"shared_gpu":-1,"shared_milli":0,"exclusive":false},{"node":"gpu02","cpu_milli":2500,"memory_mb":0,"tasks":2,"gpus":[],"shared_gpu":3,"shared_milli":250,"exclusive":true}],"batch_host":"gpu01","ending":"timeout","kill_at":2100,"cancelled_by":0,"preempted_by":43,"preempt_time":1500,"preempt_reason":"by 43","preemptions":[{"by":43,"time":1500,"mode":"REQUEUE","reason":"by 43"},{"by":44,"time":1600,"mode":"SUSPEND","reason":""}],"suspend_time":1700,"suspended_s":30,"run_before_s":120})json";

constexpr std::string_view kPretty = R"json({
  "jobs": [
    {
      "account": "research",
      "allocation": [
        {
          "cpu_milli": 2000,
          "exclusive": false,
          "gpus": [
            0,
            1,
            7
          ],
          "memory_mb": 4096,
          "node": "gpu01",
          "shared_gpu": -1,
          "shared_milli": 0,
          "tasks": 1
        },
        {
          "cpu_milli": 2500,
          "exclusive": true,
          "gpus": [],
          "memory_mb": 0,
          "node": "gpu02",
          "shared_gpu": 3,
          "shared_milli": 250,
          "tasks": 2
        }
      ],
      "array_job_id": 40,
      "array_max_running": 2,
      "array_task_id": 2,
      "array_tasks": "0-9%2",
      "batch_host": "gpu01",
      "begin_time": 900,
      "cancelled_by": 0,
      "comment": "a comment",
      "dependency": "afterok:1",
      "dependency_left": "afterok:1",
      "eligible_time": 1001,
      "end_time": 2000,
      "ending": "timeout",
      "environment": [
        "PATH=/usr/bin",
        "HOME=/home/alice"
      ],
      "exit_code": 3,
      "exit_signal": 9,
      "expected_start": 1004,
      "gid": 1001,
      "group": "ml",
      "held": true,
      "het_environment": [
        "A=1"
      ],
      "het_job_id": 41,
      "het_job_offset": 1,
      "het_job_size": 2,
      "id": 42,
      "interactive": true,
      "kill_at": 2100,
      "lost_launches": 1,
      "mail_type": 6,
      "mail_user": "alice@example.org",
      "name": "train \"llm\" ü\t",
      "nice": -5,
      "partition": "gpu",
      "preempt_reason": "by 43",
      "preempt_time": 1500,
      "preempted_by": 43,
      "preemptions": [
        {
          "by": 43,
          "mode": "REQUEUE",
          "reason": "by 43",
          "time": 1500
        },
        {
          "by": 44,
          "mode": "SUSPEND",
          "reason": "",
          "time": 1600
        }
      ],
      "priority": -7,
      "qos": "high",
      "reason": "None",
      "reason_detail": "UnavailableNodes:n[3-4]",
      "request": {
        "constraint": "a&b",
        "cpus_per_gpu": 2,
        "cpus_per_task": 4,
        "exclude": [
          "gpu09"
        ],
        "exclusive": true,
        "gpu_memory_mb": 20480,
        "gpu_milli": 250,
        "gpu_type": "h100",
        "gpus_per_node": 8,
        "gpus_per_task": 1,
        "gpus_total": 16,
        "max_nodes": 3,
        "mem_per_cpu_mb": 512,
        "mem_per_gpu_mb": 2048,
        "mem_per_node_mb": 1024,
        "min_cpus_per_node": 6,
        "min_nodes": 2,
        "name": "req",
        "nodelist": [
          "gpu01",
          "gpu02"
        ],
        "ntasks": 16,
        "ntasks_per_node": 8,
        "overcommit": true,
        "partition": "gpu,cpu",
        "time_limit_s": 3600,
        "tmp_disk_mb": 100
      },
      "requeue": false,
      "restart_count": 4,
      "run_before_s": 120,
      "sched_nodes": "gpu[01-02]",
      "script": "#!/bin/bash\nsrun hostname\n",
      "script_args": [
        "a",
        "b"
      ],
      "start_time": 1005,
      "state": "SUSPENDED",
      "stderr": "err-%j.txt",
      "stdin": "/dev/zero",
      "stdout": "out-%j.txt",
      "submit_args": [
        "-N",
        "2"
      ],
      "submit_host": "login1",
      "submit_key": "key-1",
      "submit_sid": 777,
      "submit_time": 1000,
      "suspend_time": 1700,
      "suspended_s": 30,
      "time_limit_s": 0,
      "uid": 4000000000,
      "user": "alice",
      "warn_batch_only": true,
      "warn_sent": true,
      "warn_signal": 10,
      "warn_time_s": 60,
      "wckey": "proj",
      "workdir": "/home/alice"
    }
  ]
})json";

constexpr std::string_view kList = R"json({"jobs":[{"id":42,"name":"train \"llm\" ü\t","uid":4000000000,"gid":1001,"user":"alice","group":"ml","account":"research","qos":"high","nice":-5,"partition":"gpu","request":{"name":"req","partition":"gpu,cpu","min_nodes":2,"max_nodes":3,"ntasks":16,"ntasks_per_node":8,"cpus_per_task":4,"mem_per_node_mb":1024,"mem_per_cpu_mb":512,"mem_per_gpu_mb":2048,"gpu_type":"h100","gpus_per_node":8,"gpus_total":16,"gpus_per_task":1,"cpus_per_gpu":2,"gpu_milli":250,"gpu_memory_mb":20480,"constraint":"a&b","exclusive":true,"overcommit":true,"min_cpus_per_node":6,"tmp_disk_mb":100,"time_limit_s":3600,"nodelist":["gpu01","gpu02"],"exclude":["gpu09"]},"submit_args":["-N","2"],"interactive":true,"workdir":"/home/alice","submit_host":"login1","submit_sid":777,"comment":"a comment","wckey":"proj","mail_type":6,"mail_user":"alice@example.org","submit_key":"key-1","array_job_id":40,"array_task_id":2,"array_tasks":"0-9%2","array_max_running":2,"het_job_id":41,"het_job_offset":1,"het_job_size":2,"het_environment":["A=1"],"stdout":"out-%j.txt","stderr":"err-%j.txt","stdin":"/dev/zero","priority":-7,"time_limit_s":0,"requeue":false,"held":true,"dependency":"afterok:1","dependency_left":"afterok:1","begin_time":900,"warn_signal":10,"warn_time_s":60,"warn_batch_only":true,"warn_sent":true,"state":"SUSPENDED","reason":"None","reason_detail":"UnavailableNodes:n[3-4]","submit_time":1000,"eligible_time":1001,"start_time":1005,"expected_start":1004,"sched_nodes":"gpu[01-02]","end_time":2000,"exit_code":3,"exit_signal":9,"restart_count":4,"lost_launches":1,"allocation":[{"node":"gpu01","cpu_milli":2000,"memory_mb":4096,"tasks":1,"gpus":[0,1,7]},{"node":"gpu02","cpu_milli":2500,"tasks":2,"shared_gpu":3,"shared_milli":250,"exclusive":true}],"batch_host":"gpu01","ending":"timeout","kill_at":2100,"cancelled_by":0,"preempted_by":43,"preempt_time":1500,"preempt_reason":"by 43","preemptions":[{"by":43,"time":1500,"mode":"REQUEUE","reason":"by 43"},{"by":44,"time":1600,"mode":"SUSPEND"}],"suspend_time":1700,"suspended_s":30,"run_before_s":120}]})json";

TEST(JobRecordForms, StoredFormIsUnchangedAndReadsBack) {
  const JobRecord job = FullyPopulatedJob();
  EXPECT_EQ(ToJsonText(job), kStored);
  StatusOr<boost::json::value> parsed = ParseRecordText(kStored);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  StatusOr<JobRecord> back = JobRecordFromJson(*parsed);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, job);
}

TEST(JobRecordForms, PrettyFormIsUnchanged) { EXPECT_EQ(JobRecordsPrettyJson({FullyPopulatedJob()}), kPretty); }

TEST(JobRecordForms, ListFormIsUnchangedAndReadsBackWithoutThePayload) {
  const JobRecord job = FullyPopulatedJob();
  EXPECT_EQ(JobListJson({job}), kList);
  StatusOr<std::vector<JobRecord>> back = ParseJobListJson(kList);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0], ListedJob(job));
  JobRecord expected = job;  // the list drops exactly the script, its arguments and the environment
  expected.script = SharedText();
  expected.script_args.clear();
  expected.environment.clear();
  EXPECT_EQ((*back)[0], expected);
}

}  // namespace
}  // namespace muster
