// Configless agents (Slurm's configless mode; docs/configuration.md, "Configless agents"): the
// configuration files the controller serves to the agents of nodes that hold none, and
// `scontrol reconfigure`.
//   GET  /v1/config/files  (admins: an agent's token is its uid's) the files as the controller
//                          read them when it started, and their hash (wire ServedConfig)
//   POST /v1/reconfigure   (admins) the files read and checked again: an error is the answer
//                          (400) and nothing changes; else 200, and the controller starts again
//                          in its own process (musterctld's main, `restart_requested`)
// A user is refused both (403): the files may hold the state's URL with its password.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "config/muster_config.h"
#include "ctld/controller.h"
#include "net/http.h"
#include "wire/agent.h"

namespace muster::api {

// SHA-256 of `data` (OpenSSL), 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);

// The files behind `conf` as they are on disk now: muster.yaml (conf.path), its cluster file and,
// with a slurm.conf, the topology.conf and gres.conf beside it that exist (it reads them from
// there). `hash` covers every name and text, so any change to any file changes it.
StatusOr<ServedConfig> ReadServedConfig(const MusterConfig& conf);

// What POST /v1/reconfigure does before answering: reads the configuration again and checks it
// as the controller's start does (its error is answered); on success it arranges for the
// controller to start again once the answer is sent.
using Reconfigure = std::function<Status()>;

// Adds GET /v1/config/files (serving `served`, which must outlive the router) and
// POST /v1/reconfigure (calling `reconfigure`).
void AddConfigFileRoutes(Controller& c, Router& r, const ServedConfig& served, Reconfigure reconfigure);

}  // namespace muster::api
