// The wire forms of a fully populated job, byte for byte as the codec wrote them before the records'
// fields and the wire types shared one field-visitor protocol (issue 47; the texts below were
// written by the earlier code): in full (a launch order: model/record_json.h's form) and in the job
// list's form (a step's answer: model/job_list_json.h's).
#include <gtest/gtest.h>

#include <string_view>

#include "model/job_list_json.h"
#include "model/job_record_test_util.h"
#include "wire/agent.h"
#include "wire/steps.h"

namespace muster {
namespace {

constexpr std::string_view kLaunch = R"json({"job":{"id":42,"name":"train \"llm\" ü\t","uid":4000000000,"gid":1001,"user":"alice","group":"ml","account":"research","qos":"high","nice":-5,"partition":"gpu","request":{"name":"req","partition":"gpu,cpu","min_nodes":2,"max_nodes":3,"ntasks":16,"ntasks_per_node":8,"cpus_per_task":4,"mem_per_node_mb":1024,"mem_per_cpu_mb":512,"mem_per_gpu_mb":2048,"gpu_type":"h100","gpus_per_node":8,"gpus_total":16,"gpus_per_task":1,"cpus_per_gpu":2,"gpu_milli":250,"gpu_memory_mb":20480,"constraint":"a&b","exclusive":true,"overcommit":true,"min_cpus_per_node":6,"tmp_disk_mb":100,"time_limit_s":3600,"nodelist":["gpu01","gpu02"],"exclude":["gpu09"]},"submit_args":["-N","2"],"script":"#!/bin/bash\nsrun hostname\n","interactive":true,"script_args":["a","b"],"workdir":"/home/alice","submit_host":"login1","submit_sid":777,"comment":"a comment","wckey":"proj","mail_type":6,"mail_user":"alice@example.org","submit_key":"key-1","array_job_id":40,"array_task_id":2,"array_tasks":"0-9%2","array_max_running":2,"het_job_id":41,"het_job_offset":1,"het_job_size":2,"het_environment":["A=1"],"environment":["PATH=/usr/bin","HOME=/home/alice"],"stdout":"out-%j.txt","stderr":"err-%j.txt","stdin":"/dev/zero","priority":-7,"time_limit_s":0,"requeue":false,"held":true,"dependency":"afterok:1","dependency_left":"afterok:1","begin_time":900,"warn_signal":10,"warn_time_s":60,"warn_batch_only":true,"warn_sent":true,"state":"SUSPENDED","reason":"None","reason_detail":"UnavailableNodes:n[3-4]","submit_time":1000,"eligible_time":1001,"start_time":1005,"expected_start":1004,"sched_nodes":"gpu[01-02]","end_time":2000,"exit_code":3,"exit_signal":9,"restart_count":4,"lost_launches":1,"allocation":[{"node":"gpu01","cpu_milli":2000,"memory_mb":4096,"tasks":1,"gpus":[0,1,7],"shared_gpu":-1,"shared_milli":0,"exclusive":false},{"node":"gpu02","cpu_milli":2500,"memory_mb":0,"tasks":2,"gpus":[],"shared_gpu":3,"shared_milli":250,"exclusive":true}],"batch_host":"gpu01","ending":"timeout","kill_at":2100,"cancelled_by":0,"preempted_by":43,"preempt_time":1500,"preempt_reason":"by 43","preemptions":[{"by":43,"time":1500,"mode":"REQUEUE","reason":"by 43"},{"by":44,"time":1600,"mode":"SUSPEND","reason":""}],"suspend_time":1700,"suspended_s":30,"run_before_s":120},"not_after_ms":5,"leader_token":0})json";

constexpr std::string_view kStep = R"json({"step_id":1,"ntasks":0,"time_limit_s":0,"kill_wait_s":30,"warning":"","job":{"id":42,"name":"train \"llm\" ü\t","uid":4000000000,"gid":1001,"user":"alice","group":"ml","account":"research","qos":"high","nice":-5,"partition":"gpu","request":{"name":"req","partition":"gpu,cpu","min_nodes":2,"max_nodes":3,"ntasks":16,"ntasks_per_node":8,"cpus_per_task":4,"mem_per_node_mb":1024,"mem_per_cpu_mb":512,"mem_per_gpu_mb":2048,"gpu_type":"h100","gpus_per_node":8,"gpus_total":16,"gpus_per_task":1,"cpus_per_gpu":2,"gpu_milli":250,"gpu_memory_mb":20480,"constraint":"a&b","exclusive":true,"overcommit":true,"min_cpus_per_node":6,"tmp_disk_mb":100,"time_limit_s":3600,"nodelist":["gpu01","gpu02"],"exclude":["gpu09"]},"submit_args":["-N","2"],"interactive":true,"workdir":"/home/alice","submit_host":"login1","submit_sid":777,"comment":"a comment","wckey":"proj","mail_type":6,"mail_user":"alice@example.org","submit_key":"key-1","array_job_id":40,"array_task_id":2,"array_tasks":"0-9%2","array_max_running":2,"het_job_id":41,"het_job_offset":1,"het_job_size":2,"het_environment":["A=1"],"stdout":"out-%j.txt","stderr":"err-%j.txt","stdin":"/dev/zero","priority":-7,"time_limit_s":0,"requeue":false,"held":true,"dependency":"afterok:1","dependency_left":"afterok:1","begin_time":900,"warn_signal":10,"warn_time_s":60,"warn_batch_only":true,"warn_sent":true,"state":"SUSPENDED","reason":"None","reason_detail":"UnavailableNodes:n[3-4]","submit_time":1000,"eligible_time":1001,"start_time":1005,"expected_start":1004,"sched_nodes":"gpu[01-02]","end_time":2000,"exit_code":3,"exit_signal":9,"restart_count":4,"lost_launches":1,"allocation":[{"node":"gpu01","cpu_milli":2000,"memory_mb":4096,"tasks":1,"gpus":[0,1,7]},{"node":"gpu02","cpu_milli":2500,"tasks":2,"shared_gpu":3,"shared_milli":250,"exclusive":true}],"batch_host":"gpu01","ending":"timeout","kill_at":2100,"cancelled_by":0,"preempted_by":43,"preempt_time":1500,"preempt_reason":"by 43","preemptions":[{"by":43,"time":1500,"mode":"REQUEUE","reason":"by 43"},{"by":44,"time":1600,"mode":"SUSPEND"}],"suspend_time":1700,"suspended_s":30,"run_before_s":120},"nodes":[]})json";

TEST(WireJobForms, LaunchOrderCarriesTheFullJobUnchanged) {
  LaunchOrder order;
  order.job = FullJob{FullyPopulatedJob()};
  order.not_after_ms = 5;
  EXPECT_EQ(wire::Encode(order), kLaunch);
  StatusOr<LaunchOrder> back = wire::Decode<LaunchOrder>(kLaunch);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->job.has_value());
  EXPECT_EQ(back->job->job, FullyPopulatedJob());
  EXPECT_EQ(back->not_after_ms, 5);
}

TEST(WireJobForms, StepAnswerCarriesTheListedJobUnchanged) {
  StepAnswer step;
  step.step_id = 1;
  step.job = FullyPopulatedJob();
  EXPECT_EQ(wire::Encode(step), kStep);
  StatusOr<StepAnswer> back = wire::Decode<StepAnswer>(kStep);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->step_id, 1);
  EXPECT_EQ(back->job, ListedJob(FullyPopulatedJob()));
}

}  // namespace
}  // namespace muster
